import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lcsLength, rougeL, rougeTokenize, type RougeLScore } from '../../src/math-reasoning/rouge-l.js';

// rouge_score is not in this machine's package index; these are worked by hand from its definition
// (rouge/tokenize.py and rouge_scorer.py's _score_lcs in google-research/google-research).
describe('ROUGE-L as rouge_score computes it without a stemmer', () => {
  const unstemmed = { stemmer: false } as const;
  it('tokenizes as rouge_score: lower-case, runs outside [a-z0-9] are separators', () => {
    expect(rougeTokenize("theorem add_zero' (x : ℕ) : x + 0 = x := by simp", unstemmed)).toEqual(['theorem', 'add', 'zero', 'x', 'x', '0', 'x', 'by', 'simp']);
    expect(rougeTokenize('∀ x : ℕ, x + 0 = x', unstemmed)).toEqual(['x', 'x', '0', 'x']);
    // 'É' lower-cases to 'é', outside [a-z]: a separator. 'İ' lower-cases to 'i' + U+0307 and the Kelvin sign to 'k'.
    expect(rougeTokenize('CAFÉ İx \u212Ay', unstemmed)).toEqual(['caf', 'i', 'x', 'ky']);
    expect(rougeTokenize('!!!...---', unstemmed)).toEqual([]);
    expect(rougeTokenize('', unstemmed)).toEqual([]);
  });

  it('finds the longest common subsequence', () => {
    expect(lcsLength(['a', 'b', 'c', 'd'], ['a', 'c', 'd'])).toBe(3);
    expect(lcsLength(['a', 'b'], ['b', 'a'])).toBe(1);
    expect(lcsLength([], ['a'])).toBe(0);
    expect(lcsLength(['x', 'y', 'x', 'z', 'x'], ['x', 'x', 'x', 'y'])).toBe(3);
  });

  it('scores identical text 1', () => {
    expect(rougeL('∀ x : ℕ, x + 0 = x', '∀ x : ℕ, x + 0 = x', unstemmed)).toEqual({ precision: 1, recall: 1, fmeasure: 1 });
  });

  it('scores a partial match by LCS precision, recall and their harmonic mean', () => {
    // hypothesis tokens [theorem foo x x 0 x by simp] (8), reference [theorem add zero x x 0 x by simp] (9);
    // LCS = theorem x x 0 x by simp = 7: P = 7/8, R = 7/9, F = 2·(7/8)(7/9) / (7/8 + 7/9) = 14/17.
    const score = rougeL('theorem foo (x : ℕ) : x + 0 = x := by simp', "theorem add_zero' (x : ℕ) : x + 0 = x := by simp", unstemmed);
    expect(score.precision).toBeCloseTo(7 / 8, 15);
    expect(score.recall).toBeCloseTo(7 / 9, 15);
    expect(score.fmeasure).toBeCloseTo(14 / 17, 15);
  });

  it('uses order: a reversed sentence shares one token of LCS', () => {
    // [cat dog bird fish] vs [fish bird dog cat]: LCS 1, P = R = F = 1/4.
    expect(rougeL('cat dog bird fish', 'fish bird dog cat', unstemmed).fmeasure).toBeCloseTo(0.25, 15);
  });

  it('counts repeated tokens once per match', () => {
    // hypothesis [the ×7], reference [the cat is on the mat]: LCS 2, P = 2/7, R = 2/6, F = 2·(2/7)(1/3) / (2/7 + 1/3) = 4/13.
    expect(rougeL('the the the the the the the', 'the cat is on the mat', unstemmed).fmeasure).toBeCloseTo(4 / 13, 15);
  });

  it('scores 0 when either side has no tokens (empty, or symbols only)', () => {
    expect(rougeL('', 'theorem t', unstemmed)).toEqual({ precision: 0, recall: 0, fmeasure: 0 });
    expect(rougeL('theorem t', '', unstemmed)).toEqual({ precision: 0, recall: 0, fmeasure: 0 });
    expect(rougeL('→ ∧ ∨', '→ ∧ ∨', unstemmed)).toEqual({ precision: 0, recall: 0, fmeasure: 0 });
    expect(rougeL('alpha', 'beta', unstemmed)).toEqual({ precision: 0, recall: 0, fmeasure: 0 });
  });
});

// rouge_score's tokenizer and LCS re-implemented in Python around nltk's real stemmer (rouge_score itself is
// not installable here): scripts/math_reasoning/record_stemmer_expectations.py.
interface RougeExpectation {
  readonly hypothesis: string;
  readonly reference: string;
  readonly hypothesis_tokens: string[];
  readonly reference_tokens: string[];
  readonly stemmed: RougeLScore;
  readonly unstemmed: RougeLScore;
}
const recorded = (
  JSON.parse(readFileSync(new URL('../fixtures/math-reasoning/stemmer-expectations.json', import.meta.url), 'utf8')) as { rouge_l: RougeExpectation[] }
).rouge_l;

describe("ROUGE-L as MLRB's evaluate rouge computes it (use_stemmer=True)", () => {
  it.each(recorded.map((pair, index) => [index, pair] as const))('pair %i: stemmed tokens and scores match the recording', (_index, pair) => {
    expect(rougeTokenize(pair.hypothesis)).toEqual(pair.hypothesis_tokens);
    expect(rougeTokenize(pair.reference)).toEqual(pair.reference_tokens);
    // The same IEEE operations in the same order: equal to the last bit.
    expect(rougeL(pair.hypothesis, pair.reference)).toEqual(pair.stemmed);
    expect(rougeL(pair.hypothesis, pair.reference, { stemmer: false })).toEqual(pair.unstemmed);
  });

  it('the stemmer changes some recorded scores (the pairs exercise it)', () => {
    expect(recorded.filter((pair) => pair.stemmed.fmeasure !== pair.unstemmed.fmeasure).length).toBeGreaterThanOrEqual(8);
  });

  it('leaves tokens of 3 characters or fewer unstemmed', () => {
    // 'ies' and 'was' would stem to 'i' and 'wa'; rouge_score stems only tokens longer than 3 characters.
    expect(rougeTokenize('ies was cats')).toEqual(['ies', 'was', 'cat']);
  });
});
