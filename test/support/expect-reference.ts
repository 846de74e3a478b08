/** Checks product results against the independent path, request by request (≤ 1e-4 loglik, same greedy flag). */
import { expect } from 'vitest';
import type { LoglikelihoodResult } from '../../src/engine/model-input.js';
import type { ModelInput } from '../../src/engine/model-input.js';
import { createReferenceScorer } from './reference-scorer.js';

export const LOGLIK_TOLERANCE = 1e-4;

export async function expectReferenceLogliks(modelPath: string, inputs: readonly ModelInput[], results: readonly LoglikelihoodResult[]): Promise<void> {
  const reference = await createReferenceScorer(modelPath);
  try {
    for (const [index, input] of inputs.entries()) {
      const expected = await reference.scoreTokens(input.inputTokens, input.continuationTokens);
      const actual = results[index];
      expect(actual, `request ${index}`).toBeDefined();
      expect(Math.abs((actual?.loglik ?? Number.NaN) - expected.loglik), `request ${index} loglik`).toBeLessThan(LOGLIK_TOLERANCE);
      expect(actual?.isGreedy, `request ${index} greedy`).toBe(expected.isGreedy);
    }
  } finally {
    await reference.dispose();
  }
}
