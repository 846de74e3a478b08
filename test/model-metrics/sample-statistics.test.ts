/**
 * MLRB's measurement summary against numpy's own figures (scripts/model_metrics/record_statistics_expectations.py
 * recorded np.mean, np.std, np.median, np.min, np.max and np.percentile 90/95 for each vector).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { summarizeSample, type SampleSummary } from '../../src/model-metrics/sample-statistics.js';
import { thrownMlrbError } from '../support/expect-mlrb-error.js';

interface RecordedCase {
  readonly name: string;
  readonly values: number[];
  readonly expected: SampleSummary;
}

const recorded = JSON.parse(readFileSync(new URL('../fixtures/model-metrics/statistics-expectations.json', import.meta.url), 'utf8')) as {
  cases: RecordedCase[];
};

// numpy sums pairwise, this code left to right: the mean (and std through it) may differ in the last bits.
const RELATIVE = 1e-13;

describe('summarizeSample (numpy defaults)', () => {
  it.each(recorded.cases)('matches numpy on $name', ({ values, expected }) => {
    const summary = summarizeSample(values, 'sample');
    for (const key of Object.keys(expected) as (keyof SampleSummary)[]) {
      const tolerance = Math.max(Math.abs(expected[key]) * RELATIVE, 1e-300);
      expect(Math.abs(summary[key] - expected[key]), `${key}: ${summary[key]} vs numpy ${expected[key]}`).toBeLessThanOrEqual(tolerance);
    }
  });

  it('interpolates percentiles linearly between neighbours (worked by hand)', () => {
    // Sorted 10, 20, 30, 40: p90 sits at position 3 × 0.9 = 2.7, so 30 + 0.7 × 10 = 37; p95 at 2.85: 38.5.
    const summary = summarizeSample([40, 10, 30, 20], 'sample');
    expect(summary.p90).toBeCloseTo(37, 12);
    expect(summary.p95).toBeCloseTo(38.5, 12);
    expect(summary.median).toBe(25);
    // Population std (ddof 0): deviations ±15, ±5 → sqrt((225 + 25 + 25 + 225) / 4) = sqrt(125).
    expect(summary.std).toBeCloseTo(Math.sqrt(125), 12);
  });

  it('refuses an empty sample and non-finite measurements', () => {
    expect(thrownMlrbError(() => summarizeSample([], 'tokens/s')).message).toMatch(/tokens\/s: no measurements/);
    expect(thrownMlrbError(() => summarizeSample([1, Number.NaN], 'tokens/s')).code).toBe('NUMERIC');
  });
});
