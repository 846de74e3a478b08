/** The CLI's table stays within 100 columns (src/cli/table.ts); names are shortened, never the numbers. */
import { describe, expect, it } from 'vitest';
import { renderResultsTable } from '../../src/cli/table.js';

describe('renderResultsTable width', () => {
  it('shortens a name too long for 100 columns with "…", and only the name', () => {
    const long = `blimp_${'x'.repeat(120)}`;
    const table = renderResultsTable({
      results: { [long]: { alias: long, 'acc,none': 0.5, 'acc_stderr,none': 0.1 } },
      versions: { [long]: 1 },
      'n-shot': { [long]: 0 },
      higher_is_better: { [long]: { acc: true } },
    });
    const lines = table.trimEnd().split('\n');
    expect(Math.max(...lines.map((line) => [...line].length))).toBe(100);
    expect(lines[2]).toMatch(/^\|blimp_x+…\|\s+1\|none\s*\|\s+0\|acc\s*\|↑\s*\|0\.5000\|±\s*\|0\.1000\|$/);
  });
});
