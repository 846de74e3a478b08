/**
 * The options of modelMetrics(), parsed once at the entry with zod; the CLI (`mlrb-eval model-metrics`) maps
 * its flags onto the same schema. Defaults are MLRB's procedure (src/model-metrics/); changing a count or the
 * max length gives a measurement that is no longer MLRB's, and the output says which parameters were used.
 */
import { z } from 'zod';
import type { ScoreProgress } from '../engine/score-requests.js';
import { PROVIDER_CHOICES } from '../model/execution-provider.js';
import type { LanguageModel } from '../model/onnx-model.js';
import { MLRB_LATENCY_RUNS, MLRB_MAX_LENGTH, MLRB_TOKENS_PER_SECOND_RUNS, type GenerationSubject } from './generation-timing.js';

export const MODEL_METRIC_NAMES = ['perplexity', 'tokens-per-second', 'latency'] as const;
export type ModelMetricName = (typeof MODEL_METRIC_NAMES)[number];

/**
 * Makes the generator the timing metrics run (the generation engine, given the loaded model); called once, only
 * when a generation metric is asked for.
 */
export type GenerationSubjectFactory = (model: LanguageModel) => Promise<GenerationSubject>;

export type ModelMetricsProgress =
  /** Before the text is tokenized in one piece (seconds for WikiText-2 with a small-vocabulary tokenizer). */
  | { readonly metric: 'perplexity'; readonly tokenizing: { readonly characters: number } }
  | { readonly metric: 'perplexity'; readonly scoring: ScoreProgress }
  | { readonly metric: 'tokens-per-second' | 'latency'; readonly phase: 'warmup' | 'timed'; readonly index: number; readonly total: number };

const count = z.number().int().nonnegative();
const positiveInt = z.number().int().positive();
const runCounts = (defaults: { readonly warmupRuns: number; readonly timedRuns: number }) =>
  z.strictObject({ warmupRuns: count.default(defaults.warmupRuns), timedRuns: positiveInt.default(defaults.timedRuns) }).default({ ...defaults });

export const modelMetricsOptionsSchema = z
  .strictObject({
    /** Path to model.onnx, or the folder holding it. */
    model: z.string().min(1),
    /** Where WikiText-2 raw test is (its folder, a hub download, or a hub cache); default the hub cache. */
    dataDir: z.string().min(1).optional(),
    /** A text file in wiki.test.raw's layout, measured instead of WikiText-2. */
    textFile: z.string().min(1).optional(),
    /** Which metrics, in any order; default all three. */
    metrics: z
      .array(z.enum(MODEL_METRIC_NAMES))
      .min(1)
      .default([...MODEL_METRIC_NAMES]),
    tokensPerSecond: runCounts(MLRB_TOKENS_PER_SECOND_RUNS),
    latency: runCounts(MLRB_LATENCY_RUNS),
    /** Prompt + new tokens at most, as transformers' max_length (MLRB: 200). */
    maxLength: positiveInt.default(MLRB_MAX_LENGTH),
    /** Timed-metric run i samples with seed + i. */
    seed: count.default(0),
    tokenizer: z.string().min(1).optional(),
    config: z.string().min(1).optional(),
    threads: count.optional(),
    provider: z.enum(PROVIDER_CHOICES).default('cpu'),
    ortLibrary: z.string().min(1).optional(),
    batchSize: z.union([z.literal('auto'), positiveInt]).default('auto'),
    /** The text generator for tokens-per-second and latency; default the built-in engine over the loaded model. */
    generation: z.custom<GenerationSubjectFactory>((value) => typeof value === 'function').optional(),
    onProgress: z.custom<(progress: ModelMetricsProgress) => void>((value) => typeof value === 'function').optional(),
    onWarning: z.custom<(message: string) => void>((value) => typeof value === 'function').optional(),
  })
  .refine((options) => options.dataDir === undefined || options.textFile === undefined, { message: 'give dataDir or textFile, not both', path: ['textFile'] });

export type ModelMetricsOptions = z.input<typeof modelMetricsOptionsSchema>;
export type ResolvedModelMetricsOptions = z.output<typeof modelMetricsOptionsSchema>;

/** Bad options are a TypeError naming every problem, thrown before any work starts. */
export function parseModelMetricsOptions(options: unknown): ResolvedModelMetricsOptions {
  const parsed = modelMetricsOptionsSchema.safeParse(options);
  if (!parsed.success) throw new TypeError(`invalid model-metrics options:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
