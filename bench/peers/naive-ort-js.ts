/**
 * The naive baseline a user would write first: onnxruntime-node's JS API, one request at a time, full
 * logits back to JS and log-softmax there. It is the same code as the tests' independent path.
 */
import type { ModelInput } from '../../src/engine/model-input.js';
import { createReferenceScorer } from '../../test/support/reference-scorer.js';

export interface NaiveScorer {
  scoreAll(inputs: readonly ModelInput[]): Promise<number[]>;
  dispose(): Promise<void>;
}

export async function createNaiveScorer(modelPath: string): Promise<NaiveScorer> {
  const reference = await createReferenceScorer(modelPath);
  return {
    async scoreAll(inputs) {
      const logliks: number[] = [];
      for (const input of inputs) logliks.push((await reference.scoreTokens(input.inputTokens, input.continuationTokens)).loglik);
      return logliks;
    },
    dispose: () => reference.dispose(),
  };
}
