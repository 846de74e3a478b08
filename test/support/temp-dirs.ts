/**
 * Temporary folders for tests, removed when the test file that made them finishes. The afterAll hook is
 * registered when this module is first imported, which vitest does while collecting the importing test file,
 * so fixture writers called from inside tests (writeSuperGlueFixture …) clean up without each test saying so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const created: string[] = [];

afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh `mlrb-<prefix>-XXXXXX` folder in the OS temp dir. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `mlrb-${prefix}-`));
  created.push(dir);
  return dir;
}
