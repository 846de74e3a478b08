/**
 * The options of generate(), parsed once at the entry with zod. The CLI's `generate` command maps its flags onto
 * the same schema, so library and CLI reject the same mistakes with the same messages.
 */
import { z } from 'zod';
import type { GenerationProgress } from './types.js';
import { PROVIDER_CHOICES } from '../model/execution-provider.js';

const positiveInt = z.number().int().positive();

export const generateOptionsSchema = z.strictObject({
  /** Path to model.onnx, or the folder holding it. */
  model: z.string().min(1),
  /** Prompt texts, encoded without special tokens unless addSpecialTokens. */
  prompts: z.array(z.string()).min(1),
  tokenizer: z.string().min(1).optional(),
  config: z.string().min(1).optional(),
  /** Run the tokenizer's post-processor on each prompt (a Llama-style template adds BOS). */
  addSpecialTokens: z.boolean().default(false),
  maxNewTokens: positiveInt.default(64),
  /** A generation stops once its text contains one; its text is cut before it. */
  stopStrings: z.array(z.string()).default([]),
  /** Default: the model's EOS id from config.json; [] never stops on a token. */
  eosTokenIds: z.array(z.number().int().nonnegative()).optional(),
  /** Absent: greedy decoding. */
  sampling: z
    .strictObject({
      temperature: z.number().positive().finite(),
      topK: z.number().int().nonnegative().default(0),
      seed: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    })
    .optional(),
  batchSize: positiveInt.default(8),
  maxLength: positiveInt.optional(),
  threads: z.number().int().nonnegative().optional(),
  provider: z.enum(PROVIDER_CHOICES).default('cpu'),
  ortLibrary: z.string().min(1).optional(),
  /** CPU attention fusion (default on; same tokens, faster). */
  cpuFusion: z.boolean().optional(),
  onLog: z.custom<(message: string) => void>((value) => typeof value === 'function').optional(),
  /** Receives warnings (no KV cache: every token recomputes the sequence; 'auto' falling back to the CPU). */
  onWarning: z.custom<(message: string) => void>((value) => typeof value === 'function').optional(),
  onProgress: z.custom<(progress: GenerationProgress) => void>((value) => typeof value === 'function').optional(),
});

export type GenerateOptions = z.input<typeof generateOptionsSchema>;
export type ResolvedGenerateOptions = z.output<typeof generateOptionsSchema>;

/** Bad options are a TypeError naming every problem, thrown before any work starts. */
export function parseGenerateOptions(options: unknown): ResolvedGenerateOptions {
  const parsed = generateOptionsSchema.safeParse(options);
  if (!parsed.success) throw new TypeError(`invalid generate options:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
