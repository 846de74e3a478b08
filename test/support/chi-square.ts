/** Checks of sampled token counts against a distribution, shared by the sampling tests of every engine. */
import { expect } from 'vitest';

export function softmax(logits: readonly number[], temperature: number): number[] {
  const max = Math.max(...logits);
  const weights = logits.map((logit) => Math.exp((logit - max) / temperature));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => weight / total);
}

/**
 * Pearson's chi-square statistic of `counts` against `probabilities`, tokens expected fewer than 5 times pooled
 * into one bin, and the 0.999 quantile of its chi-square distribution (Wilson–Hilferty approximation).
 */
export function chiSquare(counts: Map<number, number>, probabilities: readonly number[], samples: number): { statistic: number; critical: number } {
  let statistic = 0;
  let bins = 0;
  let pooledExpected = 0;
  let pooledObserved = 0;
  probabilities.forEach((probability, token) => {
    const expectedCount = probability * samples;
    const observed = counts.get(token) ?? 0;
    if (expectedCount < 5) {
      pooledExpected += expectedCount;
      pooledObserved += observed;
      return;
    }
    statistic += (observed - expectedCount) ** 2 / expectedCount;
    bins += 1;
  });
  if (pooledExpected >= 5) {
    statistic += (pooledObserved - pooledExpected) ** 2 / pooledExpected;
    bins += 1;
  } else {
    // Too rare to bin: they must still be rare.
    expect(pooledObserved).toBeLessThan(20);
  }
  const df = bins - 1;
  const z = 3.090232; // the standard normal's 0.999 quantile
  const critical = df * (1 - 2 / (9 * df) + z * Math.sqrt(2 / (9 * df))) ** 3;
  return { statistic, critical };
}
