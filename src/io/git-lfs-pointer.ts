/**
 * A Git LFS pointer where a file should be: what `git clone` of a Hugging Face repository leaves without git-lfs
 * (or with GIT_LFS_SKIP_SMUDGE=1). The pointer is a short text file in git-lfs's spec v1 format, beginning
 * `version https://git-lfs.github.com/spec/v1`; a reader's own complaint about it ("footer != PAR1", "Protobuf
 * parsing failed", a JSON syntax error) would hide the cause, so readers ask here first when parsing fails.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { folderNamesOrNone } from './folder-names.js';

const POINTER_PREFIX = Buffer.from('version https://git-lfs.github.com/spec/v1', 'ascii');
/** git-lfs does not take a file over 1024 bytes for a pointer. */
const POINTER_MAX_BYTES = 1024;

/** The words for a message naming the file: `${what} ${GIT_LFS_POINTER_REASON}: ${file}`. */
export const GIT_LFS_POINTER_REASON =
  'is a Git LFS pointer, not the file itself (a git clone without git-lfs): run `git lfs pull` in the clone, or download with `hf download`';

export function isGitLfsPointer(bytes: Uint8Array): boolean {
  if (bytes.length > POINTER_MAX_BYTES) return false;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).subarray(0, POINTER_PREFIX.length).equals(POINTER_PREFIX);
}

/** The pointers among the entries of `dir`, sorted; [] when it cannot be listed. */
export function gitLfsPointersIn(dir: string): string[] {
  return folderNamesOrNone(dir)
    .sort()
    .map((name) => path.join(dir, name))
    .filter(regularFileIsGitLfsPointer);
}

/** Whether the regular file `file` is a pointer; false when it cannot be read (its reader reports that). */
export function regularFileIsGitLfsPointer(file: string): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile() || stats.size > POINTER_MAX_BYTES) return false;
    const bytes = Buffer.alloc(stats.size);
    return isGitLfsPointer(bytes.subarray(0, readSync(descriptor, bytes, 0, bytes.length, 0)));
  } catch {
    return false;
  } finally {
    closeSync(descriptor);
  }
}
