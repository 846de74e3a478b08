/**
 * MLRB's perplexity windows and its text join, on hand-worked inputs (the figures are worked out in the
 * comments from perplexity.py's loops, not taken from the code under test).
 */
import { describe, expect, it } from 'vitest';
import { accumulatePerplexity, perplexityRequests, windowPlan } from '../../src/model-metrics/perplexity-windows.js';
import { joinWikitextRows, rowsOfRawText } from '../../src/model-metrics/wikitext-text.js';
import { thrownMlrbError } from '../support/expect-mlrb-error.js';

describe('perplexity windows', () => {
  it('scores positions n/2+1 … n−1 of each whole window, BOS in front, the tail dropped', () => {
    // n_ctx 8: logits 4 … 6 are read (range(min(512, 4), 7)), scoring window positions 5, 6, 7: three tokens.
    const plan = windowPlan(8);
    expect(plan).toEqual({ windowTokens: 8, firstScoredLogit: 4, scoredTokensPerWindow: 3 });
    const tokens = Array.from({ length: 19 }, (_, index) => 100 + index); // two windows of 8, a tail of 3
    expect(perplexityRequests(tokens, 1, plan)).toEqual([
      { contextTokens: [1, 101, 102, 103, 104], continuationTokens: [105, 106, 107] },
      { contextTokens: [1, 109, 110, 111, 112], continuationTokens: [113, 114, 115] },
    ]);
  });

  it("MLRB's 256-token window scores 127 tokens from position 129 on", () => {
    expect(windowPlan(256)).toEqual({ windowTokens: 256, firstScoredLogit: 128, scoredTokensPerWindow: 127 });
    // Past 1,024 tokens the start stays at 512 (perplexity.py's min(512, n_ctx // 2)).
    expect(windowPlan(2048).firstScoredLogit).toBe(512);
  });

  it('refuses a text shorter than one window', () => {
    const error = thrownMlrbError(() => perplexityRequests([1, 2, 3], 1, windowPlan(8)));
    expect(error.code).toBe('BAD_DATA');
    expect(error.message).toMatch(/3 tokens, fewer than one perplexity window of 8/);
  });

  it('accumulates NLL and counts across windows, a running perplexity after each', () => {
    // Three scored tokens per window; window logliks −3 and −6: after one exp(3/3) = e, after two exp(9/6).
    const result = accumulatePerplexity([-3, -6], windowPlan(8));
    expect(result.runningPerplexity[0]).toBeCloseTo(Math.E, 14);
    expect(result.runningPerplexity[1]).toBeCloseTo(Math.exp(1.5), 14);
    expect(result.perplexity).toBeCloseTo(Math.exp(1.5), 14);
    expect(result.scoredTokens).toBe(6);
  });
});

describe('WikiText rows and join', () => {
  it('keeps each line\'s newline, blanks whitespace-only lines, and joins an empty row as " \\n"', () => {
    const rows = rowsOfRawText(' \n = Title = \n \t\n Body text . \n');
    expect(rows).toEqual(['', ' = Title = \n', '', ' Body text . \n']);
    expect(joinWikitextRows(rows)).toBe(' \n = Title = \n \n Body text . \n');
  });

  it('reads lines as Python does: universal newlines, a last line without newline, U+2028 inside a line', () => {
    expect(rowsOfRawText('a\r\nb\rc\u2028d\ne')).toEqual(['a\n', 'b\n', 'c\u2028d\n', 'e']);
    // U+0085 is whitespace to Python's strip(), not to JavaScript's trim(): the row is blank.
    expect(rowsOfRawText('\u0085\nx\n')).toEqual(['', 'x\n']);
    expect(rowsOfRawText('')).toEqual([]);
  });
});
