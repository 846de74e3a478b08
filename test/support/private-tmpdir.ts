/**
 * vitest globalSetup: every test process gets one private temp folder (TMPDIR, which os.tmpdir() and child
 * processes read), removed when the run ends. The caches (tokens, scores) live in it too, one folder per test
 * file (private-cache-dir.ts): a test must never be served scores a build under development stored in the
 * user's cache, nor leave any there. Tests clean up what they make, but libraries do not always:
 * asus4's ONNX Runtime build, which some tests load, leaves an empty mat-debug-<pid>.log per process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const folder = mkdtempSync(path.join(tmpdir(), 'mlrb-test-run-'));
  process.env.TMPDIR = folder;
  return () => {
    rmSync(folder, { recursive: true, force: true });
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  };
}
