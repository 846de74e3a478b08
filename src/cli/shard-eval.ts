/**
 * `mlrb-eval MODEL --tasks … --shard I/N --output FILE`: scores one shard's documents and writes the shard file
 * that `mlrb-eval merge` joins with the others (src/run/shard-record.ts). A shard prints no table: its scores
 * are a slice of every task, and only the merge can compute metrics from them.
 */
import type { EvaluateOptions } from '../run/evaluate-options.js';
import { evaluateShard } from '../run/evaluate.js';
import { stringifyShardRecord } from '../run/shard-record.js';
import { formatShardSpec } from '../run/shard.js';
import { writeResultOutput } from '../io/result-output.js';
import type { EvalOutputs } from './result-flags.js';
import type { CommandStatus } from './progress.js';
import { scoreCacheNote } from './score-cache-note.js';

export async function runShardEval(options: EvaluateOptions, outputs: EvalOutputs, status: CommandStatus): Promise<number> {
  const record = await evaluateShard(options);
  const file = outputs.output as string;
  writeResultOutput(file, stringifyShardRecord(record), '--output');
  const documents = Object.values(record.documents).reduce((sum, task) => sum + task.docs.length, 0);
  const tasks = Object.keys(record.documents).length;
  const { run } = record;
  status.note(
    `shard ${formatShardSpec(record.shard)}: ${documents.toLocaleString('en-US')} documents of ${tasks} tasks, ` +
      `${run.requests.toLocaleString('en-US')} requests scored in ${run.wall_time_s.toFixed(1)} s on ${record.identity.provider}${scoreCacheNote(run.score_cache)}; ` +
      `written to ${file} (join the shards with mlrb-eval merge)`,
  );
  return 0;
}
