/**
 * The score cache's folder: one SQLite database per model digest, `<cache>/scores/<digest>.sqlite`, with its
 * write-ahead log and the owner lock beside it. Listing, sizing and removal (for the size cap and
 * `mlrb-eval cache clear`) go through the lock, so a database a running evaluation holds is never removed.
 */
import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { folderNamesOrNone } from '../io/folder-names.js';
import { acquireCacheLock } from './cache-lock.js';
import { SIDE_FILE_SUFFIXES } from './score-store.js';

export const SCORES_FOLDER = 'scores';
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

export function scoreDatabases(folder: string): ScoreDatabaseEntry[] {
  return folderNamesOrNone(folder)
    .filter((name) => name.endsWith('.sqlite'))
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
  try {
    for (const suffix of ['', ...SIDE_FILE_SUFFIXES, VFS_LOCK_SUFFIX]) rmSync(file + suffix, { force: true, recursive: true });
  } finally {
    attempt.lock.release();
  }
  return true;
}

export function databaseBytes(file: string): number {
  return ['', ...SIDE_FILE_SUFFIXES].reduce((sum, suffix) => {
    try {
      return sum + statSync(file + suffix).size;
    } catch {
      return sum;
    }
  }, 0);
}
