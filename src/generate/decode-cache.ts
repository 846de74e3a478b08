/**
 * Where generation keeps the keys and values of earlier positions (native/ort/generation_session.h):
 * - 'fused-attention': the decodeCache rewrite applied (native/graph/decode_cache.h): the fused attention nodes keep
 *   them, for a graph exported without past and for one with past alike (fed an empty past, its Concat(past, new)
 *   copies only the new keys). The graph takes one position offset per pass, so every row of a batch is fed the
 *   same positions and a longer prompt's extra tokens are staggered over passes (batch-plan.ts);
 * - 'past-inputs': the graph's own past_key_values inputs and present outputs (an encoder-decoder's decoder too);
 * - 'none': every new token reruns the whole sequence.
 */
import type { LanguageModel } from '../model/onnx-model.js';

export type DecodeCache = 'past-inputs' | 'fused-attention' | 'none';

export function decodeCacheOf(model: Pick<LanguageModel, 'backend' | 'decodesWithKvCache' | 'rewrites'>): DecodeCache {
  if (!model.decodesWithKvCache) return 'none';
  const fused = model.backend !== 'seq2seq' && model.rewrites.some((outcome) => outcome.name === 'decodeCache' && outcome.applied);
  return fused ? 'fused-attention' : 'past-inputs';
}
