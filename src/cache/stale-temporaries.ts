/**
 * A writer that dies between creating its temporary file and renaming it (kill -9, power loss) leaves a
 * `.tmp` file that nothing would ever remove. Each process sweeps the cache's shard folders once: a temporary
 * file untouched for longer than any write takes is removed. A live writer's file is younger (its mtime moves
 * as it writes), so concurrent runs sharing a cache are safe.
 */
import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { folderNamesOrNone } from '../io/folder-names.js';

/** Far longer than writing the largest entry (1 GB) takes. */
export const STALE_TEMPORARY_MS = 15 * 60 * 1000;

const swept = new Set<string>();

/** Removes stale `*.tmp` files under `<cacheDir>/tokens/<shard>/`; returns how many. Errors are ignored: it is housekeeping. */
export function sweepStaleTemporaries(cacheDir: string, now = Date.now()): number {
  const tokensDir = path.join(path.resolve(cacheDir), 'tokens');
  if (swept.has(tokensDir)) return 0;
  swept.add(tokensDir);
  let removed = 0;
  for (const shard of folderNamesOrNone(tokensDir)) {
    const shardDir = path.join(tokensDir, shard);
    for (const name of folderNamesOrNone(shardDir)) {
      if (!name.endsWith('.tmp')) continue;
      const file = path.join(shardDir, name);
      try {
        if (now - statSync(file).mtimeMs < STALE_TEMPORARY_MS) continue;
        rmSync(file, { force: true });
        removed += 1;
      } catch {
        // Renamed or removed by its writer meanwhile.
      }
    }
  }
  return removed;
}
