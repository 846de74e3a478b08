/**
 * `--shard I/N`: which documents one of N cooperating processes scores. The unit is the document (all of its
 * requests go together, so its metrics never need two shards), and the split is round-robin over the run's
 * documents in evaluation order (tasks in suite order, documents in task order): document g goes to shard
 * g mod N. That is deterministic (it depends only on the options every shard shares, never on scheduling),
 * disjoint and covering by construction, and balanced to within one document overall and within one per task,
 * while every shard still sees every task's mix of short and long documents.
 *
 * Requests are always built for the whole task first and filtered afterwards: lm-eval draws few-shot examples
 * per document from one seeded generator per task, so a document's prompt depends on the draws before it.
 */
import type { Task } from '../tasks/types.js';

export interface ShardSpec {
  /** 0-based, below `count` (Kubernetes' JOB_COMPLETION_INDEX; a Slurm array declared --array=0-(N-1)). */
  readonly index: number;
  readonly count: number;
}

/** Throws a RangeError unless 0 ≤ index < count and both are integers. */
export function checkShardSpec(shard: ShardSpec): ShardSpec {
  const { index, count } = shard;
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`shard count must be a whole number ≥ 1; got ${String(count)}`);
  if (!Number.isSafeInteger(index) || index < 0 || index >= count) {
    throw new RangeError(`shard index must be a whole number from 0 to ${count - 1} (shards are numbered from 0); got ${String(index)}`);
  }
  return shard;
}

/** `I/N` as the CLI takes it. */
export function parseShardSpec(text: string): ShardSpec {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (match === null) throw new RangeError(`--shard expects I/N (shard I of N, counted from 0), got ${JSON.stringify(text)}`);
  return checkShardSpec({ index: Number(match[1]), count: Number(match[2]) });
}

export function formatShardSpec(shard: ShardSpec): string {
  return `${shard.index}/${shard.count}`;
}

/** The document ids of each task that `shard` scores, by task name (every task appears, perhaps with none). */
export function shardDocuments(tasks: readonly Task[], shard: ShardSpec): Map<string, Set<number>> {
  checkShardSpec(shard);
  const selected = new Map<string, Set<number>>();
  let ordinal = 0;
  for (const task of tasks) {
    const docIds = new Set<number>();
    for (const doc of task.docs) {
      if (ordinal % shard.count === shard.index) docIds.add(doc.docId);
      ordinal += 1;
    }
    selected.set(task.name, docIds);
  }
  return selected;
}
