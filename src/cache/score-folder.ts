/**
 * The score cache's folder: one SQLite database per model digest, `<cache>/scores/<digest>.sqlite`, with its
 * write-ahead log and the owner lock beside it. Listing, sizing and removal (for the size cap and
 * `mlrb-eval cache clear`) go through the lock, so a database a running evaluation holds is never removed.
 * Only real files with the names the cache makes are listed and removed (cache-folders.ts): the folder is
 * checked not to be a link by whoever lists it, and removal never recurses.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { folderNamesOrNone } from '../io/folder-names.js';
import { CACHE_NAMES, entryKind, removeCacheName, SCORES_FOLDER } from './cache-folders.js';
import { acquireCacheLock } from './cache-lock.js';
import { SIDE_FILE_SUFFIXES } from './score-store.js';

export { SCORES_FOLDER };
/** The owner lock beside a database (cache-lock.ts); `.lock` is taken by the SQLite VFS's own lock folder. */
export const LOCK_SUFFIX = '.owner';
const VFS_LOCK_SUFFIX = '.lock';

export function scoreDatabaseFile(cacheDir: string, modelDigest: string): string {
  return path.join(cacheDir, SCORES_FOLDER, `${modelDigest}.sqlite`);
}

export interface ScoreDatabaseEntry {
  readonly file: string;
  /** The database and its write-ahead log. */
  readonly bytes: number;
  readonly mtimeMs: number;
}

/** The databases in `folder` (which the caller checked is a real folder): regular files named as the cache names them. */
export function scoreDatabases(folder: string): ScoreDatabaseEntry[] {
  return folderNamesOrNone(folder)
    .filter((name) => CACHE_NAMES.scoreDatabase.test(name) && entryKind(path.join(folder, name)) === 'file')
    .flatMap((name) => {
      const file = path.join(folder, name);
      try {
        return [{ file, bytes: databaseBytes(file), mtimeMs: statSync(file).mtimeMs }];
      } catch {
        return [];
      }
    });
}

/** Removes a database with its side files, under its lock; false when another process holds it. */
export function removeScoreDatabase(file: string): boolean {
  const attempt = acquireCacheLock(file + LOCK_SUFFIX);
  if (!attempt.acquired) return false;
  const folder = path.dirname(file);
  try {
    for (const suffix of ['', ...SIDE_FILE_SUFFIXES]) removeCacheName(folder, path.basename(file + suffix), CACHE_NAMES.scoreFile);
    removeCacheName(folder, path.basename(file + VFS_LOCK_SUFFIX), CACHE_NAMES.scoreVfsLock, true);
  } finally {
    attempt.lock.release();
  }
  return true;
}

/** Bytes of the database and its side files that are regular files (a link's target is not the cache's). */
export function databaseBytes(file: string): number {
  return ['', ...SIDE_FILE_SUFFIXES].reduce((sum, suffix) => {
    if (entryKind(file + suffix) !== 'file') return sum;
    try {
      return sum + statSync(file + suffix).size;
    } catch {
      return sum;
    }
  }, 0);
}
