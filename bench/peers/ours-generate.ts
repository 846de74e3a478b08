/**
 * The generation bench's slot for our engine: a factory from a model and a cache mode to a GreedyDecoder,
 * undefined for a mode the engine lacks. Both graphs are offered: model.kvPath (with past; config.json and
 * the tokenizer beside it, so mlrb-eval's loader finds them) and model.noPastPath. Wiring it in is, in
 * outline:
 *
 *   export const createOurDecoder: OurDecoderFactory = async (model, cache, threads) => {
 *     if (cache === 'no-kv') return undefined;               // or the engine's own no-cache mode
 *     const engine = await <load the engine>(model.kvPath, threads);
 *     return greedyDecoderOf(engine, () => <dispose the engine>);   // engine: a TextGenerator
 *   };
 *
 * Undefined until the engine is merged: the bench then reports ours as not wired in.
 */
import type { OurDecoderFactory } from '../parts/generation.bench-part.js';

export const createOurDecoder: OurDecoderFactory | undefined = undefined;
