/**
 * Where a finished run's outputs go. They are written atomically (atomic-write.ts); if the target cannot be
 * written after the whole evaluation (disk full, a folder removed or made read-only meanwhile), the content
 * goes to the temp dir instead and the error says where, so hours of scoring are never lost to a bad path.
 */
import { realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';

/** Writes `content` to `file`, or saves it in the temp dir and throws IO naming both; `flag` names the option. */
export function writeResultOutput(file: string, content: string, flag: string, rescueDir: string = tmpdir()): void {
  try {
    writeThrough(file, content);
  } catch (cause) {
    const reason = cause instanceof Error && 'code' in cause ? String(cause.code) : String(cause);
    const rescue = path.join(rescueDir, `mlrb-eval-${process.pid}-${path.basename(file)}`);
    let saved = '';
    try {
      writeFileAtomic(rescue, content);
      saved = `; it was saved to ${rescue} instead`;
    } catch {
      // Nowhere to put it: the message says the write failed, which is all that is left to say.
    }
    throw new MlrbError('IO', `cannot write ${flag} ${file} (${reason})${saved}`, { file, ...(saved ? { savedTo: rescue } : {}) }, { cause });
  }
}

/**
 * Paths that stand for a descriptor or a device whatever they resolve to: /dev/stdout leads through
 * /proc/self/fd/1 to the file a shell opened for `>`, which a rename would unlink from under the shell.
 */
const DESCRIPTOR_PATH = /^\/(?:dev\/(?:stdout|stderr|fd\/)|proc\/(?:self|\d+)\/fd\/)/;

/**
 * Atomically where the path is (or leads to) a regular file or nothing. A rename replaces whatever entry is at
 * the path, so a symlink is followed first (the link stays, its target gets the content), and a device, FIFO or
 * socket (`--output /dev/null`, `/dev/stdout` on a pipe) is written into, as a shell's `>` would: renaming over
 * /dev/null would leave a regular file in its place, for every process on the machine when run as root.
 */
function writeThrough(file: string, content: string): void {
  if (isWrittenInto(file)) return writeFileSync(file, content);
  const resolved = realPathOrNull(file);
  writeFileAtomic(resolved ?? file, content);
}

/** Whether `file` names a descriptor, a device, a FIFO or a socket, which an output is written into rather than replacing. */
export function isWrittenInto(file: string): boolean {
  if (DESCRIPTOR_PATH.test(path.resolve(file))) return true;
  const resolved = realPathOrNull(file);
  if (resolved === null) return false;
  const stats = statSync(resolved);
  return !stats.isFile() && !stats.isDirectory();
}

function realPathOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
}
