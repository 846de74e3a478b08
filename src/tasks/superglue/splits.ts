/**
 * A SuperGLUE task's validation and train splits in either accepted layout, as readers of lm-eval's documents:
 *   release  `<Task>/val.jsonl` and `<Task>/train.jsonl` (specs.ts reads the release's JSONL);
 *   hub      `<task>/validation-….parquet` and `<task>/train-….parquet` (hub-rows.ts reads the hub's parquet).
 */
import { join } from 'node:path';
import { pathEntryExists } from '../../io/regular-file.js';
import { isDirectory } from '../data-files.js';
import { splitShards, type SuiteData } from '../hub-layout.js';
import { hubSplit, releaseSplit, type SplitSource } from '../split-source.js';
import type { TaskDocument } from '../task-spec.js';
import type { HubSplitReader } from './hub-rows.js';
import type { SuperGlueTask } from './specs.js';

export type SuperGlueLayout = 'release' | 'hub';
export type SuperGlueData = SuiteData<SuperGlueLayout>;

export interface TaskSplits<Doc> {
  /** Undefined when the task is not in the folder. */
  readonly validation: SplitSource<Doc> | undefined;
  readonly train: SplitSource<Doc> | undefined;
}

export interface TaskReaders<Doc extends TaskDocument> {
  readonly release: SuperGlueTask<Doc>;
  readonly hub: HubSplitReader<Doc>;
}

export async function taskSplits<Doc extends TaskDocument>(readers: TaskReaders<Doc>, data: SuperGlueData): Promise<TaskSplits<Doc>> {
  return data.layout === 'hub' ? hubSplits(readers.hub, readers.release.spec.name, data) : releaseSplits(readers.release, data);
}

function releaseSplits<Doc extends TaskDocument>(task: SuperGlueTask<Doc>, data: SuperGlueData): TaskSplits<Doc> {
  const split = (fileName: string, role: string): SplitSource<Doc> =>
    releaseSplit(data, [join(task.folder, fileName)], `SuperGLUE ${task.spec.name} ${role} file`, ([text], [file]) => task.readDocs(text ?? '', file ?? ''));
  const trainFile = join(data.dir, task.folder, 'train.jsonl');
  return {
    validation: split('val.jsonl', 'validation'),
    // Anything at the path counts, so a FIFO or a stray link is refused by the reader, not silently skipped.
    train: pathEntryExists(trainFile) ? split('train.jsonl', 'train') : undefined,
  };
}

async function hubSplits<Doc extends TaskDocument>(reader: HubSplitReader<Doc>, name: string, data: SuperGlueData): Promise<TaskSplits<Doc>> {
  for (const config of reader.configs) {
    const configDir = join(data.dir, config);
    const validation = await splitShards(configDir, 'validation');
    if (validation.length === 0) continue;
    const train = await splitShards(configDir, 'train');
    return {
      validation: hubSplit(data, validation, `SuperGLUE ${name} hub validation file`, reader.read),
      train: train.length > 0 ? hubSplit(data, train, `SuperGLUE ${name} hub train file`, reader.read) : undefined,
    };
  }
  return { validation: undefined, train: undefined };
}

/** Whether the task is in the folder: its release folder, or a hub config with a validation split. */
export async function hasTask<Doc extends TaskDocument>(readers: TaskReaders<Doc>, data: SuperGlueData): Promise<boolean> {
  if (data.layout === 'release') return isDirectory(join(data.dir, readers.release.folder));
  return (await hubSplits(readers.hub, readers.release.spec.name, data)).validation !== undefined;
}
