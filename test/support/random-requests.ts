/** Deterministic random token requests for comparing scorers. */
import type { ModelInput } from '../../src/engine/model-input.js';
import { mulberry32 } from './model-builders/tiny-causal-lm-weights.js';

/** The fixtures' PRNG, under the name tests use for request generation. */
export { mulberry32 as seededRandom };

/** Requests of varied lengths (so batches pad) with 1–4 continuation tokens, ids in [low, vocab). */
export function randomModelInputs(count: number, vocabSize: number, maxLength: number, seed: number, low = 0): ModelInput[] {
  const random = mulberry32(seed);
  const id = (): number => low + Math.floor(random() * (vocabSize - low));
  return Array.from({ length: count }, () => {
    const length = 1 + Math.floor(random() * maxLength);
    const continuationLength = Math.min(length, 1 + Math.floor(random() * 4));
    const all = Array.from({ length: length + 1 }, id);
    return { inputTokens: all.slice(0, length), continuationTokens: all.slice(length + 1 - continuationLength) };
  });
}
