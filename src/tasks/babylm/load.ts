/**
 * BabyLM 2024's zero-shot suites, as its evaluation pipeline (an lm-eval fork) runs them with
 * `--tasks blimp_filtered,blimp_supplement,ewok_filtered`, from its `evaluation_data` folder:
 *   blimp_filtered/<paradigm>.jsonl      → task blimp_<paradigm>_filtered, group blimp_filtered
 *   supplement_filtered/<subtask>.jsonl  → task blimp_supplement_<subtask>, group blimp_supplement
 *   ewok_filtered/<domain>.jsonl         → task ewok_<domain>_filtered, group ewok_filtered
 * Each BLiMP pair is scored like lm-eval's BLiMP (empty context, choices [sentence_good, sentence_bad], gold 0).
 * An EWoK item is scored as the pipeline's ewok_filtered `_template_yaml` says: context "{{Context1}}", choices
 * [Target1, Target2], gold 0; the pipeline's filter script wrote every item twice, the second time with the
 * contexts and the targets swapped, so both directions of the minimal pair are scored. num_fewshot is pinned to 0,
 * and each group is the unweighted (macro) mean of its subtasks, since the filtered files differ in size.
 */
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../../errors.js';
import { checkLimit, hasFileWithSuffix, listDirectory, readTextFile } from '../data-files.js';
import { parseJsonLines } from '../jsonl.js';
import { buildTask, type MultipleChoiceTaskSpec, type TaskDocument } from '../task-spec.js';
import type { MultipleChoiceTask, Suite, SuiteLoadOptions } from '../types.js';

export type BabyLmLoadOptions = SuiteLoadOptions;

export type BabyLmSuiteName = 'blimp_filtered' | 'blimp_supplement' | 'ewok_filtered';

interface BabyLmSuiteLayout<Doc extends TaskDocument> {
  /** The folder under evaluation_data. */
  readonly folder: string;
  readonly taskName: (subtask: string) => string;
  readonly schema: z.ZodType<Doc>;
  readonly spec: (name: string) => MultipleChoiceTaskSpec<Doc>;
}

const SUFFIX = '.jsonl';
/** The pipeline's blimp_filtered and ewok_filtered `_template_yaml` metadata.version. */
const TASK_VERSION = 1;
const GROUP_VERSION = 1;

const pairSchema = z.looseObject({ sentence_good: z.string(), sentence_bad: z.string() });
type Pair = z.output<typeof pairSchema>;

/**
 * The pipeline's `_template_yaml`s differ only in the prompt: JSON files read as split `train`, gold 0, acc,
 * num_fewshot 0.
 */
function babyLmSpec<Doc extends TaskDocument>(
  name: string,
  prompt: {
    readonly docToText: (doc: Doc) => string;
    readonly docToChoices: (doc: Doc) => readonly string[];
    readonly templates: { readonly text: string; readonly choice: string };
  },
): MultipleChoiceTaskSpec<Doc> {
  return {
    name,
    version: TASK_VERSION,
    docToText: prompt.docToText,
    docToChoices: prompt.docToChoices,
    docToTarget: () => 0,
    metrics: ['acc'],
    fewshot: { pinnedZeroShot: true },
    lmEval: {
      datasetPath: 'json',
      splits: { validation_split: 'train' },
      docToText: prompt.templates.text,
      docToTarget: 0,
      docToChoice: prompt.templates.choice,
      shouldDecontaminate: true,
    },
  };
}

const pairSpec = (name: string): MultipleChoiceTaskSpec<Pair> =>
  babyLmSpec<Pair>(name, {
    docToText: () => '',
    docToChoices: (pair) => [pair.sentence_good, pair.sentence_bad],
    templates: { text: '', choice: '{{[sentence_good, sentence_bad]}}' },
  });

/** ewok-core-1.0's columns the template reads; the others (Domain, ContextDiff, TargetType …) are kept for logs. */
const ewokSchema = z.looseObject({ Context1: z.string(), Target1: z.string(), Target2: z.string() });
type EwokItem = z.output<typeof ewokSchema>;

const ewokSpec = (name: string): MultipleChoiceTaskSpec<EwokItem> =>
  babyLmSpec<EwokItem>(name, {
    docToText: (item) => item.Context1,
    docToChoices: (item) => [item.Target1, item.Target2],
    templates: { text: '{{Context1}}', choice: '{{[Target1, Target2]}}' },
  });

const LAYOUTS = {
  blimp_filtered: { folder: 'blimp_filtered', taskName: (paradigm: string) => `blimp_${paradigm}_filtered`, schema: pairSchema, spec: pairSpec },
  blimp_supplement: { folder: 'supplement_filtered', taskName: (subtask: string) => `blimp_supplement_${subtask}`, schema: pairSchema, spec: pairSpec },
  ewok_filtered: { folder: 'ewok_filtered', taskName: (domain: string) => `ewok_${domain}_filtered`, schema: ewokSchema, spec: ewokSpec },
} as const satisfies { readonly [Name in BabyLmSuiteName]: BabyLmSuiteLayout<Pair> | BabyLmSuiteLayout<EwokItem> };

/** `dataDir` is BabyLM's evaluation_data folder (or its parent), or the suite's own folder. */
export function loadBabyLmSuite(suite: BabyLmSuiteName, options: BabyLmLoadOptions): Promise<Suite<MultipleChoiceTask>> {
  checkLimit(options.limit);
  return loadFolder(suite, options);
}

function loadFolder(suite: BabyLmSuiteName, options: BabyLmLoadOptions): Promise<Suite<MultipleChoiceTask>> {
  // Split by document type, so each call knows its layout's Doc.
  return suite === 'ewok_filtered' ? loadLayout(suite, LAYOUTS.ewok_filtered, options) : loadLayout(suite, LAYOUTS[suite], options);
}

async function loadLayout<Doc extends TaskDocument>(
  suite: BabyLmSuiteName,
  layout: BabyLmSuiteLayout<Doc>,
  options: BabyLmLoadOptions,
): Promise<Suite<MultipleChoiceTask>> {
  const dir = await babyLmDir(options.dataDir, layout.folder);
  const files = (await listDirectory(dir, `BabyLM ${layout.folder} folder`))
    .filter((name) => name.endsWith(SUFFIX))
    .sort()
    .map((name) => join(dir, name));
  const tasks = await Promise.all(files.map((file) => loadSubtask(file, dir, layout, options.limit)));
  return {
    name: suite,
    tasks,
    groups: [{ name: suite, subtasks: tasks.map((task) => task.name), weightBySize: false, version: GROUP_VERSION }],
  };
}

/**
 * `<dataDir>/<folder>`, or `dataDir` itself when it is named like the folder: both suites are folders of JSONL
 * files, so a folder of the other suite must not pass for this one.
 */
async function babyLmDir(dataDir: string, folder: string): Promise<string> {
  const candidates = [join(dataDir, folder), join(dataDir, 'evaluation_data', folder), ...(basename(resolve(dataDir)) === folder ? [resolve(dataDir)] : [])];
  for (const candidate of candidates) if (await hasFileWithSuffix(candidate, SUFFIX)) return resolve(candidate);
  throw new MlrbError('BAD_DATA', `no ${folder} data under ${resolve(dataDir)}: expected ${folder}/*${SUFFIX} (BabyLM's evaluation_data layout)`, {
    file: resolve(dataDir),
  });
}

async function loadSubtask<Doc extends TaskDocument>(
  file: string,
  dir: string,
  layout: BabyLmSuiteLayout<Doc>,
  limit: number | undefined,
): Promise<MultipleChoiceTask> {
  const subtask = basename(file, SUFFIX);
  const docs = parseJsonLines(await readTextFile(file, `BabyLM file for ${subtask}`, dir), file, layout.schema).map(({ row }) => row);
  if (docs.length === 0) throw new MlrbError('BAD_DATA', `BabyLM file has no rows: ${file}`, { file });
  return buildTask(layout.spec(layout.taskName(subtask)), { docs, sourceFiles: [file], ...(limit !== undefined ? { limit } : {}) });
}
