/**
 * The options of evaluate(), parsed once at the entry with zod. The CLI maps its flags onto the same schema,
 * so library and CLI reject the same mistakes with the same messages.
 */
import { z } from 'zod';
import type { ScoreProgress } from '../engine/score-requests.js';
import { PROVIDER_CHOICES } from '../model/execution-provider.js';
import { REWRITE_NAMES, type RewriteName, type RewriteSwitches } from '../native/binding.js';
import { DEFAULT_LM_EVAL_VERSION, LM_EVAL_VERSIONS } from '../eval/lm-eval-version.js';

const positiveInt = z.number().int().positive();

/**
 * options.rewrites: a boolean per load-time rewrite, by the names the addon runs (src/native/binding.ts
 * REWRITE_NAMES, which loading the addon holds equal to its own list, so checking options needs no addon); a name
 * outside the list is refused with the valid ones listed.
 */
const rewriteSwitchesSchema = rewriteSwitchesFor(REWRITE_NAMES) satisfies z.ZodType<RewriteSwitches>;

function rewriteSwitchesFor(names: readonly RewriteName[]) {
  const switches = Object.fromEntries(names.map((name) => [name, z.boolean().optional()])) as Record<RewriteName, z.ZodOptional<z.ZodBoolean>>;
  return z.strictObject(switches, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `${issue.keys.join(', ')}: not a rewrite; the rewrites are ${names.join(', ')}` : undefined),
  });
}

export const evaluateOptionsSchema = z
  .strictObject({
    /** Path to model.onnx, or the folder holding it (its model.onnx, else its only .onnx file). */
    model: z.string().min(1),
    /**
     * Suite, or lm-eval task, group and tag names (`mmlu`, `mmlu_anatomy`, `mmlu_stem`, `blimp_adjunct_island`,
     * `super-glue-lm-eval-v1`, `boolq` …), separated by commas.
     */
    suite: z.string().min(1),
    /** The suite's data folder, or a folder holding one sub-folder per suite. */
    dataDir: z.string().min(1),
    tokenizer: z.string().min(1).optional(),
    /** Hugging Face config.json (max length, BOS/EOS ids); default: the one beside the model. */
    config: z.string().min(1).optional(),
    /** lm-eval's --num_fewshot; absent: each task's YAML default (gsm8k 5, the rest 0). */
    numFewshot: z.number().int().nonnegative().optional(),
    /** lm-eval's --limit: a document count per task, or below 1 a fraction of each task's documents. */
    limit: z.number().positive().optional(),
    batchSize: z.union([z.literal('auto'), positiveInt]).default('auto'),
    /** Memory the auto batch size may plan for, in bytes. */
    memoryBudgetBytes: positiveInt.optional(),
    maxLength: positiveInt.optional(),
    threads: z.number().int().nonnegative().optional(),
    /** cpu, cuda, or auto (CUDA when it loads, else the CPU with a warning). */
    provider: z.enum(PROVIDER_CHOICES).default('cpu'),
    ortLibrary: z.string().min(1).optional(),
    /**
     * Load-time graph rewrites to turn off (README "Load-time graph rewrites"); each runs where the graph allows
     * it unless set false. What each did is in the results' `mlrb.rewrites`.
     */
    rewrites: rewriteSwitchesSchema.optional(),
    /**
     * Shorthand for rewrites.cpuFusion (CLI --no-cpu-fusion): fused attention kernels on the CPU, rounding as
     * ONNX Runtime's own kernels (same logliks, faster). false runs the attention nodes as exported.
     */
    cpuFusion: z.boolean().optional(),
    /**
     * Score a suite whose data folder lacks some subtasks (MMLU subjects, BLiMP paradigms, SuperGLUE tasks)
     * instead of failing with BAD_DATA; its groups are then `<group>_partial` and `mlrb.partial` lists the missing.
     */
    allowPartial: z.boolean().default(false),
    /**
     * Whose rules to follow: lm-eval v0.4.4–v0.4.8 (the default; MLRB's numbers) or v0.4.13 (today's release: the
     * tokenizer adds BOS to contexts where it adds one, and the results file has 0.4.13's layout).
     */
    lmEvalVersion: z.enum(LM_EVAL_VERSIONS).default(DEFAULT_LM_EVAL_VERSION),
    /**
     * Score only shard `index` of `count` (numbered from 0) with evaluateShard(); mergeShards() joins the shards
     * into the results of the unsharded run (src/run/shard.ts says which documents a shard gets).
     */
    shard: z
      .strictObject({ index: z.number().int().nonnegative(), count: positiveInt })
      .refine((shard) => shard.index < shard.count, { error: 'shard index must be below the shard count (shards are numbered from 0)' })
      .optional(),
    /** Keep per-document records (lm-eval's --log_samples). */
    logSamples: z.boolean().default(false),
    /**
     * Folder of the caches, tokenized requests and scores (default ~/.cache/mlrb-eval); false turns both off.
     * Scores are stored as each forward pass finishes, so a killed run resumes where it stopped.
     */
    cacheDir: z.union([z.string().min(1), z.literal(false)]).optional(),
    /** Bytes the score cache may hold (default 1 GiB); the least recently used models' scores go first. */
    scoreCacheMaxBytes: positiveInt.optional(),
    /** Receives what loading and planning decided (LM-head slicing, prefix reuse, cache hits). */
    onLog: z.custom<(message: string) => void>((value) => typeof value === 'function').optional(),
    /** Receives warnings (the 'auto' provider falling back to the CPU); default onLog, else stderr. */
    onWarning: z.custom<(message: string) => void>((value) => typeof value === 'function').optional(),
    onProgress: z.custom<(progress: ScoreProgress & { readonly label: string }) => void>((value) => typeof value === 'function').optional(),
  })
  .refine((options) => options.cpuFusion === undefined || options.rewrites?.cpuFusion === undefined || options.cpuFusion === options.rewrites.cpuFusion, {
    message: 'cpuFusion and rewrites.cpuFusion disagree; give one of them',
    path: ['cpuFusion'],
  });

/** The rewrites the options ask for, the cpuFusion shorthand folded in. */
export function requestedRewrites(options: ResolvedEvaluateOptions): RewriteSwitches | undefined {
  if (options.cpuFusion === undefined) return options.rewrites;
  return { ...options.rewrites, cpuFusion: options.cpuFusion };
}

export type EvaluateOptions = z.input<typeof evaluateOptionsSchema>;
export type ResolvedEvaluateOptions = z.output<typeof evaluateOptionsSchema>;

/** Bad options are a TypeError naming every problem, thrown before any work starts. */
export function parseEvaluateOptions(options: unknown): ResolvedEvaluateOptions {
  const parsed = evaluateOptionsSchema.safeParse(options);
  if (!parsed.success) throw new TypeError(`invalid evaluate options:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
