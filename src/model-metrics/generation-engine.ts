/**
 * Where `mlrb-eval model-metrics` and modelMetrics() get their text generator for tokens per second and latency
 * by default: the built-in engine over the loaded model (src/generate/built-in-engine.ts). Tests pass a scripted
 * factory instead.
 */
import type { GenerationSubjectFactory } from './model-metrics-options.js';
import { builtInEngine } from '../generate/built-in-engine.js';

export const GENERATION_ENGINE: GenerationSubjectFactory = async (model) => builtInEngine(model, { batchSize: 1 });
