/**
 * The flags several commands take, each declared once (src/cli/flag-table.ts): the same syntax and value
 * wherever it appears, so `--threads 0` means the same to every command. A command's own flags live in its file.
 */
import { z } from 'zod';
import { LM_EVAL_VERSIONS } from '../eval/lm-eval-version.js';
import { DRAM_PROVIDERS } from '../inspect/dram/probe-protocol.js';
import { parseByteSize } from '../inspect/units.js';
import { DEFAULT_LEAN_TIMEOUT_S, DEFAULT_MAX_NEW_TOKENS, DEFAULT_MAX_PROMPT_TOKENS } from '../math-reasoning/defaults.js';
import { PROVIDER_CHOICES } from '../model/execution-provider.js';
import { MLRB_LATENCY_RUNS } from '../model-metrics/generation-timing.js';
import { flag, sameAs, switchFlag } from './flag-table.js';

// ---- value schemas ----

/** A whole number ≥ 0, as digits only (`1e3`, `0x10` and ` 3` are mistakes, not numbers). */
export const wholeNumber = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, { error: (issue) => `--${name} expects a whole number, got ${JSON.stringify(issue.input)}` })
    .transform(Number)
    .refine(Number.isSafeInteger, `--${name} is too large`);

/** A count that must be at least 1 (tokens to generate, problems to read, timed runs). */
export const positiveCount = z
  .string()
  .regex(/^[1-9]\d*$/, { error: (issue) => `expected a whole number ≥ 1, got ${JSON.stringify(issue.input)}` })
  .transform(Number)
  .refine(Number.isSafeInteger, 'too large');

/** A path or name the command opens: an empty one is a mistake. */
const nonEmpty = z.string().min(1, 'expects a value').optional();

/** A byte size (`12GB`, `1.5GiB`, `1000000000`); the parser's message becomes the usage error. */
export const byteSize = z.string().transform((text, context) => {
  try {
    return parseByteSize(text);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

/** Seconds above 0 (a timeout). */
const seconds = (name: string) =>
  z
    .string()
    .regex(/^(\d+(\.\d*)?|\.\d+)$/, { error: (issue) => `--${name} expects seconds, got ${JSON.stringify(issue.input)}` })
    .transform(Number)
    .refine((value) => value > 0, `--${name} must be above 0`);

/**
 * lm-eval's `--limit`: a count of documents per task, or below 1 that fraction of each task. A negative or zero
 * value says so in those words (`--limit -3` used to be read as a flag, and the hint offered `--limit=-3`).
 */
const documentLimit = z.string().transform((text, context) => {
  const value = /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(value)) context.addIssue({ code: 'custom', message: `--limit expects a count or a fraction below 1, got ${JSON.stringify(text)}` });
  else if (value <= 0) context.addIssue({ code: 'custom', message: `--limit must be above 0 (a count of documents, or a fraction below 1), got ${text}` });
  return value;
});

/** lm-eval's `auto:N` re-tunes the batch size N times; our auto planner sizes every batch, so it means auto. */
const batchSize = z.union(
  [
    z.literal('auto').transform(() => ({ batchSize: 'auto' as const, lmEvalAuto: false })),
    z
      .string()
      .regex(/^auto:\d+$/)
      .transform(() => ({ batchSize: 'auto' as const, lmEvalAuto: true })),
    wholeNumber('batch-size').transform((size) => ({ batchSize: size, lmEvalAuto: false })),
  ],
  { error: (issue) => `--batch-size expects N, auto or auto:N, got ${JSON.stringify(issue.input)}` },
);

// ---- how every command reports ----

export const QUIET = switchFlag('quiet', 'no progress or notes on stderr: the results, warnings and errors only');
export const JSON_REPORT = switchFlag('json', 'print the report as JSON');
export const STRICT = switchFlag('strict', 'exit 1 when the verdict fails');
export const OUTPUT_FILE = flag({
  name: 'output',
  kind: 'string',
  value: nonEmpty,
  placeholder: 'FILE',
  help: 'write the report (JSON) there, atomically; default: print it to stdout',
});

// ---- the model and how it runs ----

export const TOKENIZER = flag({ name: 'tokenizer', kind: 'string', value: nonEmpty, placeholder: 'FILE', help: 'tokenizer.json (default: beside the model)' });
export const CONFIG = flag({ name: 'config', kind: 'string', value: nonEmpty, placeholder: 'FILE', help: 'config.json (default: beside the model)' });
export const ORT_LIBRARY = flag({
  name: 'ort-library',
  kind: 'string',
  value: nonEmpty,
  placeholder: 'FILE',
  help: 'another ONNX Runtime shared library (also $MLRB_ORT_LIBRARY)',
});
export const THREADS = flag({ name: 'threads', kind: 'string', value: wholeNumber('threads').optional(), placeholder: 'N', help: 'ONNX Runtime threads' });
export const PROVIDER = flag({
  name: 'provider',
  kind: 'string',
  value: z.enum(PROVIDER_CHOICES, { error: (issue) => `--provider expects ${PROVIDER_CHOICES.join(', ')}, got ${JSON.stringify(issue.input)}` }).optional(),
  placeholder: 'P',
  help: 'cpu (default), cuda, or auto (cuda when it loads, else cpu with a warning)',
});
export const NO_CPU_FUSION = switchFlag(
  'no-cpu-fusion',
  "run attention as the exported graph's separate nodes instead of the fused CPU kernel (same numbers, slower; for comparison)",
);
export const BATCH_SIZE = flag({
  name: 'batch-size',
  kind: 'string',
  value: batchSize.optional(),
  placeholder: 'N|auto',
  help: "rows per forward pass, or auto from a memory budget (default auto; lm-eval's auto:N means auto)",
});
export const MAX_LENGTH = flag({
  name: 'max-length',
  kind: 'string',
  value: wholeNumber('max-length').optional(),
  placeholder: 'N',
  help: "override the model's max length",
});
export const SEED = flag({ name: 'seed', kind: 'string', value: wholeNumber('seed').optional(), placeholder: 'S', help: 'the random seed (default 0)' });

// ---- lm-eval suites ----

export const LIMIT = flag({
  name: 'limit',
  kind: 'string',
  value: documentLimit.optional(),
  placeholder: 'N',
  help: 'first N documents of each task; below 1, that fraction of each task',
});
export const NUM_FEWSHOT = flag({
  name: 'num-fewshot',
  kind: 'string',
  value: wholeNumber('num-fewshot').optional(),
  placeholder: 'K',
  help: "few-shot examples per prompt (default: the task's own, 0 but gsm8k's 5)",
});
export const ALLOW_PARTIAL = switchFlag(
  'allow-partial',
  'score a data folder that lacks some subtasks (MMLU subjects, BLiMP paradigms, SuperGLUE tasks); groups are then named <group>_partial',
);
export const LM_EVAL_VERSION = flag({
  name: 'lm-eval-version',
  kind: 'string',
  value: z
    .enum(LM_EVAL_VERSIONS, { error: (issue) => `--lm-eval-version expects ${LM_EVAL_VERSIONS.join(' or ')}, got ${JSON.stringify(issue.input)}` })
    .optional(),
  placeholder: 'V',
  help:
    `whose rules to follow: ${LM_EVAL_VERSIONS[0]} (default; MLRB's numbers) or ${LM_EVAL_VERSIONS[1]} (today's lm-eval: BOS before ` +
    "contexts where the tokenizer adds one, and 0.4.13's results layout)",
});

// ---- the caches ----

export const CACHE_DIR = flag({
  name: 'cache-dir',
  kind: 'string',
  value: z.string().optional(),
  placeholder: 'DIR',
  help: "the caches' folder: tokenized requests and scores (default ~/.cache/mlrb-eval, or $MLRB_CACHE_DIR)",
});
/** lm-eval's name for the same folder. */
export const USE_CACHE = sameAs(CACHE_DIR, 'use-cache');
export const NO_CACHE = switchFlag('no-cache', 'read and write no cache (tokens or scores)');

// ---- edge tracks ----

export const BASE = flag({
  name: 'base',
  kind: 'string',
  value: nonEmpty,
  placeholder: 'BASE',
  help: "edge-compression: the base ONNX model or its config.json (default: Phi-2's config)",
});
export const DRAM_BUDGET = flag({
  name: 'dram-budget',
  kind: 'string',
  value: byteSize.optional(),
  placeholder: 'BYTES',
  help: "operator override of the track's DRAM limit (e.g. 8GB, 1.5GiB)",
});
export const SKIP_DRAM = switchFlag('skip-dram', 'do not measure DRAM: judge the estimate (the verdict then warns)');
/** Where a DRAM measurement runs; 'auto' is not offered: a measurement must say where it ran. */
export const DRAM_PROVIDER = flag({
  name: 'provider',
  kind: 'string',
  value: z.enum(DRAM_PROVIDERS, { error: (issue) => `--provider expects ${DRAM_PROVIDERS.join(', ')}, got ${JSON.stringify(issue.input)}` }).default('cpu'),
  placeholder: 'P',
  help: 'where DRAM is measured: cpu (default, peak RSS) or cuda (peak device memory)',
});
export const BF16 = flag({
  name: 'bf16',
  kind: 'string',
  value: z.enum(['warn', 'fail']).default('warn'),
  placeholder: 'warn|fail',
  help: 'what bfloat16 weights do to the verdict (default warn)',
});

// ---- math reasoning's generation ----

export const TEMPLATE = flag({
  name: 'template',
  kind: 'string',
  value: nonEmpty,
  placeholder: 'FILE',
  help: 'prompt template: {informal_statement}, {informal_proof}, {name}; {{ and }} for braces',
});
export const MAX_NEW_TOKENS = flag({
  name: 'max-new-tokens',
  kind: 'string',
  value: positiveCount.optional(),
  placeholder: 'N',
  help: `tokens generated per problem at most (default ${DEFAULT_MAX_NEW_TOKENS}); greedy decoding`,
});
export const MAX_PROMPT_TOKENS = flag({
  name: 'max-prompt-tokens',
  kind: 'string',
  value: positiveCount.optional(),
  placeholder: 'N',
  help: `prompts keep their first N tokens (default ${DEFAULT_MAX_PROMPT_TOKENS})`,
});
export const LEAN = flag({
  name: 'lean',
  kind: 'string',
  value: nonEmpty,
  placeholder: 'PATH',
  help: 'the lean or lake executable: compile each output (run in the current folder)',
});
export const LEAN_TIMEOUT = flag({
  name: 'lean-timeout',
  kind: 'string',
  value: seconds('lean-timeout').optional(),
  placeholder: 'S',
  help: `seconds per compile (default ${DEFAULT_LEAN_TIMEOUT_S})`,
});
export const NO_ROUGE_STEMMER = switchFlag('no-rouge-stemmer', "ROUGE-L without MLRB's Porter stemmer (rouge_score's use_stemmer=False)");

// ---- model metrics' timing ----

export const LATENCY_WARMUP = flag({
  name: 'latency-warmup',
  kind: 'string',
  value: wholeNumber('latency-warmup').optional(),
  placeholder: 'N',
  help: `latency warm-up runs (default ${MLRB_LATENCY_RUNS.warmupRuns})`,
});
export const LATENCY_RUNS = flag({
  name: 'latency-runs',
  kind: 'string',
  value: positiveCount.optional(),
  placeholder: 'N',
  help: `latency timed runs (default ${MLRB_LATENCY_RUNS.timedRuns})`,
});
