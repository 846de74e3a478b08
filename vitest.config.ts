import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Native sessions and ORT thread pools are process-wide; forks isolate them per file.
    pool: 'forks',
    // One private TMPDIR per run, removed at the end: nothing a test or a library leaves stays behind.
    globalSetup: ['test/support/private-tmpdir.ts'],
    // And one cache folder per test file inside it: no test reads or leaves a cache in the user's home.
    setupFiles: ['test/support/private-cache-dir.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
