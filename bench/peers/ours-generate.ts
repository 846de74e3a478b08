/**
 * The generation bench's slot for our engine: mlrb-eval's TextGenerator (src/generate/) over the model's graph
 * with past (KV mode) or without (no-KV mode). Where the decodeCache rewrite applies, the fused attention keeps the
 * KV cache in both modes (the graph with past is fed an empty past); where it does not, KV mode feeds the presents
 * back as the past and no-KV mode recomputes the whole sequence per token. `rewrites` switches passes off. Every prompt of a
 * decode call goes into one native batch (the bench's prompts have one length).
 */
import { createTextGenerator } from '../../src/generate/text-generator.js';
import { loadModel } from '../../src/model/onnx-model.js';
import type { OurDecoderFactory } from '../parts/generation.bench-part.js';
import { greedyDecoderOf } from './greedy-decoder.js';

/** More than any batch the bench decodes, so a call is never split. */
const ONE_BATCH = 64;
/** ONNX Runtime's own default (a thread per core), as the peers run: loadModel's default is 1 per pass. */
const ORT_DEFAULT_THREADS = 0;

export const createOurDecoder: OurDecoderFactory = async (model, cache, threads, rewrites) => {
  const path = cache === 'kv' ? model.kvPath : model.noPastPath;
  const loaded = await loadModel({ model: path, threads: threads ?? ORT_DEFAULT_THREADS, rewrites, onWarning: () => {} });
  const generator = createTextGenerator(loaded, { batchSize: ONE_BATCH });
  return greedyDecoderOf(generator, async () => loaded.dispose());
};
