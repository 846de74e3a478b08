import { describe, expect, it } from 'vitest';
import { documentWindows, rollingWindows } from '../../src/eval/rolling-windows.js';
import { encodingRulesFor, type RuleTokenizer } from '../../src/eval/request-encoding.js';
import { wikitextDetokenize, wikitextWeights } from '../../src/tasks/wikitext/detokenize.js';
import { bitsPerByte, weightedPerplexity } from '../../src/tasks/wikitext/perplexity-metrics.js';

describe('rolling windows (lm-eval get_rolling_token_windows + make_disjoint_window, context_len 1)', () => {
  it('a document shorter than the context is one window after the prefix token', () => {
    expect(rollingWindows([10, 11, 12], 1, 8)).toEqual([{ contextTokens: [1], continuationTokens: [10, 11, 12] }]);
  });

  it('a document of exactly max length is still one window', () => {
    expect(rollingWindows([10, 11, 12, 13], 1, 4)).toEqual([{ contextTokens: [1], continuationTokens: [10, 11, 12, 13] }]);
  });

  it('later windows predict up to max length tokens and fill the context from the tokens before them (as lm-eval cuts them)', () => {
    // L = 4, tokens t0..t9 (ids 10..19). Window 1: [1] → t0..t3. Window 2 predicts t4..t7 from the model input
    // t3..t6, so its disjoint context is [t3]. Window 3 predicts t8, t9 from the input t5..t8: context t5..t7.
    expect(rollingWindows([10, 11, 12, 13, 14, 15, 16, 17, 18, 19], 1, 4)).toEqual([
      { contextTokens: [1], continuationTokens: [10, 11, 12, 13] },
      { contextTokens: [13], continuationTokens: [14, 15, 16, 17] },
      { contextTokens: [15, 16, 17], continuationTokens: [18, 19] },
    ]);
  });

  it('max length 1 predicts one token per window, each after its predecessor', () => {
    expect(rollingWindows([10, 11, 12], 0, 1)).toEqual([
      { contextTokens: [0], continuationTokens: [10] },
      { contextTokens: [10], continuationTokens: [11] },
      { contextTokens: [11], continuationTokens: [12] },
    ]);
  });

  it('an empty document has no windows, and a max length below 1 is refused', () => {
    expect(rollingWindows([], 1, 4)).toEqual([]);
    expect(() => rollingWindows([10], 1, 0)).toThrow(RangeError);
  });
});

describe('document windows per lm-eval release', () => {
  // A character tokenizer (a=10, b=11, c=12) whose special-token encoding puts BOS (1) first, as Llama's does.
  const encode = (text: string): number[] => [...text].map((char) => char.charCodeAt(0) - 87);
  const llamaLike: RuleTokenizer = { encode, encodeWithSpecialTokens: (text) => [1, ...encode(text)], tokenText: (id) => (id === 1 ? '<s>' : '?') };

  it('v0.4.4–v0.4.8 encode the document without special tokens', () => {
    const rules = encodingRulesFor('0.4.4-0.4.8', llamaLike, () => 1);
    expect(documentWindows('abc', rules, 2)).toEqual([
      { contextTokens: [1], continuationTokens: [10, 11] },
      { contextTokens: [10, 11], continuationTokens: [12] },
    ]);
  });

  it('v0.4.13 lets the tokenizer add BOS, which is then predicted after the prefix BOS', () => {
    const rules = encodingRulesFor('0.4.13', llamaLike, () => 1);
    expect(documentWindows('abc', rules, 2)).toEqual([
      { contextTokens: [1], continuationTokens: [1, 10] },
      { contextTokens: [10], continuationTokens: [11, 12] },
    ]);
  });

  it('an empty document has no windows under v0.4.4–v0.4.8, and under v0.4.13 one that predicts the BOS its tokenizer adds', () => {
    expect(
      documentWindows(
        '',
        encodingRulesFor('0.4.4-0.4.8', llamaLike, () => 1),
        2,
      ),
    ).toEqual([]);
    expect(
      documentWindows(
        '',
        encodingRulesFor('0.4.13', llamaLike, () => 1),
        2,
      ),
    ).toEqual([{ contextTokens: [1], continuationTokens: [1] }]);
  });
});

describe('lm-eval perplexity aggregations', () => {
  it('weights the summed log-likelihood by the summed counts', () => {
    const items = [
      { loglik: -10, weight: 4 },
      { loglik: -2, weight: 2 },
    ];
    expect(weightedPerplexity(items)).toBeCloseTo(Math.exp(2), 12);
    expect(bitsPerByte(items)).toBeCloseTo(2 / Math.LN2, 12);
  });
});

describe('wikitext preprocessing', () => {
  it('undoes the WikiText tokenization spaces in lm-eval order (output checked against its preprocess_wikitext)', () => {
    expect(wikitextDetokenize(' = = Title = = \n \n A 3 @,@ 000 well @-@ known ( big ) cat , it said " hi " . \n')).toBe(
      ' == Title ==\n\nA 3,000 well-known (big) cat, it said "hi".\n',
    );
  });

  it('counts words as re.split(r"\\s+") does, ends included, and bytes in UTF-8', () => {
    expect(wikitextWeights(' a b\u00b0 ')).toEqual({ words: 4, bytes: 7 });
    // Python's \s includes U+001C and excludes U+FEFF; JavaScript's \s is the other way round.
    expect(wikitextWeights('a\x1cb\ufeffc').words).toBe(2);
  });

  it('strips bracket padding that is Python whitespace, and only that', () => {
    expect(wikitextDetokenize('( \x1cx\ufeff)')).toBe('(x\ufeff)');
  });
});
