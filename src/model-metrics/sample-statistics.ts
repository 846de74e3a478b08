/**
 * The summary MLRB prints for a list of measurements, computed as numpy computes it (agent_eval/benchmarks
 * uses np.mean, np.std, np.median, np.min, np.max and np.percentile with their defaults):
 *   std         the population standard deviation (ddof = 0), sqrt(mean((x - mean)²));
 *   median      the middle value, or the mean of the two middle values;
 *   percentiles numpy's default 'linear' method: position (n − 1)·(q/100) in the sorted values, interpolated
 *               between its two neighbours with numpy's two-sided lerp (so p100 is exactly the maximum).
 * Summation order differs from numpy's pairwise sum, so figures may differ in the last bit or two.
 */
import { MlrbError } from '../errors.js';

export interface SampleSummary {
  readonly mean: number;
  readonly std: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly p90: number;
  readonly p95: number;
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** numpy's lerp: from the lower end below t = 0.5 and from the upper end above, which keeps t = 1 exact. */
function lerp(lower: number, upper: number, t: number): number {
  const span = upper - lower;
  return t >= 0.5 ? upper - span * (1 - t) : lower + span * t;
}

/** np.percentile(values, q) with the default 'linear' method, on values already sorted ascending. */
export function percentileOfSorted(sorted: readonly number[], q: number): number {
  // numpy divides q by 100 first, then scales: the same order keeps the weight bit-identical.
  const position = (sorted.length - 1) * (q / 100);
  const below = Math.floor(position);
  const lower = sorted[below] as number;
  const upper = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  return lerp(lower, upper, position - below);
}

export function summarizeSample(values: readonly number[], what: string): SampleSummary {
  if (values.length === 0) throw new MlrbError('INTERNAL', `${what}: no measurements to summarize`);
  if (values.some((value) => !Number.isFinite(value))) throw new MlrbError('NUMERIC', `${what}: a measurement is not a finite number`, { what });
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sum(values) / values.length;
  const variance = sum(values.map((value) => (value - mean) ** 2)) / values.length;
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return {
    mean,
    std: Math.sqrt(variance),
    median,
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
    p90: percentileOfSorted(sorted, 90),
    p95: percentileOfSorted(sorted, 95),
  };
}
