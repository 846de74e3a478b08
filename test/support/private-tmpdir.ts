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

/** Set while a run's folder is in place: vitest runs a globalSetup once per project as well as at the root. */
const OWNER = 'MLRB_TEST_RUN_TMPDIR';

export default function setup(): () => void {
  // One folder per run, not one nested per project: a socket's path must stay under the 108 bytes sun_path holds.
  if (process.env[OWNER] !== undefined && process.env[OWNER] === process.env.TMPDIR) return () => {};
  const previous = process.env.TMPDIR;
  const folder = mkdtempSync(path.join(tmpdir(), 'mlrb-test-run-'));
  process.env.TMPDIR = folder;
  process.env[OWNER] = folder;
  return () => {
    delete process.env[OWNER];
    rmSync(folder, { recursive: true, force: true });
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  };
}
