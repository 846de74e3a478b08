/**
 * The generation contract: token-id prompts in, generated ids and their text out. The native core keeps the
 * tokens and the KV cache; only produced ids cross to JS, where stop strings are checked on the decoded text.
 * Task code (lm-eval's generate_until, MLRB's math reasoning and model metrics) depends on these types only,
 * never on how the engine decodes.
 */

/** Absent from GenerationSettings: greedy decoding (the argmax token at every step). */
export interface SamplingSettings {
  /** Logits are divided by it before the softmax; > 0. */
  readonly temperature: number;
  /** Sample among the k most likely tokens only; absent or 0: the whole vocabulary. */
  readonly topK?: number;
  /** The same seed, prompts and settings give the same tokens. */
  readonly seed: number;
}

export interface GenerationSettings {
  /** New tokens per prompt at most; >= 1. */
  readonly maxNewTokens: number;
  /**
   * A prompt's generation stops once its decoded text contains one of these; its text is cut before the
   * earliest occurrence (lm-eval's `until`). Empty strings are ignored.
   */
  readonly stopStrings?: readonly string[];
  /** Token ids that end a prompt's generation. Absent: the model's EOS id. [] never stops on a token. */
  readonly eosTokenIds?: readonly number[];
  readonly sampling?: SamplingSettings;
}

/** Why a prompt's generation ended. */
export type FinishReason = 'stop_string' | 'eos' | 'max_new_tokens';

export interface Generation {
  readonly promptTokenCount: number;
  /**
   * The generated ids, the EOS id that ended it included. A generation stopped by a stop string ends at the token
   * whose text completed it (as transformers' generate(stop_strings=…) ends), even where the engine decoded further.
   */
  readonly tokenIds: Int32Array;
  /** tokenIds decoded with special tokens skipped, cut before the earliest stop string. */
  readonly text: string;
  readonly finishReason: FinishReason;
}

export interface GenerationProgress {
  readonly finishedPrompts: number;
  readonly totalPrompts: number;
  readonly generatedTokens: number;
}

export interface TextGenerator {
  /**
   * Generates for every prompt (token ids, already encoded by the caller's rules) and returns one Generation
   * per prompt, in prompt order. Prompts longer than the model allows are refused (BAD_DATA) rather than cut:
   * truncation is the caller's rule.
   */
  generate(prompts: readonly (readonly number[])[], settings: GenerationSettings, onProgress?: (progress: GenerationProgress) => void): Promise<Generation[]>;
}
