/**
 * Writes a file so that readers see the old content or the whole new content, never a prefix: the bytes go
 * to a fresh temporary file in the same folder (a rename is atomic only within one file system), are flushed,
 * and the temporary file is renamed over the target. On any failure the temporary file is removed, so a
 * full disk or a killed write leaves nothing half-written behind. The temporary name is created exclusively
 * ('wx'), so a symlink planted at that name is never followed.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/** `.name.<pid>.<random>.tmp` beside `file`; the pattern stale-file sweeps look for. */
export function temporaryNameFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Creates missing parent folders, then writes atomically; rethrows the file system's error after cleaning up. */
export function writeFileAtomic(file: string, content: string | Uint8Array): void {
  const target = path.resolve(file);
  mkdirSync(path.dirname(target), { recursive: true });
  const temporary = temporaryNameFor(target);
  try {
    const descriptor = openSync(temporary, 'wx', 0o644);
    try {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      let written = 0;
      while (written < bytes.length) written += writeSync(descriptor, bytes, written, bytes.length - written);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
