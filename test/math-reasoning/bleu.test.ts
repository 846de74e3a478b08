import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusBleu, tokenize13a } from '../../src/math-reasoning/bleu.js';

/** sacrebleu 2.6's own figures (scripts/math_reasoning/record_metric_expectations.py). */
interface Expectations {
  readonly signature: string;
  readonly pairs: readonly {
    hypothesis: string;
    reference: string;
    hypothesis_tokens: string[];
    reference_tokens: string[];
    bleu: number;
    bp: number;
    precisions: number[];
  }[];
  readonly corpora: readonly { name: string; indices: number[]; bleu: number; sys_len: number; ref_len: number }[];
}
const expectations = JSON.parse(readFileSync(new URL('../fixtures/math-reasoning/metric-expectations.json', import.meta.url), 'utf8')) as Expectations;
const TOLERANCE = 1e-9;

describe('BLEU against sacrebleu (defaults: 13a, exp smoothing, no effective order, case kept)', () => {
  it('records the defaults it was recorded with', () => {
    expect(expectations.signature).toMatch(/^nrefs:1\|case:mixed\|eff:no\|tok:13a\|smooth:exp\|/);
    expect(expectations.pairs.length).toBeGreaterThanOrEqual(20);
  });

  it.each(expectations.pairs.map((pair, index) => [index, pair] as const))('pair %i: tokens and one-pair corpus BLEU', (_index, pair) => {
    expect(tokenize13a(pair.hypothesis)).toEqual(pair.hypothesis_tokens);
    expect(tokenize13a(pair.reference)).toEqual(pair.reference_tokens);
    const score = corpusBleu([pair.hypothesis], [pair.reference]);
    expect(Math.abs(score.score - pair.bleu)).toBeLessThanOrEqual(TOLERANCE);
    expect(score.brevityPenalty).toBeCloseTo(pair.bp, 12);
    score.precisions.forEach((precision, order) => expect(Math.abs(precision - (pair.precisions[order] ?? NaN))).toBeLessThanOrEqual(TOLERANCE));
  });

  it.each(expectations.corpora.map((corpus) => [corpus.name, corpus] as const))('corpus %s: statistics summed before scoring', (_name, corpus) => {
    const pairs = corpus.indices.map((index) => expectations.pairs[index]!);
    const score = corpusBleu(
      pairs.map((pair) => pair.hypothesis),
      pairs.map((pair) => pair.reference),
    );
    expect(score.hypothesisLength).toBe(corpus.sys_len);
    expect(score.referenceLength).toBe(corpus.ref_len);
    expect(Math.abs(score.score - corpus.bleu)).toBeLessThanOrEqual(TOLERANCE);
  });

  it('BAD CALL – refuses hypotheses and references of different counts', () => {
    expect(() => corpusBleu(['a'], [])).toThrow(RangeError);
  });
});
