/**
 * docs/mlrb.md holds the table of MLRB's definitions exactly as the definitions in src/mlrb/definitions/ render
 * it (scripts/docs/render-mlrb-tables.ts writes it), and the README front page links the page.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFINITIONS_BEGIN, DEFINITIONS_END, renderMlrbTables } from '../../src/mlrb/definitions-table.js';
import { mlrbTaskNames } from '../../src/mlrb/tasks.js';
import { repoRoot } from '../support/shared-data.js';

const page = readFileSync(path.join(repoRoot, 'docs', 'mlrb.md'), 'utf8');

describe('the MLRB definitions table in docs/mlrb.md', () => {
  it('is the rendering of the definitions the runner reads (run `npx tsx scripts/docs/render-mlrb-tables.ts` after changing them)', () => {
    const begin = page.indexOf(DEFINITIONS_BEGIN);
    const end = page.indexOf(DEFINITIONS_END);
    expect(begin).toBeGreaterThanOrEqual(0);
    expect(page.slice(begin, end + DEFINITIONS_END.length)).toBe(renderMlrbTables());
  });

  it('has a row for every task and mini task, and cites agent_eval for each model metric', () => {
    const rendered = renderMlrbTables();
    for (const name of mlrbTaskNames()) expect(rendered).toContain(`| \`${name}\` |`);
    for (const metric of ['parameters', 'tokens_per_second', 'perplexity', 'latency'])
      expect(rendered).toMatch(new RegExp(`\\| ${metric} \\| [^|]*\\.py:\\d+`));
  });

  it('is linked from the README front page', () => {
    expect(readFileSync(path.join(repoRoot, 'README.md'), 'utf8')).toContain('(docs/mlrb.md)');
  });
});
