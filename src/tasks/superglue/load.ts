/**
 * Loads SuperGLUE from a release-style folder (`BoolQ/val.jsonl`, `CB/val.jsonl` …, with `train.jsonl` beside
 * each for few-shot runs) or the Hugging Face hub's parquet (`boolq/validation-00000-of-00001.parquet` …, see
 * splits.ts): one task per lm-eval task, and the `superglue` suite with our aggregate group.
 *
 * Few-shot examples come from the train split, as lm-eval takes them from the train split. Without that file the
 * validation split is used instead (lm-eval's rule for a dataset with no training split), and the task's
 * config records `fewshot_split: "validation"` so the run says which.
 */
import { join } from 'node:path';
import { MlrbError } from '../../errors.js';
import { checkLimit, isDirectory } from '../data-files.js';
import { configsWithSplit, resolveSuiteData, type DataLayout } from '../hub-layout.js';
import { markPartialGroups, refuseIncomplete } from '../partial.js';
import { buildTask, type TaskDocument } from '../task-spec.js';
import type { MetricName, MultipleChoiceTask, Suite, SuiteLoadOptions, TaskGroup } from '../types.js';
import { SUPERGLUE_HUB_READERS } from './hub-rows.js';
import { boolq, cb, copa, multirc, record, rte, wic, wsc } from './specs.js';
import { hasTask, taskSplits, type SuperGlueData, type SuperGlueLayout, type TaskReaders } from './splits.js';

export type SuperGlueLoadOptions = SuiteLoadOptions;

interface TaskEntry {
  readonly folder: string;
  readonly hubConfigs: readonly string[];
  readonly scoreMetric: MetricName;
  readonly has: (data: SuperGlueData) => Promise<boolean>;
  readonly load: (data: SuperGlueData, options: SuperGlueLoadOptions) => Promise<MultipleChoiceTask>;
}

function entry<Doc extends TaskDocument>(readers: TaskReaders<Doc>): TaskEntry {
  return {
    folder: readers.release.folder,
    hubConfigs: readers.hub.configs,
    scoreMetric: readers.release.scoreMetric,
    has: (data) => hasTask(readers, data),
    load: (data, options) => loadTask(readers, data, options),
  };
}

const hub = SUPERGLUE_HUB_READERS;
/** lm-eval's task names, in the order lm-eval reports them. */
const TASKS = {
  boolq: entry({ release: boolq, hub: hub.boolq }),
  cb: entry({ release: cb, hub: hub.cb }),
  copa: entry({ release: copa, hub: hub.copa }),
  multirc: entry({ release: multirc, hub: hub.multirc }),
  record: entry({ release: record, hub: hub.record }),
  sglue_rte: entry({ release: rte, hub: hub.sglue_rte }),
  wic: entry({ release: wic, hub: hub.wic }),
  wsc: entry({ release: wsc, hub: hub.wsc }),
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
export function loadSuperGlueSuite(options: SuperGlueLoadOptions): Promise<Suite<MultipleChoiceTask>> {
  checkOptions(options);
  return loadPresent(options);
}

/** A suite of one SuperGLUE task (`--suite boolq`); its folder must be present. */
export function loadSuperGlueTaskSuite(name: SuperGlueTaskName, options: SuperGlueLoadOptions): Promise<Suite<MultipleChoiceTask>> {
  checkOptions(options);
  return (async () => {
    const data = await superGlueData(options.dataDir);
    const task = await TASKS[name].load(data, options);
    return { name, tasks: [task], groups: [] };
  })();
}

async function loadPresent(options: SuperGlueLoadOptions): Promise<Suite<MultipleChoiceTask>> {
  const data = await superGlueData(options.dataDir);
  const dir = data.dir;
  const present: SuperGlueTaskName[] = [];
  for (const name of SUPERGLUE_TASK_NAMES) if (await TASKS[name].has(data)) present.push(name);
  // Present tasks are read first, so a broken file is reported as such even in an incomplete folder.
  const tasks = await Promise.all(present.map((name) => TASKS[name].load(data, options)));
  const missing = SUPERGLUE_TASK_NAMES.filter((name) => !present.includes(name));
  refuseIncomplete({
    suiteLabel: 'SuperGLUE',
    dir,
    missing,
    expected: SUPERGLUE_TASK_NAMES.length,
    present: present.length,
    allowPartial: options.allowPartial,
    howToComplete: howToComplete(missing, data),
  });
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

/** The SuperGLUE release's per-task archives (the `super_glue` builder's _URL). */
const RELEASE_URL = 'https://dl.fbaipublicfiles.com/glue/superglue/data/v2';
const HUB_REPO = 'aps/super_glue';

/**
 * The files the missing tasks need, in the layout the folder is read in (a folder is read in one layout, so a
 * release folder needs release files), and where to get them: the release's archive, or the hub dataset.
 */
function howToComplete(missing: readonly SuperGlueTaskName[], data: SuperGlueData): string {
  if (data.layout === 'hub') {
    const configs = missing.map((name) => TASKS[name].hubConfigs[0] ?? name);
    const files = configs.map((config) => `${config}/validation-00000-of-00001.parquet`).join(', ');
    const include = configs.map((config) => `--include '${config}/*'`).join(' ');
    return `this folder is in the Hugging Face hub's layout (${HUB_REPO}) and lacks ${files}: hf download ${HUB_REPO} --repo-type dataset ${include} --local-dir ${data.dir}`;
  }
  const files = missing.map((name) => `${TASKS[name].folder}/val.jsonl`).join(', ');
  const archives = missing.map((name) => `${RELEASE_URL}/${TASKS[name].folder}.zip`).join(' and ');
  return (
    `this folder is in the release layout and lacks ${files}: unzip ${archives} into ${data.dir}, or download all eight tasks in ` +
    `the Hugging Face hub's layout (${HUB_REPO}: <task>/validation-00000-of-00001.parquet) into a folder of their own with ` +
    `hf download ${HUB_REPO} --repo-type dataset --local-dir NEW_FOLDER`
  );
}

function checkOptions(options: SuperGlueLoadOptions): void {
  checkLimit(options.limit);
  const numFewshot = options.numFewshot ?? 0;
  if (!Number.isInteger(numFewshot) || numFewshot < 0) throw new RangeError(`numFewshot must be a non-negative integer; got ${String(options.numFewshot)}`);
}

const LAYOUTS: readonly DataLayout<SuperGlueLayout>[] = [
  {
    kind: 'release',
    description: 'the release, <Task>/val.jsonl for BoolQ CB COPA MultiRC ReCoRD RTE WiC WSC (train.jsonl beside it for few-shot)',
    matches: async (dir) => {
      for (const name of SUPERGLUE_TASK_NAMES) if (await isDirectory(join(dir, TASKS[name].folder))) return true;
      return false;
    },
  },
  {
    kind: 'hub',
    description:
      "the Hugging Face hub's aps/super_glue parquet, <task>/validation-00000-of-00001.parquet for boolq cb copa multirc record rte wic wsc.fixed (or wsc), train-… beside it for few-shot",
    matches: async (dir) => {
      const configs = await configsWithSplit(dir, 'validation');
      return SUPERGLUE_TASK_NAMES.some((name) => TASKS[name].hubConfigs.some((config) => configs.includes(config)));
    },
  },
];

function superGlueData(dataDir: string): Promise<SuperGlueData> {
  return resolveSuiteData(dataDir, { suite: 'superglue', label: 'SuperGLUE', layouts: LAYOUTS, hubRepos: ['aps/super_glue', 'super_glue'] });
}

async function loadTask<Doc extends TaskDocument>(readers: TaskReaders<Doc>, data: SuperGlueData, options: SuperGlueLoadOptions): Promise<MultipleChoiceTask> {
  const name = readers.release.spec.name;
  const splits = await taskSplits(readers, data);
  if (splits.validation === undefined) {
    const where = data.layout === 'hub' ? `${readers.hub.configs.join(' or ')}/validation-….parquet` : `${readers.release.folder}/val.jsonl`;
    throw new MlrbError('BAD_DATA', `SuperGLUE ${name} has no validation split in ${data.dir} (expected ${where})`, { file: data.dir });
  }
  const docs = await splits.validation.read();
  const validationFile = splits.validation.file;
  if (docs.length === 0) throw new MlrbError('BAD_DATA', `SuperGLUE ${name} validation file has no rows: ${validationFile}`, { file: validationFile });
  const numFewshot = options.numFewshot ?? 0;
  const sourceFiles = [...splits.validation.sourceFiles];
  let fewshotDocs: readonly Doc[] = docs;
  let spec = readers.release.spec;
  if (numFewshot > 0) {
    if (splits.train !== undefined) {
      fewshotDocs = await splits.train.read();
      sourceFiles.push(...splits.train.sourceFiles);
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
