/**
 * Where generation keeps the keys and values of earlier positions (native/ort/generation_session.h):
 * - 'past-inputs': the graph's own past_key_values inputs and present outputs (where the decodeCache rewrite
 *   applied, a batch of one prompt length is fed an empty past and the fused attention keeps the cache instead;
 *   mixed lengths decode through the presents);
 * - 'fused-attention': a graph exported without past whose fused attention nodes keep them (the decodeCache
 *   rewrite, native/graph/decode_cache.h); it takes one position offset per pass, so a batch holds prompts
 *   of one length;
 * - 'none': every new token reruns the whole sequence.
 */
import type { LanguageModel } from '../model/onnx-model.js';

export type DecodeCache = 'past-inputs' | 'fused-attention' | 'none';

export function decodeCacheOf(model: Pick<LanguageModel, 'backend' | 'supportsPrefix' | 'decodesWithKvCache'>): DecodeCache {
  if (!model.decodesWithKvCache) return 'none';
  return model.backend === 'seq2seq' || model.supportsPrefix ? 'past-inputs' : 'fused-attention';
}
