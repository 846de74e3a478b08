/**
 * A writer that dies between creating its temporary file and renaming it (kill -9, power loss) leaves a
 * `.tmp` file that nothing would ever remove. Each process sweeps the cache's token folders once: a temporary
 * file untouched for longer than any write takes is removed. A live writer's file is younger (its mtime moves
 * as it writes), so concurrent runs sharing a cache are safe. Only real folders are entered and only the
 * temporary names the cache makes are removed (cache-folders.ts).
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { folderNamesOrNone } from '../io/folder-names.js';
import { CACHE_NAMES, cacheFolder, removeCacheName, TOKENS_FOLDER } from './cache-folders.js';

/** Far longer than writing the largest entry (1 GB) takes. */
export const STALE_TEMPORARY_MS = 15 * 60 * 1000;

const swept = new Set<string>();

/** Removes stale `*.tmp` files under `<cacheDir>/tokens/<shard>/`; returns how many. Errors are ignored: it is housekeeping. */
export function sweepStaleTemporaries(cacheDir: string, now = Date.now()): number {
  const tokensDir = path.join(path.resolve(cacheDir), TOKENS_FOLDER);
  if (swept.has(tokensDir)) return 0;
  swept.add(tokensDir);
  let removed = 0;
  for (const shard of shardFolders(cacheDir)) {
    for (const name of folderNamesOrNone(shard)) {
      if (!name.endsWith('.tmp')) continue;
      try {
        if (now - lstatSync(path.join(shard, name)).mtimeMs < STALE_TEMPORARY_MS) continue;
        if (removeCacheName(shard, name, CACHE_NAMES.tokenEntry)) removed += 1;
      } catch {
        // Renamed or removed by its writer meanwhile.
      }
    }
  }
  return removed;
}

/** The token cache's shard folders that are real folders with a name the cache makes. */
function shardFolders(cacheDir: string): string[] {
  const realFolder = (parts: readonly string[]): string[] => {
    try {
      return [cacheFolder(cacheDir, parts, false) ?? []].flat();
    } catch {
      return []; // a link: never entered
    }
  };
  return realFolder([TOKENS_FOLDER]).flatMap((tokens) =>
    folderNamesOrNone(tokens)
      .filter((name) => CACHE_NAMES.tokenShard.test(name))
      .flatMap((name) => realFolder([TOKENS_FOLDER, name])),
  );
}
