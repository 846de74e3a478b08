/**
 * generate(): prompt texts in, generations out, the model loaded and released around the call. For repeated
 * calls on one model, loadModel() + createTextGenerator() keep the session.
 */
import { parseGenerateOptions, type GenerateOptions } from './generate-options.js';
import { loadModel } from '../model/onnx-model.js';
import { generationLoadOptions } from './load-options.js';
import { checkPromptLength } from './text-bounds.js';
import { createTextGenerator } from './text-generator.js';
import type { Generation } from './types.js';

export interface GenerateResult {
  readonly generations: Generation[];
  /** The graph's KV cache was used (else every new token reran the whole sequence). */
  readonly usedKvCache: boolean;
  /** Wall time of the generation itself, model loading excluded. */
  readonly seconds: number;
}

export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const resolved = parseGenerateOptions(options);
  resolved.prompts.forEach((text, index) => checkPromptLength(text, `prompt ${index}`, { prompt: index }));
  const model = await loadModel(generationLoadOptions(resolved.model, resolved));
  try {
    const tokenizer = model.requireTokenizer();
    const prompts = resolved.prompts.map((text) => (resolved.addSpecialTokens ? tokenizer.encodeWithSpecialTokens(text) : tokenizer.encode(text)));
    const warn = resolved.onWarning ?? resolved.onLog ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
    const generator = createTextGenerator(model, { batchSize: resolved.batchSize, onWarning: warn });
    const started = performance.now();
    const generations = await generator.generate(
      prompts,
      {
        maxNewTokens: resolved.maxNewTokens,
        stopStrings: resolved.stopStrings,
        ...(resolved.eosTokenIds !== undefined ? { eosTokenIds: resolved.eosTokenIds } : {}),
        ...(resolved.sampling !== undefined ? { sampling: resolved.sampling } : {}),
      },
      resolved.onProgress,
    );
    return { generations, usedKvCache: model.decodesWithKvCache, seconds: (performance.now() - started) / 1000 };
  } finally {
    model.dispose();
  }
}
