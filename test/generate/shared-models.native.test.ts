/**
 * Greedy generation on the real models in ../shared: stories260K (a real Llama exported without past: the fused attention keeps its KV cache) and
 * tiny-random-gpt2-past (ORT's transformer-exporter graph with stacked past_{i} inputs: the KV-cache path, left
 * padding included). The reference is the scoring path, which shares no code with generation: for every
 * generated token, one forward pass over the prompt and the tokens before it (batch 1, no past) must rank it first.
 */
import { describe, expect, it } from 'vitest';
import { createTextGenerator } from '../../src/generate/text-generator.js';
import { loadModel, type LanguageModel } from '../../src/model/onnx-model.js';
import { hasShared, sharedPaths } from '../support/shared-data.js';

/** For each generated token, whether the scoring path's argmax at its position is that token. */
async function scoringPathAgrees(model: LanguageModel, prompt: readonly number[], generated: readonly number[]): Promise<boolean[]> {
  const agrees: boolean[] = [];
  for (let k = 0; k < generated.length; k += 1) {
    // A packed row holds the model's input: its last position's logits score the target that follows it.
    const row = [...prompt, ...generated.slice(0, k)];
    const scores = await model.scoreBatch({
      tokens: Int32Array.from(row),
      rowOffsets: Int32Array.of(0, row.length),
      requestRows: Int32Array.of(0),
      targets: Int32Array.of(generated[k]!),
      targetOffsets: Int32Array.of(0, 1),
    });
    agrees.push(scores.greedy[0] === 1);
  }
  return agrees;
}

describe.skipIf(!hasShared)('greedy generation on the shared models', () => {
  it.each([
    [
      'stories260K (no past inputs, fused-attention cache)',
      sharedPaths.stories,
      [
        [1, 403, 407, 261, 378],
        [1, 365],
        [1, 403, 407, 261, 378, 139, 268, 260, 280],
      ],
      false,
    ],
    ['tiny-random-gpt2-past (stacked KV cache)', sharedPaths.gpt2Past, [[464, 329, 318, 257], [745], [40, 110, 257, 379, 290, 314, 588, 284, 11]], true],
  ] as const)('%s: every generated token is the scoring path argmax', async (_, file, prompts, usesCache) => {
    const model = await loadModel({ model: file, onLog: () => {} });
    try {
      expect(model.supportsPrefix).toBe(usesCache);
      const generations = await createTextGenerator(model, { batchSize: 3, onWarning: () => {} }).generate(prompts, { maxNewTokens: 12, eosTokenIds: [] });
      for (const [index, generation] of generations.entries()) {
        expect(generation.tokenIds).toHaveLength(12);
        expect(await scoringPathAgrees(model, prompts[index]!, [...generation.tokenIds])).toEqual(Array.from({ length: 12 }, () => true));
      }
    } finally {
      model.dispose();
    }
  });
});
