/**
 * `mlrb-eval cache info|clear [--use-cache DIR]`: what the caches hold, and emptying them. Clearing removes
 * the token cache, the remembered file hashes and every score database that no running evaluation holds;
 * one in use is named and kept (removing it under a writer would only be recreated half-empty). The folder may
 * be shared, so clearing removes only what the cache makes, file by file (cache-folders.ts): a sub-folder that
 * is a link is left alone and named, and so is anything else found in the cache's folders.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import {
  CACHE_NAMES,
  cacheFolder,
  CacheFolderError,
  entryKind,
  FILE_HASHES_FOLDER,
  removeCacheName,
  SCORES_FOLDER,
  TOKENS_FOLDER,
} from '../cache/cache-folders.js';
import { removeScoreDatabase, scoreDatabases } from '../cache/score-folder.js';
import { defaultCacheDir } from '../cache/token-cache.js';
import { folderNamesOrNone } from '../io/folder-names.js';
import { normalizeFlagSpelling } from './command-args.js';
import { parseCommandLine, printUsage } from './command-line.js';
import { CACHE_DIR, USE_CACHE } from './common-flags.js';
import { commandUsage, tableSpec } from './flag-table.js';
import { UsageError, type CliIo } from './exit-error.js';

const CACHE_FLAGS = [CACHE_DIR, USE_CACHE] as const;

export const CACHE_USAGE = commandUsage({
  synopsis: 'usage: mlrb-eval cache info|clear [--use-cache DIR]',
  operands: [
    ['info', "the caches' folder, and the size of each cache in it"],
    ['clear', 'remove the cached tokens, file hashes and scores (a score database that a running evaluation holds is kept, and named)'],
  ],
  flags: CACHE_FLAGS,
});

/** Sub-folders of the cache root other than the scores, with the entry names the cache makes in them. */
const PLAIN_FOLDERS = [TOKENS_FOLDER, FILE_HASHES_FOLDER] as const;

export async function runCacheCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = normalizeFlagSpelling(argv);
  const line = parseCommandLine(args, tableSpec('cache', CACHE_FLAGS, args));
  if (line.help) return printUsage(io, CACHE_USAGE);
  const [action, ...extra] = line.positionals;
  if ((action !== 'info' && action !== 'clear') || extra.length > 0) throw new UsageError('cache', 'expected info or clear');
  const root = path.resolve(line.options['use-cache'] ?? line.options['cache-dir'] ?? defaultCacheDir());
  if (action === 'info') io.stdout.write(describeCache(root));
  else clearCache(root, io);
  return 0;
}

function describeCache(root: string): string {
  const scores = realFolderOrNote(root, SCORES_FOLDER);
  const databases = typeof scores === 'string' ? scoreDatabases(scores) : [];
  const lines = [
    `cache folder: ${root}`,
    ...PLAIN_FOLDERS.map((folder) => {
      const real = realFolderOrNote(root, folder);
      return `${folder}: ${typeof real === 'string' ? formatSize(folderBytes(real)) : real.note}`;
    }),
    `scores: ${typeof scores === 'string' ? `${formatSize(databases.reduce((sum, entry) => sum + entry.bytes, 0))} in ${databases.length} model database(s)` : scores.note}`,
    ...databases
      .sort((a, b) => b.mtimeMs - a.mtimeMs)
      .map((entry) => `  ${path.basename(entry.file)}  ${formatSize(entry.bytes)}  last used ${new Date(entry.mtimeMs).toISOString()}`),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The sub-folder, also when it does not exist yet (it then lists nothing); a note instead when it is a link or
 * not a folder, which the cache leaves alone.
 */
function realFolderOrNote(root: string, name: string): string | { readonly note: string } {
  try {
    return cacheFolder(root, [name], false) ?? path.join(root, name);
  } catch (error) {
    if (error instanceof CacheFolderError) return { note: `left alone: ${error.message}` };
    throw error;
  }
}

function clearCache(root: string, io: CliIo): void {
  const leftAlone: string[] = [];
  const clearFolder = (name: string, clearInside: (folder: string) => void): void => {
    const real = realFolderOrNote(root, name);
    if (typeof real !== 'string') {
      io.stderr.write(`${real.note}\n`);
      return;
    }
    clearInside(real);
    // The plain folders go when emptied; `scores` stays, as a running evaluation may hold a database in it.
    if (name !== SCORES_FOLDER) removeCacheName(root, name, new RegExp(`^${name}$`), true);
  };
  clearFolder(TOKENS_FOLDER, (tokens) => {
    for (const shard of folderNamesOrNone(tokens)) {
      const shardFolder = path.join(tokens, shard);
      if (!CACHE_NAMES.tokenShard.test(shard) || entryKind(shardFolder) !== 'folder') {
        leftAlone.push(shardFolder);
        continue;
      }
      removeOwnNames(shardFolder, CACHE_NAMES.tokenEntry, leftAlone);
      removeCacheName(tokens, shard, CACHE_NAMES.tokenShard, true);
    }
  });
  clearFolder(FILE_HASHES_FOLDER, (hashes) => removeOwnNames(hashes, CACHE_NAMES.fileHashEntry, leftAlone));
  let kept: string[] = [];
  clearFolder(SCORES_FOLDER, (scores) => {
    kept = scoreDatabases(scores)
      .filter((entry) => !removeScoreDatabase(entry.file))
      .map((entry) => entry.file);
    for (const file of kept) io.stderr.write(`kept ${file}: a running evaluation holds it\n`);
    // What is left besides the kept databases and their side files: set-aside damaged copies, stale locks.
    const keptNames = kept.map((file) => path.basename(file));
    for (const name of folderNamesOrNone(scores)) {
      if (keptNames.some((keptName) => name.startsWith(keptName))) continue;
      const removed = removeCacheName(scores, name, CACHE_NAMES.scoreFile) || removeCacheName(scores, name, CACHE_NAMES.scoreVfsLock, true);
      if (!removed) leftAlone.push(path.join(scores, name));
    }
  });
  for (const entry of leftAlone) io.stderr.write(`left alone ${entry}: the cache did not make it\n`);
  io.stdout.write(`cleared ${root}${kept.length > 0 ? ` (${kept.length} score database(s) in use kept)` : ''}\n`);
}

/** Removes the entries of `folder` whose names the cache makes; the rest is listed in `leftAlone`. */
function removeOwnNames(folder: string, names: RegExp, leftAlone: string[]): void {
  for (const name of folderNamesOrNone(folder)) if (!removeCacheName(folder, name, names)) leftAlone.push(path.join(folder, name));
}

/** Bytes of the regular files below `folder`, without following links. */
function folderBytes(folder: string): number {
  let total = 0;
  for (const name of folderNamesOrNone(folder)) {
    const entry = path.join(folder, name);
    try {
      const stats = lstatSync(entry);
      total += stats.isDirectory() ? folderBytes(entry) : stats.isFile() ? stats.size : 0;
    } catch {
      // Removed meanwhile.
    }
  }
  return total;
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} kB`;
}
