/**
 * BabyLM 2024's zero-shot BLiMP suites, as its evaluation pipeline (an lm-eval fork) runs them with
 * `--tasks blimp_filtered,blimp_supplement`, from its `evaluation_data` folder:
 *   blimp_filtered/<paradigm>.jsonl      → task blimp_<paradigm>_filtered, group blimp_filtered
 *   supplement_filtered/<subtask>.jsonl  → task blimp_supplement_<subtask>, group blimp_supplement
 * Each pair is scored like lm-eval's BLiMP (empty context, choices [sentence_good, sentence_bad], gold 0,
 * num_fewshot pinned to 0), and each group is the unweighted (macro) mean of its subtasks, since the filtered
 * files differ in size.
 */
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../../errors.js';
import { checkLimit, hasFileWithSuffix, listDirectory, readTextFile } from '../data-files.js';
import { parseJsonLines } from '../jsonl.js';
import { buildTask, type MultipleChoiceTaskSpec } from '../task-spec.js';
import type { MultipleChoiceTask, Suite, SuiteLoadOptions } from '../types.js';

export type BabyLmLoadOptions = SuiteLoadOptions;

export type BabyLmSuiteName = 'blimp_filtered' | 'blimp_supplement';

interface BabyLmSuiteLayout {
  /** The folder under evaluation_data. */
  readonly folder: string;
  readonly taskName: (subtask: string) => string;
}

const LAYOUTS: Readonly<Record<BabyLmSuiteName, BabyLmSuiteLayout>> = {
  blimp_filtered: { folder: 'blimp_filtered', taskName: (paradigm) => `blimp_${paradigm}_filtered` },
  blimp_supplement: { folder: 'supplement_filtered', taskName: (subtask) => `blimp_supplement_${subtask}` },
};

const SUFFIX = '.jsonl';
/** The pipeline's blimp_filtered `_template_yaml` metadata.version. */
const TASK_VERSION = 1;
const GROUP_VERSION = 1;

const pairSchema = z.looseObject({ sentence_good: z.string(), sentence_bad: z.string() });
type Pair = z.output<typeof pairSchema>;

function pairSpec(name: string): MultipleChoiceTaskSpec<Pair> {
  return {
    name,
    version: TASK_VERSION,
    docToText: () => '',
    docToChoices: (pair) => [pair.sentence_good, pair.sentence_bad],
    docToTarget: () => 0,
    metrics: ['acc'],
    fewshot: { pinnedZeroShot: true },
    lmEval: {
      datasetPath: 'json',
      splits: { validation_split: 'train' },
      docToText: '',
      docToTarget: 0,
      docToChoice: '{{[sentence_good, sentence_bad]}}',
      shouldDecontaminate: true,
    },
  };
}

/** `dataDir` is BabyLM's evaluation_data folder (or its parent), or the suite's own folder. */
export function loadBabyLmSuite(suite: BabyLmSuiteName, options: BabyLmLoadOptions): Promise<Suite> {
  checkLimit(options.limit);
  return loadFolder(suite, options);
}

async function loadFolder(suite: BabyLmSuiteName, options: BabyLmLoadOptions): Promise<Suite> {
  const layout = LAYOUTS[suite];
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
  throw new MlrbError('BAD_DATA', `no ${folder} data under ${resolve(dataDir)}: expected ${folder}/*${SUFFIX} (BabyLM's evaluation_data layout)`, { file: resolve(dataDir) });
}

async function loadSubtask(file: string, dir: string, layout: BabyLmSuiteLayout, limit: number | undefined): Promise<MultipleChoiceTask> {
  const subtask = basename(file, SUFFIX);
  const pairs = parseJsonLines(await readTextFile(file, `BabyLM file for ${subtask}`, dir), file, pairSchema).map(({ row }) => row);
  if (pairs.length === 0) throw new MlrbError('BAD_DATA', `BabyLM file has no pairs: ${file}`, { file });
  return buildTask(pairSpec(layout.taskName(subtask)), { docs: pairs, sourceFiles: [file], ...(limit !== undefined ? { limit } : {}) });
}
