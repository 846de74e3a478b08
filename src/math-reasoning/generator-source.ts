/**
 * Where the CLI gets a TextGenerator for a model. The scoring code takes a generator and a prompt encoder as
 * values and never opens models itself; the commands take an `OpenTextGenerator` so the engine (built against
 * src/generate/types.ts) plugs in at one place, and tests hand in a deterministic fake.
 */
import { builtInEngine } from '../generate/built-in-engine.js';
import { generationLoadOptions } from '../generate/load-options.js';
import type { TextGenerator } from '../generate/types.js';
import type { ProviderChoice } from '../model/execution-provider.js';
import { loadModel } from '../model/onnx-model.js';

/** How prompts become token ids: the model's tokenizer with its special tokens, as Hugging Face's encode() does. */
export interface PromptEncoder {
  encodeWithSpecialTokens(text: string): number[];
}

export interface GenerationSession {
  readonly generator: TextGenerator;
  readonly encoder: PromptEncoder;
  /** Frees the model; called once, after the last generation. */
  close(): Promise<void>;
}

/** How the model is loaded: a part of generate()'s loading options (src/generate/load-options.ts). */
export interface OpenGeneratorOptions {
  /** tokenizer.json, when it is not beside the model. */
  readonly tokenizer?: string;
  readonly provider?: ProviderChoice;
  readonly threads?: number;
  readonly ortLibrary?: string;
}

export type OpenTextGenerator = (model: string, options: OpenGeneratorOptions) => Promise<GenerationSession>;

/** The built-in engine (src/generate/built-in-engine.ts) over the model loaded from its path. */
export const openBuiltInGenerator: OpenTextGenerator = async (model, options) => {
  const loaded = await loadModel(generationLoadOptions(model, options));
  try {
    const { generator, tokenizer } = builtInEngine(loaded);
    return { generator, encoder: tokenizer, close: async () => loaded.dispose() };
  } catch (error) {
    loaded.dispose();
    throw error;
  }
};
