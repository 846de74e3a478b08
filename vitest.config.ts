import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** One folder per kind of test (docs/testing.md): `vitest run --project e2e` runs one. */
const PROJECTS = ['unit', 'native', 'inspect', 'e2e', 'docs', 'cli'] as const;

export default defineConfig({
  test: {
    // Native sessions and ORT thread pools are process-wide; forks isolate them per file.
    pool: 'forks',
    // A fork per core: vitest's default leaves one core to its own process, which on 2 cores halves the pace
    // (its main process is idle while the forks work).
    maxWorkers: availableParallelism(),
    // One private TMPDIR per run, removed at the end: nothing a test or a library leaves stays behind.
    globalSetup: ['test/support/private-tmpdir.ts'],
    // And one cache folder per test file inside it: no test reads or leaves a cache in the user's home.
    setupFiles: ['test/support/private-cache-dir.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    projects: PROJECTS.map((name) => ({ extends: true, test: { name, include: [`test/${name}/**/*.test.ts`] } })),
  },
});
