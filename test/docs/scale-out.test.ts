/**
 * docs/scale-out.md shows the scale-out recipes as the files the tests run (examples/), not as prose: every file
 * under examples/ must have a `<!-- verbatim: PATH -->` block there (test/docs/doc-examples.e2e.test.ts holds each
 * block to its file byte for byte; scripts/docs/verbatim-blocks.ts refreshes them).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { verbatimBlocks } from '../../scripts/docs/verbatim-blocks.js';
import { repoRoot } from '../support/shared-data.js';

it('docs/scale-out.md shows every file of examples/ verbatim', () => {
  const shown = verbatimBlocks(readFileSync(path.join(repoRoot, 'docs', 'scale-out.md'), 'utf8')).map(({ file }) => file);
  const examples = readdirSync(path.join(repoRoot, 'examples'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(repoRoot, path.join(entry.parentPath, entry.name)));
  expect(shown.sort()).toEqual(examples.sort());
});
