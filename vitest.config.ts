import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests sit beside the path of what they test (test/<src folder>/…, docs/testing.md); the tier is in the file's
 * name: `*.native.test.ts` needs the addon or loads a model, `*.e2e.test.ts` runs whole commands, any other
 * `*.test.ts` is a unit test. `vitest run --project unit` runs one tier.
 */
const TIER_SUFFIXES = { native: '.native.test.ts', e2e: '.e2e.test.ts' } as const;
const tiered = Object.values(TIER_SUFFIXES).map((suffix) => `test/**/*${suffix}`);

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
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...tiered],
          // In-process code only: one module graph per worker thread, not one per file, is what keeps this tier
          // under a minute (each file re-importing src/ and its libraries cost ~4x the tests' own time). A unit
          // test therefore leaves nothing behind: env restored, a vi.mock dropped (test/io/atomic-write.test.ts).
          pool: 'threads',
          isolate: false,
        },
      },
      ...Object.entries(TIER_SUFFIXES).map(([name, suffix]) => ({ extends: true as const, test: { name, include: [`test/**/*${suffix}`] } })),
    ],
  },
});
