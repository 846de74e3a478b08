/**
 * What the generation bench times: one peer greedily continuing a batch of prompts. Every peer (ours,
 * transformers.js, the naive onnxruntime-node loops) is seen through this one shape, and the bench times
 * the calls from outside, so no peer reports its own figures.
 */
import type { TextGenerator } from '../../src/generate/types.js';

export interface GreedyDecoder {
  /**
   * Greedy ids for every prompt (one batch, all prompts of one length), exactly maxNewTokens each:
   * EOS does not stop a row, so every run decodes the same number of tokens.
   */
  decode(prompts: readonly (readonly number[])[], maxNewTokens: number): Promise<number[][]>;
  dispose(): Promise<void>;
}

/** Our engine behind the bench's shape: greedy (no sampling settings), no stop strings, no EOS id. */
export function greedyDecoderOf(generator: TextGenerator, dispose: () => Promise<void> = async () => {}): GreedyDecoder {
  return {
    async decode(prompts, maxNewTokens) {
      const generations = await generator.generate(prompts, { maxNewTokens, eosTokenIds: [] });
      return generations.map((generation) => Array.from(generation.tokenIds));
    },
    dispose,
  };
}
