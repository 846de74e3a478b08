/**
 * File access shared by the suite loaders: every failure becomes a BAD_DATA MlrbError that names the path,
 * so a user with a half-copied data directory learns which file is missing or unreadable. Data files are read
 * under the data-file policy (src/io/file-policy.ts): regular files only, inside the suite's folder, capped.
 */
import { readdir, stat } from 'node:fs/promises';
import { MlrbError } from '../errors.js';
import { readTextFileUnder } from '../io/text-file.js';

/**
 * Reads a UTF-8 data file that must resolve inside `root` (the suite's data folder), dropping a leading BOM;
 * undecodable bytes are an error, not U+FFFD.
 */
export async function readTextFile(path: string, what: string, root: string): Promise<string> {
  return readTextFileUnder(path, { kind: 'data', root, what });
}

/** Lists the names in a directory, with a BAD_DATA error that names it when it is missing. */
export async function listDirectory(path: string, what: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error: unknown) {
    const reason = isMissing(error) ? 'not found' : 'unreadable';
    throw new MlrbError('BAD_DATA', `${what} ${reason}: ${path}`, { file: path }, { cause: error });
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

export async function hasFileWithSuffix(dir: string, suffix: string): Promise<boolean> {
  try {
    return (await readdir(dir)).some((name) => name.endsWith(suffix));
  } catch {
    return false;
  }
}

/** lm-eval's `--limit`: below 1 it is a fraction of the split (rounded up), otherwise a document count. */
export function applyLimit<T>(docs: readonly T[], limit: number | undefined): readonly T[] {
  return limit === undefined ? docs : docs.slice(0, limitedCount(docs.length, limit));
}

/** How many of a split's `total` documents `limit` takes (all of them without a limit). */
export function limitedCount(total: number, limit: number | undefined): number {
  if (limit === undefined) return total;
  return Math.min(total, limit < 1 ? Math.ceil(total * limit) : Math.floor(limit));
}

/** Validates `limit` up front so a typo fails before any file is read. */
export function checkLimit(limit: number | undefined): void {
  if (limit === undefined) return;
  if (typeof limit !== 'number' || !Number.isFinite(limit) || limit <= 0) {
    throw new RangeError(`limit must be a positive number (a count, or a fraction below 1); got ${String(limit)}`);
  }
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error as NodeJS.ErrnoException).code === 'ENOENT';
}
