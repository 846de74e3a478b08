/**
 * What both scorers do with a finished pass: each request's (loglik, isGreedy) filed under its index into the inputs,
 * and the pass handed to onBatchScored (the score cache stores it there, so a killed run loses one pass at most),
 * and the progress after it.
 */
import type { BatchScores } from '../native/binding.js';
import type { LoglikelihoodResult } from './model-input.js';
import type { ScoreOptions } from './score-types.js';

/**
 * The progress both scorers report after each pass: what is done against the run's totals, and the time since the
 * scorer started (the same clock its stats' wallMs reads).
 */
export function passProgressReporter(
  onProgress: ScoreOptions['onProgress'],
  totals: { readonly requestsTotal: number; readonly tokensTotal: number; readonly startedMs: number },
): (done: { readonly requestsDone: number; readonly tokensDone: number }) => void {
  return ({ requestsDone, tokensDone }) =>
    onProgress?.({
      requestsDone,
      requestsTotal: totals.requestsTotal,
      tokensDone,
      tokensTotal: totals.tokensTotal,
      elapsedMs: performance.now() - totals.startedMs,
    });
}

/** Returns the pass's request indices, in its order. */
export function filePassResults(
  scores: BatchScores,
  packedRequestIndices: Int32Array,
  results: LoglikelihoodResult[],
  onBatchScored: ScoreOptions['onBatchScored'],
): number[] {
  const requestIndices = Array.from(packedRequestIndices);
  const passResults = requestIndices.map((requestIndex, position) => {
    const result = { loglik: scores.logliks[position] as number, isGreedy: scores.greedy[position] === 1 };
    results[requestIndex] = result;
    return result;
  });
  onBatchScored?.(requestIndices, passResults);
  return requestIndices;
}
