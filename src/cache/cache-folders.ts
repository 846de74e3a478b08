/**
 * The cache folder's layout, and the only ways the cache touches it. A cache folder may be writable by others,
 * so nothing in it is taken on trust when files are written or removed:
 *   - every sub-folder the cache uses is checked with lstat to be a real folder, never a symlink, before anything
 *     is written, listed or removed in it (a `scores` replaced by a link to another folder would otherwise have
 *     eviction and `cache clear` remove that folder's files);
 *   - only names the cache itself makes are ever removed (CACHE_NAMES), one file at a time (unlink) or an empty
 *     folder (rmdir): never a recursive removal, so a folder planted under a cache name is left alone.
 * The root is the folder the user named (`--use-cache DIR`), taken as given.
 * What remains: a folder swapped for a link between the check and the use (Node has no openat); an attacker
 * with write access to the folder can still delete or fill the cache itself, which only costs a rerun.
 */
import { lstatSync, mkdirSync, rmdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';

const HEX64 = '[0-9a-f]{64}';
/** writeFileAtomic's temporary name for a final name (atomic-write.ts). */
const temporaryOf = (name: string): string => `\\.${name}\\.\\d+\\.[0-9a-f]{12}\\.tmp`;

/** The sub-folders of the cache root. */
export const TOKENS_FOLDER = 'tokens';
export const FILE_HASHES_FOLDER = 'file-hashes';
export const SCORES_FOLDER = 'scores';

/** The names the cache makes in each of its folders; nothing else is ever removed. */
export const CACHE_NAMES = {
  /** tokens/<2 hex>/: one folder per first byte of the entry's key. */
  tokenShard: /^[0-9a-f]{2}$/,
  tokenEntry: new RegExp(`^(?:${HEX64}\\.bin|${temporaryOf(`${HEX64}\\.bin`)})$`),
  fileHashEntry: new RegExp(`^(?:${HEX64}\\.json|${temporaryOf(`${HEX64}\\.json`)})$`),
  /** A score database, its SQLite side files, its owner lock and what a takeover or a damaged file leaves. */
  scoreFile: new RegExp(`^${HEX64}\\.sqlite(?:\\.damaged-\\d+)?(?:-wal|-journal|\\.owner|\\.owner\\.stale\\.\\d+\\.[0-9a-f]{8})?$`),
  /** The SQLite VFS's lock, a folder beside its database. */
  scoreVfsLock: new RegExp(`^${HEX64}\\.sqlite(?:\\.damaged-\\d+)?\\.lock$`),
  scoreDatabase: new RegExp(`^${HEX64}\\.sqlite$`),
} as const;

export class CacheFolderError extends Error {
  constructor(
    readonly folder: string,
    reason: string,
  ) {
    super(`${folder} ${reason}; the cache never follows links or writes through other files inside its folder`);
    this.name = 'CacheFolderError';
  }
}

/**
 * `<root>/<parts…>` after checking that each part is a real folder (created when `create` and missing).
 * Undefined when a part is missing and not created; a CacheFolderError when one is a link or not a folder.
 */
export function cacheFolder(root: string, parts: readonly string[], create: boolean): string | undefined {
  let folder = path.resolve(root);
  if (create) mkdirSync(folder, { recursive: true });
  for (const part of parts) {
    folder = path.join(folder, part);
    let kind = entryKind(folder);
    if (kind === 'missing' && create) {
      try {
        mkdirSync(folder);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      kind = entryKind(folder);
    }
    if (kind === 'missing') return undefined;
    if (kind !== 'folder') throw new CacheFolderError(folder, `is ${kind === 'link' ? 'a symlink' : 'not a folder'}`);
  }
  return folder;
}

/** cacheFolder() that must exist (created when missing). */
export function ensureCacheFolder(root: string, parts: readonly string[]): string {
  const folder = cacheFolder(root, parts, true);
  if (folder === undefined) throw new CacheFolderError(path.join(root, ...parts), 'could not be created');
  return folder;
}

export type EntryKind = 'missing' | 'file' | 'folder' | 'link' | 'other';

export function entryKind(entry: string): EntryKind {
  let stats;
  try {
    stats = lstatSync(entry);
  } catch {
    return 'missing';
  }
  if (stats.isSymbolicLink()) return 'link';
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'folder';
  return 'other';
}

/**
 * Removes `name` from `folder` if it is one of the cache's own names (`allowed`): a regular file is unlinked, a
 * folder removed only when `emptyFolder` allows it and only if empty (rmdir). A link of that name is unlinked
 * itself, never followed. True when something was removed.
 */
export function removeCacheName(folder: string, name: string, allowed: RegExp, emptyFolder = false): boolean {
  if (!allowed.test(name)) return false;
  const entry = path.join(folder, name);
  try {
    const kind = entryKind(entry);
    if (kind === 'file' || kind === 'link') unlinkSync(entry);
    else if (kind === 'folder' && emptyFolder) rmdirSync(entry);
    else return false;
    return true;
  } catch {
    // Gone meanwhile, or a folder that is not empty: left as it is.
    return false;
  }
}
