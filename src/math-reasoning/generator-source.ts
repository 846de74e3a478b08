/**
 * Where the CLI gets a TextGenerator for a model. The scoring code takes a generator and a prompt encoder as
 * values and never opens models itself; the commands take an `OpenTextGenerator` so the engine (built against
 * src/generate/types.ts) plugs in at one place, and tests hand in a deterministic fake.
 */
import { MlrbError } from '../errors.js';
import type { TextGenerator } from '../generate/types.js';
import type { ProviderChoice } from '../model/execution-provider.js';

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

export interface OpenGeneratorOptions {
  /** tokenizer.json, when it is not beside the model. */
  readonly tokenizer?: string;
  readonly provider?: ProviderChoice;
  readonly threads?: number;
  readonly ortLibrary?: string;
}

export type OpenTextGenerator = (model: string, options: OpenGeneratorOptions) => Promise<GenerationSession>;

/** The engine is not part of this build yet: asking for generation says so instead of pretending. */
export const openBuiltInGenerator: OpenTextGenerator = () =>
  Promise.reject(new MlrbError('UNSUPPORTED', 'text generation is not available in this build of mlrb-eval (its engine is not plugged in yet)'));
