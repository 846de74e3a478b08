/**
 * A model or weights file truncated by another process while the edge checks read it (an agent's model
 * folder is untrusted): a typed BAD_MODEL naming the file (and the tensor), never SIGBUS killing the
 * process. Mapped pages past the file's new end used to raise SIGBUS; the guarded mapping
 * (native/onnx/truncation_guard.h) reads them as zeros and the reader refuses what it read. The race is
 * real, so each attempt reads in a child process and truncates from outside the native call; attempts
 * whose truncation missed the read (it had finished, or the file was not yet open) are retried with
 * another delay. Both reads crashed with SIGBUS before the guard, at every delay tried.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ReadOutcome } from '../support/read-while-truncating.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('truncated-while-read');
const childScript = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'read-while-truncating.ts');
const DELAYS_MS = [5, 20, 1, 40, 0, 80];
const SCANNED_TENSOR = 'blocks.0.weight';

type Mode = 'scan' | 'walk';

interface ChildEnd {
  readonly signal: NodeJS.Signals | null;
  readonly outcome: ReadOutcome | null;
  readonly stderr: string;
}

function readWhileTruncating(mode: Mode, file: string, delayMs: number): Promise<ChildEnd> {
  const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsxLoader, childScript, mode, file, String(delayMs), SCANNED_TENSOR],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        const last = stdout.trim().split('\n').at(-1) ?? '';
        resolve({ signal: error?.signal ?? null, outcome: last.startsWith('{') ? (JSON.parse(last) as ReadOutcome) : null, stderr });
      },
    );
  });
}

/** The first error that came from truncation during the read; every attempt must end alive and typed. */
async function truncatedMidRead(mode: Mode, missedRead: RegExp): Promise<{ file: string; message: string } | null> {
  for (const [attempt, delayMs] of DELAYS_MS.entries()) {
    const file = tempPath(`${mode}-${attempt}.bin`);
    const end = await readWhileTruncating(mode, file, delayMs);
    expect(end.signal, `the child died of ${String(end.signal)}\n${end.stderr}`).toBeNull();
    expect(end.outcome, end.stderr).not.toBeNull();
    if (end.outcome?.outcome !== 'error') continue;
    expect(end.outcome.code).toBe('BAD_MODEL');
    expect(end.outcome.message).toContain(file);
    if (!missedRead.test(end.outcome.message)) return { file, message: end.outcome.message };
  }
  return null;
}

describe('a file truncated while it is read', () => {
  it('EXPECTED FAILURE – the zero scan of an external-data tensor: BAD_MODEL naming the file and tensor', async () => {
    const caught = await truncatedMidRead('scan', /too few for a tensor/);
    expect(caught, 'no attempt truncated the file while the scan read it').not.toBeNull();
    expect(caught!.message).toContain(`shrank or could not be read while tensor ${SCANNED_TENSOR} at byte offset 0 was read`);
  }, 240_000);

  it('EXPECTED FAILURE – the model reader walking an ONNX file: BAD_MODEL naming the file', async () => {
    const caught = await truncatedMidRead('walk', /is empty, not an ONNX model/);
    expect(caught, 'no attempt truncated the file while the reader walked it').not.toBeNull();
    expect(caught!.message).toContain(`${caught!.file} shrank or could not be read while its graph was read`);
  }, 240_000);
});
