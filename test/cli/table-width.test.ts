/**
 * The CLI's table prints every name whole, as lm-eval's make_table does, however wide that makes it: a name is
 * never cut (cut names once printed as the same row), and the numbers stay in their columns.
 */
import { describe, expect, it } from 'vitest';
import { renderResultsTable } from '../../src/cli/table.js';

describe('renderResultsTable width', () => {
  it('prints a name far wider than a terminal whole, with its row and the header as wide', () => {
    const long = `blimp_${'x'.repeat(120)}`;
    const table = renderResultsTable({
      results: { [long]: { alias: long, 'acc,none': 0.5, 'acc_stderr,none': 0.1 } },
      versions: { [long]: 1 },
      'n-shot': { [long]: 0 },
      higher_is_better: { [long]: { acc: true } },
    });
    const lines = table.trimEnd().split('\n');
    expect(lines[2]).toBe(`|${long}|      1|none  |     0|acc   |↑  |0.5000|±  |0.1000|`);
    expect(new Set(lines.map((line) => [...line].length)).size).toBe(1);
  });
});
