/**
 * The facts of a results file that describe the processes rather than the evaluation, and so may differ between
 * an unsharded run and its shards merged (the list src/run/merge-shards.ts documents): clocks, work counters
 * that depend on which requests shared a forward pass, the memory peaks, how many requests the score cache
 * answered, and the merge's own `mlrb.shards`. A resumed run differs from an uninterrupted one in the same facts.
 */
const TOP_LEVEL = ['date', 'start_time', 'end_time', 'total_evaluation_time_seconds'] as const;
const MLRB = [
  'wall_time_s',
  'scoring_time_s',
  'tokens_scored',
  'tokens_per_s',
  'forward_rows',
  'padded_tokens',
  'peak_rss_bytes',
  'memory',
  'score_cache',
  'shards',
] as const;

/** A copy of `results` without the process facts. */
export function withoutProcessFacts(results: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...results };
  for (const key of TOP_LEVEL) delete copy[key];
  const mlrb: Record<string, unknown> = { ...(results.mlrb as Record<string, unknown>) };
  for (const key of MLRB) delete mlrb[key];
  copy.mlrb = mlrb;
  return copy;
}
