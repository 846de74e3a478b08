/**
 * Temporary folders for tests, each removed when the scope that made it ends: at the end of the test when made
 * inside one (fixture writers such as writeSuperGlueFixture are called there), else after the test file's (or
 * describe block's) tests. The hook is registered per folder, at the call: a hook registered once when this
 * module is imported is lost whenever vitest reuses an already-imported module for the next file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/** A fresh `mlrb-<prefix>-XXXXXX` folder in the OS temp dir. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `mlrb-${prefix}-`));
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    // Not inside a test (onTestFinished throws there): collection time, so the enclosing suite owns it.
    afterAll(remove);
  }
  return dir;
}
