/**
 * docs/scale-out.md shows the scale-out recipes as the files the tests run (examples/), not as prose: every
 * `<!-- verbatim: PATH -->` block must equal PATH byte for byte (scripts/docs/verbatim-blocks.ts refreshes
 * them), and every file under examples/ must be shown.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { verbatimBlocks } from '../../scripts/docs/verbatim-blocks.js';
import { repoRoot } from '../support/shared-data.js';

it('docs/scale-out.md shows every file of examples/ verbatim', () => {
  const shown = verbatimBlocks(readFileSync(path.join(repoRoot, 'docs', 'scale-out.md'), 'utf8'));
  for (const { file, body } of shown) {
    expect(body, `${file} differs from its block in docs/scale-out.md: npx tsx scripts/docs/verbatim-blocks.ts docs/scale-out.md`).toBe(readFileSync(path.join(repoRoot, file), 'utf8'));
  }
  const examples = readdirSync(path.join(repoRoot, 'examples'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(repoRoot, path.join(entry.parentPath, entry.name)));
  expect(shown.map(({ file }) => file).sort()).toEqual(examples.sort());
});
