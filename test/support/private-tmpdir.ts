/**
 * vitest globalSetup: every test process gets one private temp folder (TMPDIR, which os.tmpdir() and child
 * processes read), removed when the run ends. The caches (tokens, scores) live in it too ($MLRB_CACHE_DIR):
 * a test must never be served scores a build under development stored in the user's cache, nor leave any. Tests clean up what they make, but libraries do not always:
 * asus4's ONNX Runtime build, which some tests load, leaves an empty mat-debug-<pid>.log per process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const previous = { TMPDIR: process.env.TMPDIR, MLRB_CACHE_DIR: process.env.MLRB_CACHE_DIR };
  const folder = mkdtempSync(path.join(tmpdir(), 'mlrb-test-run-'));
  process.env.TMPDIR = folder;
  process.env.MLRB_CACHE_DIR = path.join(folder, 'mlrb-cache');
  return () => {
    rmSync(folder, { recursive: true, force: true });
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
