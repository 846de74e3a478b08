/**
 * BLiMP as lm-eval's blimp tasks (lm_eval/tasks/blimp/_template_yaml): one task per paradigm file, each pair a
 * two-way choice with an empty context, the grammatical sentence being the answer:
 *   doc_to_text "", doc_to_choice [sentence_good, sentence_bad], doc_to_target 0, target_delimiter " ".
 * The `blimp` group is the unweighted mean of paradigms (the MLRB spec; all paradigms have 1,000 pairs, so it
 * equals the weighted mean on the full data).
 */
import { MlrbError } from '../../errors.js';
import { checkLimit } from '../data-files.js';
import { markPartialGroups, refuseIncomplete } from '../partial.js';
import { buildTask, type MultipleChoiceTaskSpec } from '../task-spec.js';
import type { MultipleChoiceTask, Suite, SuiteLoadOptions, TaskGroup } from '../types.js';
import { BLIMP_PARADIGMS } from './paradigms.js';
import { badRowAt } from '../split-source.js';
import { openBlimpSource, type BlimpSource, type Pair, type PlacedPair } from './sources.js';

export interface BlimpLoadOptions extends SuiteLoadOptions {
  /** Paradigms to load, as file (or hub config) names without `.jsonl` (default: every one in the folder). */
  readonly paradigms?: readonly string[];
}

/** `_template_yaml` metadata.version. */
const TASK_VERSION = 1;
/** lm-eval's `_blimp.yaml` group metadata.version (scripts/lm_eval/task_versions.py records it from the wheel). */
const GROUP_VERSION = 2;

/** Bad options throw synchronously (RangeError), except unknown paradigms, which need the folder listing. */
export function loadBlimpSuite(options: BlimpLoadOptions): Promise<Suite<MultipleChoiceTask>> {
  checkLimit(options.limit);
  if (options.paradigms !== undefined && options.paradigms.length === 0) {
    throw new RangeError('paradigms must name at least one BLiMP paradigm');
  }
  return loadParadigms(options);
}

async function loadParadigms(options: BlimpLoadOptions): Promise<Suite<MultipleChoiceTask>> {
  const source = await openBlimpSource(options.dataDir);
  const { dir, paradigms: available } = source;
  const paradigms = selectParadigms(options.paradigms, available);
  // Present files are read first, so a broken file is reported as such even in an incomplete folder.
  const tasks = await Promise.all(paradigms.map((paradigm) => loadParadigm(source, paradigm, options.limit)));
  const group: TaskGroup = { name: 'blimp', subtasks: tasks.map((task) => task.name), weightBySize: false, version: GROUP_VERSION };
  // An explicit selection is a subset on purpose; only "every paradigm in the folder" must be all of BLiMP.
  const missing =
    options.paradigms === undefined ? BLIMP_PARADIGMS.filter((paradigm) => !available.includes(paradigm)).map((paradigm) => `blimp_${paradigm}`) : [];
  refuseIncomplete({ suiteLabel: 'BLiMP', dir, missing, expected: BLIMP_PARADIGMS.length, present: tasks.length, allowPartial: options.allowPartial });
  if (missing.length === 0) return { name: 'blimp', tasks, groups: [group] };
  return { name: 'blimp', tasks, groups: markPartialGroups([group], new Set(['blimp']), missing, BLIMP_PARADIGMS.length), missing };
}

function selectParadigms(requested: readonly string[] | undefined, available: readonly string[]): readonly string[] {
  if (requested === undefined) return available;
  const unknown = requested.filter((paradigm) => !available.includes(paradigm));
  if (unknown.length > 0) {
    throw new RangeError(`unknown BLiMP paradigm(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
  }
  return [...new Set(requested)].sort();
}

async function loadParadigm(source: BlimpSource, paradigm: string, limit: number | undefined): Promise<MultipleChoiceTask> {
  const split = await source.split(paradigm);
  // Under --limit only the pairs it takes are parsed (and checked to agree); the rest are counted.
  const { docs: pairs, total } = await split.readLimited(limit);
  if (total === 0) throw new MlrbError('BAD_DATA', `BLiMP file has no pairs: ${split.file}`, { file: split.file });
  const docs = pairs.map(({ pair }) => pair);
  return buildTask(blimpSpec(paradigm, paradigmTags(pairs)), { docs, sourceFiles: split.sourceFiles, totalDocs: total });
}

function blimpSpec(paradigm: string, tags: Readonly<Record<string, string>>): MultipleChoiceTaskSpec<Pair> {
  return {
    name: `blimp_${paradigm}`,
    version: TASK_VERSION,
    docToText: () => '',
    docToChoices: (pair) => [pair.sentence_good, pair.sentence_bad],
    docToTarget: () => 0,
    metrics: ['acc'],
    fewshot: { pinnedZeroShot: true },
    tags,
    lmEval: {
      datasetPath: 'nyu-mll/blimp',
      datasetName: paradigm,
      splits: { validation_split: 'train' },
      docToText: '',
      docToTarget: 0,
      docToChoice: '{{[sentence_good, sentence_bad]}}',
      shouldDecontaminate: true,
    },
  };
}

/**
 * Every pair of a paradigm carries the same field and linguistics_term; a file that mixes them is not one
 * paradigm. BLiMP spells one field both `syntax_semantics` and `syntax/semantics`; the tag uses the former so
 * breakdowns do not split that field in two.
 */
function paradigmTags(pairs: readonly PlacedPair[]): Record<string, string> {
  const first = pairs[0]?.pair;
  if (first === undefined) return {};
  for (const { pair, place } of pairs) {
    if (pair.field !== first.field || pair.linguistics_term !== first.linguistics_term) {
      throw badRowAt(
        place,
        `field/linguistics_term "${pair.field}/${pair.linguistics_term}" differ from the file's first pair ("${first.field}/${first.linguistics_term}")`,
      );
    }
  }
  return { field: first.field.replaceAll('/', '_'), linguistics_term: first.linguistics_term, paradigm: first.UID };
}
