/**
 * Where a finished run's outputs go. They are written atomically (atomic-write.ts); if the target cannot be
 * written after the whole evaluation (disk full, a folder removed or made read-only meanwhile), the content
 * goes to the temp dir instead and the error says where, so hours of scoring are never lost to a bad path.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { writeFileAtomic } from './atomic-write.js';

/** Writes `content` to `file`, or saves it in the temp dir and throws IO naming both; `flag` names the option. */
export function writeResultOutput(file: string, content: string, flag: string, rescueDir: string = tmpdir()): void {
  try {
    writeFileAtomic(file, content);
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
