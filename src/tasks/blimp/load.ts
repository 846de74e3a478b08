/**
 * BLiMP as lm-eval's blimp tasks (lm_eval/tasks/blimp/_template_yaml): one task per paradigm file, each pair a
 * two-way choice with an empty context, the grammatical sentence being the answer:
 *   doc_to_text "", doc_to_choice [sentence_good, sentence_bad], doc_to_target 0, target_delimiter " ".
 * The `blimp` group is the unweighted mean of paradigms (the MLRB spec; all paradigms have 1,000 pairs, so it
 * equals the weighted mean on the full data).
 */
import { basename, join } from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../../errors.js';
import { applyLimit, checkLimit, hasFileWithSuffix, listDirectory, readTextFile, resolveSuiteDir } from '../data-files.js';
import { parseJsonLines, type NumberedRow } from '../jsonl.js';
import { markPartialGroups, refuseIncomplete } from '../partial.js';
import type { MultipleChoiceDoc, MultipleChoiceTask, Suite, SuiteLoadOptions, TaskGroup } from '../types.js';
import { BLIMP_PARADIGMS } from './paradigms.js';

export interface BlimpLoadOptions extends SuiteLoadOptions {
  /** Paradigms to load, as file names without `.jsonl` (default: every file in the folder). */
  readonly paradigms?: readonly string[];
}

const SUFFIX = '.jsonl';
/** `_template_yaml` metadata.version. */
const TASK_VERSION = 1;
/** lm-eval's BLiMP group config is not certain to exist in every v0.4.x release; 1 is its usual first version. */
const GROUP_VERSION = 1;

const pairSchema = z.looseObject({
  sentence_good: z.string(),
  sentence_bad: z.string(),
  field: z.string(),
  linguistics_term: z.string(),
  UID: z.string(),
});
type Pair = z.infer<typeof pairSchema>;

/** Bad options throw synchronously (RangeError), except unknown paradigms, which need the folder listing. */
export function loadBlimpSuite(options: BlimpLoadOptions): Promise<Suite> {
  checkLimit(options.limit);
  if (options.paradigms !== undefined && options.paradigms.length === 0) {
    throw new RangeError('paradigms must name at least one BLiMP paradigm');
  }
  return loadParadigms(options);
}

async function loadParadigms(options: BlimpLoadOptions): Promise<Suite> {
  const dir = await resolveSuiteDir(options.dataDir, 'blimp', (candidate) => hasFileWithSuffix(candidate, SUFFIX));
  const available = (await listDirectory(dir, 'BLiMP data folder'))
    .filter((name) => name.endsWith(SUFFIX))
    .map((name) => name.slice(0, -SUFFIX.length))
    .sort();
  const paradigms = selectParadigms(options.paradigms, available);
  // Present files are read first, so a broken file is reported as such even in an incomplete folder.
  const tasks = await Promise.all(paradigms.map((paradigm) => loadParadigm(join(dir, paradigm + SUFFIX), dir, options.limit)));
  const group: TaskGroup = { name: 'blimp', subtasks: tasks.map((task) => task.name), weightBySize: false, version: GROUP_VERSION };
  // An explicit selection is a subset on purpose; only "every paradigm in the folder" must be all of BLiMP.
  const missing = options.paradigms === undefined ? BLIMP_PARADIGMS.filter((paradigm) => !available.includes(paradigm)).map((paradigm) => `blimp_${paradigm}`) : [];
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

async function loadParadigm(file: string, dir: string, limit: number | undefined): Promise<MultipleChoiceTask> {
  const paradigm = basename(file, SUFFIX);
  const pairs = parsePairs(await readTextFile(file, `BLiMP file for ${paradigm}`, dir), file);
  const [first] = pairs;
  if (first === undefined) throw new MlrbError('BAD_DATA', `BLiMP file has no pairs: ${file}`, { file });
  const docs = pairs.map(({ row: pair }, docId): MultipleChoiceDoc => ({
    docId,
    text: '',
    choices: [pair.sentence_good, pair.sentence_bad],
    target: 0,
    source: pair,
  }));
  return {
    name: `blimp_${paradigm}`,
    version: TASK_VERSION,
    description: '',
    targetDelimiter: ' ',
    fewshotDelimiter: '\n\n',
    docs: applyLimit(docs, limit),
    numFewshot: 0,
    totalDocs: docs.length,
    metrics: ['acc'],
    tags: paradigmTags(pairs, file),
    sourceFiles: [file],
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

type NumberedPair = NumberedRow<Pair>;

function parsePairs(content: string, file: string): NumberedPair[] {
  return parseJsonLines(content, file, pairSchema);
}

/**
 * Every pair of a paradigm carries the same field and linguistics_term; a file that mixes them is not one
 * paradigm. BLiMP spells one field both `syntax_semantics` and `syntax/semantics`; the tag uses the former so
 * breakdowns do not split that field in two.
 */
function paradigmTags(pairs: readonly NumberedPair[], file: string): Record<string, string> {
  const [first] = pairs;
  if (first === undefined) return {};
  for (const { row: pair, line } of pairs) {
    if (pair.field !== first.row.field || pair.linguistics_term !== first.row.linguistics_term) {
      throw new MlrbError(
        'BAD_DATA',
        `${file} line ${line}: field/linguistics_term "${pair.field}/${pair.linguistics_term}" differ from the file's first pair ("${first.row.field}/${first.row.linguistics_term}")`,
        { file, line },
      );
    }
  }
  return { field: first.row.field.replaceAll('/', '_'), linguistics_term: first.row.linguistics_term, paradigm: first.row.UID };
}
