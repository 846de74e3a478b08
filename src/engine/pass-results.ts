/**
 * What both scorers do with a finished pass: each request's (loglik, isGreedy) filed under its index into the inputs,
 * and the pass handed to onBatchScored (the score cache stores it there, so a killed run loses one pass at most).
 */
import type { BatchScores } from '../native/binding.js';
import type { LoglikelihoodResult } from './model-input.js';
import type { ScoreOptions } from './score-types.js';

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
