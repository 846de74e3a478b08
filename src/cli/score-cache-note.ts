/**
 * ", 12,000 of 134,000 requests from the score cache" when any came from it: the closing line of a run and of a
 * shard says so, which is how a resumed run (a requeued Slurm task, say) shows in its log that it resumed.
 */
export function scoreCacheNote(counts: unknown): string {
  if (typeof counts !== 'object' || counts === null) return '';
  const { hits, misses } = counts as { hits: number; misses: number };
  return hits > 0 ? `, ${hits.toLocaleString('en-US')} of ${(hits + misses).toLocaleString('en-US')} requests from the score cache` : '';
}
