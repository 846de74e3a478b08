/**
 * `mlrb-eval cache info|clear [--use-cache DIR]`: what the caches hold, and emptying them. Clearing removes
 * the token cache, the remembered file hashes and every score database that no running evaluation holds;
 * one in use is named and kept (removing it under a writer would only be recreated half-empty).
 */
import { lstatSync, rmSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { removeScoreDatabase, scoreDatabases, SCORES_FOLDER } from '../cache/score-folder.js';
import { defaultCacheDir } from '../cache/token-cache.js';
import { folderNamesOrNone } from '../io/folder-names.js';
import { normalizeFlagSpelling } from './command-args.js';
import { parseCommandLine, printUsage } from './command-line.js';
import { UsageError, type CliIo } from './exit-error.js';

export const CACHE_USAGE = `usage: mlrb-eval cache info|clear [--use-cache DIR]

  info                  the caches' folder, and the size of each cache in it
  clear                 remove the cached tokens, file hashes and scores (a score database that a
                        running evaluation holds is kept, and named)
  --use-cache DIR       the caches' folder (default ~/.cache/mlrb-eval, or $MLRB_CACHE_DIR;
                        --cache-dir is the same flag)`;

/** Sub-folders of the cache root other than the scores, removed whole by `clear`. */
const PLAIN_FOLDERS = ['tokens', 'file-hashes'] as const;

const optionsSchema = z.object({ 'use-cache': z.string().optional(), 'cache-dir': z.string().optional() });

export async function runCacheCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const line = parseCommandLine(normalizeFlagSpelling(argv), { command: 'cache', schema: optionsSchema, flags: { 'use-cache': { type: 'string' }, 'cache-dir': { type: 'string' } } });
  if (line.help) return printUsage(io, CACHE_USAGE);
  const [action, ...extra] = line.positionals;
  if ((action !== 'info' && action !== 'clear') || extra.length > 0) throw new UsageError('cache', 'expected info or clear');
  const root = path.resolve(line.options['use-cache'] ?? line.options['cache-dir'] ?? defaultCacheDir());
  if (action === 'info') io.stdout.write(describeCache(root));
  else clearCache(root, io);
  return 0;
}

function describeCache(root: string): string {
  const databases = scoreDatabases(path.join(root, SCORES_FOLDER));
  const lines = [
    `cache folder: ${root}`,
    ...PLAIN_FOLDERS.map((folder) => `${folder}: ${formatSize(folderBytes(path.join(root, folder)))}`),
    `scores: ${formatSize(databases.reduce((sum, entry) => sum + entry.bytes, 0))} in ${databases.length} model database(s)`,
    ...databases
      .sort((a, b) => b.mtimeMs - a.mtimeMs)
      .map((entry) => `  ${path.basename(entry.file)}  ${formatSize(entry.bytes)}  last used ${new Date(entry.mtimeMs).toISOString()}`),
  ];
  return `${lines.join('\n')}\n`;
}

function clearCache(root: string, io: CliIo): void {
  for (const folder of PLAIN_FOLDERS) rmSync(path.join(root, folder), { recursive: true, force: true });
  const scoresFolder = path.join(root, SCORES_FOLDER);
  const kept = scoreDatabases(scoresFolder).filter((entry) => !removeScoreDatabase(entry.file));
  for (const entry of kept) io.stderr.write(`kept ${entry.file}: a running evaluation holds it\n`);
  // What is left besides the kept databases and their side files: set-aside damaged copies, stale locks.
  const keptNames = kept.map((entry) => path.basename(entry.file));
  for (const name of folderNamesOrNone(scoresFolder)) {
    if (!keptNames.some((keptName) => name.startsWith(keptName))) rmSync(path.join(scoresFolder, name), { recursive: true, force: true });
  }
  io.stdout.write(`cleared ${root}${kept.length > 0 ? ` (${kept.length} score database(s) in use kept)` : ''}\n`);
}

function folderBytes(folder: string): number {
  let total = 0;
  for (const name of folderNamesOrNone(folder)) {
    const entry = path.join(folder, name);
    try {
      const stats = lstatSync(entry);
      total += stats.isDirectory() ? folderBytes(entry) : stats.size;
    } catch {
      // Removed meanwhile.
    }
  }
  return total;
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} kB`;
}
