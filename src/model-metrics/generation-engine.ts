/**
 * Where `mlrb-eval model-metrics` gets its text generator for tokens per second and latency. The generation
 * engine (src/generate/) is being built against the TextGenerator contract; until it is connected here, the CLI
 * measures perplexity only and says why the timing metrics were left out. Connecting it is this one value:
 * a GenerationSubjectFactory that opens the engine for the loaded model and returns its generator with the
 * tokenizer's decode.
 */
import type { GenerationSubjectFactory } from '../config/model-metrics-options.js';

export const GENERATION_ENGINE: GenerationSubjectFactory | undefined = undefined;

export const NO_ENGINE_REASON = 'this build has no generation engine connected yet (src/model-metrics/generation-engine.ts)';
