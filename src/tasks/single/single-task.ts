/**
 * A suite of one lm-eval task over one dataset with train / validation / test splits (HellaSwag, ARC, PIQA,
 * Winogrande): the task's spec, which splits lm-eval evaluates and draws few-shot examples from, and where
 * those splits are in the release's files and in the Hugging Face hub's parquet. Everything else (finding the
 * folder, telling the layouts apart, few-shot checks, --limit) is done here once, so adding such a task is one
 * file that declares a SingleTask and one entry in the registry.
 */
import { join } from 'node:path';
import { MlrbError } from '../../errors.js';
import { pathEntryExists } from '../../io/regular-file.js';
import { checkLimit } from '../data-files.js';
import { resolveSuiteData, splitShards, type DataLayout, type SuiteData } from '../hub-layout.js';
import { hubSplit, releaseSplit, type HubSplitParser, type ReleaseSplitParser, type SplitSource } from '../split-source.js';
import { buildTask, type MultipleChoiceTaskSpec, type TaskDocument } from '../task-spec.js';
import type { MultipleChoiceTask, Suite, SuiteLoadOptions } from '../types.js';

/** The hub's split names; a release's own file names are mapped onto them. */
export type SplitName = 'train' | 'validation' | 'test';

export interface SingleTask<Doc extends TaskDocument> {
  readonly spec: MultipleChoiceTaskSpec<Doc>;
  /** lm-eval's evaluated split: its test_split where the config sets one, else its validation_split. */
  readonly evaluatedSplit: SplitName;
  /** lm-eval's few-shot source: its fewshot_split, else its training_split. */
  readonly fewshotSplit: SplitName;
  readonly data: SingleTaskData<Doc>;
}

export interface SingleTaskData<Doc> {
  /** The folder looked for under --data (`hellaswag`), and the task's name in messages (`HellaSwag`). */
  readonly folder: string;
  readonly label: string;
  /** Hub repositories the dataset is published as, most usual first (looked for in a hub cache). */
  readonly hubRepos: readonly string[];
  readonly release: {
    /** What the folder holds, for the error that lists the accepted layouts. */
    readonly description: string;
    /** Each split's files, relative to the folder, in the order `parse` takes them; absent: not released. */
    readonly files: Readonly<Partial<Record<SplitName, readonly string[]>>>;
    readonly parse: ReleaseSplitParser<Doc>;
  };
  readonly hub: {
    readonly description: string;
    /** Config folders that may hold the splits, preferred first; '' is the folder itself. */
    readonly configs: readonly string[];
    readonly parse: HubSplitParser<Doc>;
  };
}

type Layout = 'release' | 'hub';

/** Bad options throw synchronously (RangeError); data problems reject with MlrbError BAD_DATA. */
export function loadSingleTaskSuite<Doc extends TaskDocument>(task: SingleTask<Doc>, options: SuiteLoadOptions): Promise<Suite<MultipleChoiceTask>> {
  checkLimit(options.limit);
  const numFewshot = options.numFewshot ?? 0;
  if (!Number.isInteger(numFewshot) || numFewshot < 0) throw new RangeError(`numFewshot must be a non-negative integer; got ${String(options.numFewshot)}`);
  return load(task, options, numFewshot);
}

async function load<Doc extends TaskDocument>(task: SingleTask<Doc>, options: SuiteLoadOptions, numFewshot: number): Promise<Suite<MultipleChoiceTask>> {
  const { folder, label, hubRepos } = task.data;
  const data = await resolveSuiteData(options.dataDir, { suite: folder, label, layouts: layoutsOf(task), hubRepos });
  const evaluated = await requireSplit(task, data, task.evaluatedSplit, 'evaluation');
  const docs = await evaluated.read();
  if (docs.length === 0) throw new MlrbError('BAD_DATA', `${label} ${task.evaluatedSplit} split has no rows: ${evaluated.file}`, { file: evaluated.file });
  // lm-eval reads the few-shot split only when it draws from it; so do we, so a 0-shot run needs no train file.
  const drawsExamples = numFewshot > 0 && !('pinnedZeroShot' in task.spec.fewshot);
  const fewshot = drawsExamples ? await requireSplit(task, data, task.fewshotSplit, 'few-shot examples') : undefined;
  const fewshotDocs = fewshot === undefined ? undefined : await fewshot.read();
  const built = buildTask(task.spec, {
    docs,
    ...(fewshotDocs !== undefined ? { fewshotDocs } : {}),
    sourceFiles: [...evaluated.sourceFiles, ...(fewshot?.sourceFiles ?? [])],
    numFewshot,
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
  });
  return { name: task.spec.name, tasks: [built], groups: [] };
}

function layoutsOf<Doc extends TaskDocument>(task: SingleTask<Doc>): DataLayout<Layout>[] {
  const { release, hub } = task.data;
  return [
    { kind: 'release', description: release.description, matches: async (dir) => releaseFiles(task, dir, task.evaluatedSplit) !== undefined },
    { kind: 'hub', description: hub.description, matches: async (dir) => (await hubShards(task, dir, task.evaluatedSplit)) !== undefined },
  ];
}

async function requireSplit<Doc extends TaskDocument>(
  task: SingleTask<Doc>,
  data: SuiteData<Layout>,
  split: SplitName,
  role: string,
): Promise<SplitSource<Doc>> {
  const { label, release, hub } = task.data;
  const what = `${label} ${split} file`;
  if (data.layout === 'release') {
    const names = releaseFiles(task, data.dir, split);
    if (names !== undefined) return releaseSplit(data, names, what, release.parse);
  } else {
    const shards = await hubShards(task, data.dir, split);
    if (shards !== undefined) return hubSplit(data, shards, `${label} hub ${split} file`, hub.parse);
  }
  const expected =
    data.layout === 'release'
      ? (release.files[split] ?? []).join(' and ') || `no ${split} file (the release has none)`
      : hub.configs.map((config) => join(config, `${split}-00000-of-00001.parquet`)).join(' or ');
  throw new MlrbError('BAD_DATA', `${label} data in ${data.dir} has no ${split} split for ${role} (expected ${expected})`, { file: data.dir });
}

/** The release files of a split, when every one of them is there. */
function releaseFiles<Doc extends TaskDocument>(task: SingleTask<Doc>, dir: string, split: SplitName): readonly string[] | undefined {
  const names = task.data.release.files[split];
  // Anything at the path counts, so a FIFO or a stray link is refused by the reader, not silently skipped.
  return names !== undefined && names.length > 0 && names.every((name) => pathEntryExists(join(dir, name))) ? names : undefined;
}

/** The shards of a split in the first config folder that has it. */
async function hubShards<Doc extends TaskDocument>(task: SingleTask<Doc>, dir: string, split: SplitName): Promise<readonly string[] | undefined> {
  for (const config of task.data.hub.configs) {
    const shards = await splitShards(join(dir, config), split);
    if (shards.length > 0) return shards;
  }
  return undefined;
}
