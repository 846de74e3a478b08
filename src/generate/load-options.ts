/**
 * How the generation entries (generate(), and the built-in engine the CLI's generating commands open in
 * src/math-reasoning/generator-source.ts) load their model: the one place where their public options become
 * loadModel()'s, so a loading option added to them reaches the loader the same way from both.
 */
import type { ResolvedGenerateOptions } from './generate-options.js';
import type { LoadModelOptions } from '../model/onnx-model.js';

/** The options of generate() that say how the model is loaded; each entry takes these or some of them. */
export type GenerationLoadOptions = Partial<
  Pick<ResolvedGenerateOptions, 'tokenizer' | 'config' | 'maxLength' | 'threads' | 'provider' | 'ortLibrary' | 'cpuFusion' | 'onLog' | 'onWarning'>
>;

export function generationLoadOptions(model: string, options: GenerationLoadOptions): LoadModelOptions {
  return {
    model,
    tokenizer: options.tokenizer,
    config: options.config,
    maxLength: options.maxLength,
    threads: options.threads,
    provider: options.provider,
    ortLibrary: options.ortLibrary,
    cpuFusion: options.cpuFusion,
    onLog: options.onLog,
    onWarning: options.onWarning,
  };
}
