/**
 * The built-in engine as the commands that generate (model-metrics, math-reasoning, mlrb) take it: a
 * TextGenerator over a loaded model, with the two tokenizer calls those callers need. One place, so every
 * command generates through the same engine and tests swap it for a fake at one seam.
 */
import type { LanguageModel } from '../model/onnx-model.js';
import { createTextGenerator, type TextGeneratorOptions } from './text-generator.js';
import type { TextGenerator } from './types.js';

export interface EngineTokenizer {
  /** tokenizer.encode(text) with the post-processor's special tokens (BOS for Llama), as Hugging Face's encode(). */
  encodeWithSpecialTokens(text: string): number[];
  /** tokenizer.decode(ids, skip_special_tokens=True). */
  decode(ids: readonly number[]): string;
}

export interface BuiltInEngine {
  readonly generator: TextGenerator;
  readonly tokenizer: EngineTokenizer;
  /** The model is an encoder-decoder: prompts feed its encoder, and generations are the decoder's tokens alone. */
  readonly encoderDecoder: boolean;
}

/** Throws BAD_TOKENIZER when the model has no tokenizer: generation needs one to decode and to stop. */
export function builtInEngine(model: LanguageModel, options: TextGeneratorOptions = {}): BuiltInEngine {
  const tokenizer = model.requireTokenizer();
  return {
    generator: createTextGenerator(model, options),
    tokenizer: {
      encodeWithSpecialTokens: (text) => tokenizer.encodeWithSpecialTokens(text),
      decode: (ids) => tokenizer.decode(ids, { skipSpecialTokens: true }),
    },
    encoderDecoder: model.backend === 'seq2seq',
  };
}
