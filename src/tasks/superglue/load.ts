/**
 * Loads SuperGLUE from a release-style folder (`BoolQ/val.jsonl`, `CB/val.jsonl` …, with `train.jsonl` beside
 * each for few-shot runs): one task per lm-eval task, and the `superglue` suite with our aggregate group.
 *
 * Few-shot examples come from train.jsonl, as lm-eval takes them from the train split. Without that file the
 * validation split is used instead (lm-eval's rule for a dataset with no training split), and the task's
 * config records `fewshot_split: "validation"` so the run says which.
 */
import { join } from 'node:path';
import { MlrbError } from '../../errors.js';
import { pathEntryExists } from '../../io/regular-file.js';
import { checkLimit, isDirectory, readTextFile, resolveSuiteDir } from '../data-files.js';
import { markPartialGroups, refuseIncomplete } from '../partial.js';
import { buildTask, type TaskDocument } from '../task-spec.js';
import type { MetricName, MultipleChoiceTask, Suite, SuiteLoadOptions, TaskGroup } from '../types.js';
import { boolq, cb, copa, multirc, record, rte, wic, wsc, type SuperGlueTask } from './specs.js';

export type SuperGlueLoadOptions = SuiteLoadOptions;

interface TaskEntry {
  readonly folder: string;
  readonly scoreMetric: MetricName;
  readonly load: (dir: string, options: SuperGlueLoadOptions) => Promise<MultipleChoiceTask>;
}

function entry<Doc extends TaskDocument>(task: SuperGlueTask<Doc>): TaskEntry {
  return { folder: task.folder, scoreMetric: task.scoreMetric, load: (dir, options) => loadTask(task, dir, options) };
}

/** lm-eval's task names, in the order lm-eval reports them. */
const TASKS = {
  boolq: entry(boolq),
  cb: entry(cb),
  copa: entry(copa),
  multirc: entry(multirc),
  record: entry(record),
  sglue_rte: entry(rte),
  wic: entry(wic),
  wsc: entry(wsc),
} as const;

export type SuperGlueTaskName = keyof typeof TASKS;
export const SUPERGLUE_TASK_NAMES = Object.keys(TASKS) as SuperGlueTaskName[];
/** `superglue` group metadata.version (ours; lm-eval has only a tag). */
const GROUP_VERSION = 1;

/**
 * The `superglue` suite: all eight tasks and the `superglue` group. Its `score` is ours: the mean of the seven
 * accuracies and ReCoRD's f1. A folder without some task is refused (BAD_DATA) unless allowPartial; then the
 * group covers the rest as `superglue_partial`, and its alias says which are missing.
 */
export function loadSuperGlueSuite(options: SuperGlueLoadOptions): Promise<Suite> {
  checkOptions(options);
  return loadPresent(options);
}

/** A suite of one SuperGLUE task (`--suite boolq`); its folder must be present. */
export function loadSuperGlueTaskSuite(name: SuperGlueTaskName, options: SuperGlueLoadOptions): Promise<Suite> {
  checkOptions(options);
  return (async () => {
    const dir = await superGlueDir(options.dataDir);
    const task = await TASKS[name].load(dir, options);
    return { name, tasks: [task], groups: [] };
  })();
}

async function loadPresent(options: SuperGlueLoadOptions): Promise<Suite> {
  const dir = await superGlueDir(options.dataDir);
  const present: SuperGlueTaskName[] = [];
  for (const name of SUPERGLUE_TASK_NAMES) if (await isDirectory(join(dir, TASKS[name].folder))) present.push(name);
  // Present tasks are read first, so a broken file is reported as such even in an incomplete folder.
  const tasks = await Promise.all(present.map((name) => TASKS[name].load(dir, options)));
  const missing = SUPERGLUE_TASK_NAMES.filter((name) => !present.includes(name));
  refuseIncomplete({ suiteLabel: 'SuperGLUE', dir, missing, expected: SUPERGLUE_TASK_NAMES.length, present: present.length, allowPartial: options.allowPartial });
  const group: TaskGroup = {
    name: 'superglue',
    subtasks: present,
    weightBySize: false,
    version: GROUP_VERSION,
    scoreMetrics: Object.fromEntries(present.map((name) => [name, TASKS[name].scoreMetric])),
  };
  if (missing.length === 0) return { name: 'superglue', tasks, groups: [group] };
  return { name: 'superglue', tasks, groups: markPartialGroups([group], new Set(['superglue']), missing, SUPERGLUE_TASK_NAMES.length), missing };
}

function checkOptions(options: SuperGlueLoadOptions): void {
  checkLimit(options.limit);
  const numFewshot = options.numFewshot ?? 0;
  if (!Number.isInteger(numFewshot) || numFewshot < 0) throw new RangeError(`numFewshot must be a non-negative integer; got ${String(options.numFewshot)}`);
}

function superGlueDir(dataDir: string): Promise<string> {
  const folders = SUPERGLUE_TASK_NAMES.map((name) => TASKS[name].folder);
  return resolveSuiteDir(dataDir, 'superglue', async (candidate) => {
    for (const folder of folders) if (await isDirectory(join(candidate, folder))) return true;
    return false;
  });
}

async function loadTask<Doc extends TaskDocument>(task: SuperGlueTask<Doc>, dir: string, options: SuperGlueLoadOptions): Promise<MultipleChoiceTask> {
  const name = task.spec.name;
  const validationFile = join(dir, task.folder, 'val.jsonl');
  const docs = task.readDocs(await readTextFile(validationFile, `SuperGLUE ${name} validation file`, dir), validationFile);
  if (docs.length === 0) throw new MlrbError('BAD_DATA', `SuperGLUE ${name} validation file has no rows: ${validationFile}`, { file: validationFile });
  const numFewshot = options.numFewshot ?? 0;
  const sourceFiles = [validationFile];
  let fewshotDocs: readonly Doc[] = docs;
  let spec = task.spec;
  if (numFewshot > 0) {
    const trainFile = join(dir, task.folder, 'train.jsonl');
    // Anything at the path counts, so a FIFO or a stray link is refused by the reader, not silently skipped.
    if (pathEntryExists(trainFile)) {
      fewshotDocs = task.readDocs(await readTextFile(trainFile, `SuperGLUE ${name} train file`, dir), trainFile);
      sourceFiles.push(trainFile);
    } else if (spec.lmEval !== undefined) {
      spec = { ...spec, lmEval: { ...spec.lmEval, splits: { ...spec.lmEval.splits, fewshot_split: 'validation' } } };
    }
  }
  return buildTask(spec, {
    docs,
    ...(numFewshot > 0 ? { fewshotDocs } : {}),
    sourceFiles,
    numFewshot,
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
  });
}

