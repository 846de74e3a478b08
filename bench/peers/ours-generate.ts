/**
 * The generation bench's slot for our engine: a factory from a model (both graphs: noPastPath, kvPath) and
 * a cache mode to a GreedyDecoder, e.g. `greedyDecoderOf(textGenerator, dispose)`; undefined for a mode the
 * engine lacks. Undefined here until the engine is merged: the bench then reports ours as not wired in.
 */
import type { OurDecoderFactory } from '../parts/generation.bench-part.js';

export const createOurDecoder: OurDecoderFactory | undefined = undefined;
