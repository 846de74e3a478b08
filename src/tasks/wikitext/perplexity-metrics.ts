/**
 * lm-eval's perplexity metrics for loglikelihood_rolling tasks (api/metrics.py). Each document contributes a
 * (log-likelihood, weight) pair, the weight being its word or byte count; the aggregations are weighted means
 * over the whole task, not means of per-document perplexities (lm-eval's `weighted_mean` = Σll / Σweight).
 */

export interface WeightedLoglik {
  readonly loglik: number;
  readonly weight: number;
}

function weightedMean(items: readonly WeightedLoglik[]): number {
  let logliks = 0;
  let weights = 0;
  for (const { loglik, weight } of items) {
    logliks += loglik;
    weights += weight;
  }
  return logliks / weights;
}

/** lm-eval's `weighted_perplexity` aggregation (word_perplexity over words, byte_perplexity over bytes). */
export function weightedPerplexity(items: readonly WeightedLoglik[]): number {
  return Math.exp(-weightedMean(items));
}

/** lm-eval's `bits_per_byte` aggregation: the negated mean log-likelihood per byte, in bits. */
export function bitsPerByte(items: readonly WeightedLoglik[]): number {
  return -weightedMean(items) / Math.LN2;
}
