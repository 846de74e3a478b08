/**
 * The pieces of the MLRB run record that every version shares (run-record.ts holds the current version,
 * run-record-legacy.ts reads the older ones): the reports it embeds, the model, the run's facts.
 */
import { z } from 'zod';
import { MODEL_METRICS_SCHEMA, MODEL_METRICS_SCHEMA_VERSION } from '../model-metrics/model-metrics.js';
import { AGENT_EVAL_MODEL_METRICS, MLRB_TASK_NAMES } from './tasks.js';

export const RUN_RECORD_SCHEMA = 'mlrb-eval/mlrb-run';

export const finding = z.strictObject({ check: z.string(), message: z.string() });

/** What to fetch and where it goes, when data was not there (src/mlrb/data-fetch.ts). */
export const fetchSchema = z.strictObject({ what: z.string(), hub: z.string().nullable(), place: z.string(), command: z.string().nullable() });

/** The math-reasoning report (`mlrb-eval math-reasoning --output`'s JSON); its metrics are checked, the rest kept as written. */
export const mathReasoningSchema = z.looseObject({
  data_file: z.string(),
  problems_scored: z.number().int().nonnegative(),
  problems_in_file: z.number().int().nonnegative(),
  metrics: z.strictObject({
    rouge_l: z.number().min(0).max(1),
    // 0–100 on sacrebleu's scale, which a perfect match can overshoot by rounding (100.00000000000004).
    bleu: z.number().nonnegative(),
    lean: z
      .strictObject({
        compiled: z.number().int().nonnegative(),
        failed: z.number().int().nonnegative(),
        timed_out: z.number().int().nonnegative(),
        compile_rate: z.number().min(0).max(1),
      })
      .nullable(),
  }),
  problems: z.array(z.looseObject({ name: z.string(), rouge_l: z.number() })),
});

export const unavailableSchema = z.strictObject({ name: z.string(), kind: z.enum(['suite', 'metric']), reason: z.string() });

const summaryOf = <Keys extends string>(keys: readonly Keys[]) =>
  z.looseObject(Object.fromEntries(keys.map((key) => [key, z.number()])) as Record<Keys, z.ZodNumber>);
const STATISTICS = ['avg', 'median', 'min', 'max', 'p90', 'p95'] as const;

/**
 * The model-metrics report (`mlrb-eval model-metrics --output`'s JSON); the figures a reader takes from it are
 * checked, the rest (procedure parameters, each run's figure) kept as written.
 */
export const modelMetricsReportSchema = z.looseObject({
  schema: z.literal(MODEL_METRICS_SCHEMA),
  schema_version: z.literal(MODEL_METRICS_SCHEMA_VERSION),
  tokens_per_second: z.looseObject({ procedure: z.looseObject({}), runs: z.array(z.number()), summary: summaryOf([...STATISTICS, 'std']) }).nullable(),
  perplexity: z
    .looseObject({ procedure: z.looseObject({}), perplexity: z.number().positive(), mlrb: summaryOf(STATISTICS), data: z.looseObject({ dataset: z.string() }) })
    .nullable(),
  latency: z.looseObject({ procedure: z.looseObject({}), runs_ms: z.array(z.number()), ms_per_token: summaryOf(STATISTICS) }).nullable(),
});

/** One model metric the task runs: measured, or why not (and, where data was missing, what to fetch). */
export const modelMetricOutcomeFields = {
  name: z.enum(AGENT_EVAL_MODEL_METRICS),
  status: z.enum(['measured', 'not_measured']),
  /** The loader's message when the metric's data was not there. */
  reason: z.string().nullable(),
  error_code: z.string().nullable(),
};

export const modelSchema = z.strictObject({
  /** As the user named it. */
  path: z.string(),
  /** The .onnx file scored. */
  file: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Parameter count from the graph (agent-eval's parameters benchmark); null when the graph could not be read. */
  parameters: z.number().int().nonnegative().nullable(),
});

export const runSchema = z.strictObject({
  tool_version: z.string(),
  started_at: z.iso.datetime(),
  wall_time_s: z.number().nonnegative(),
  data_dir: z.string(),
  limit: z.number().positive().nullable(),
  num_fewshot: z.number().int().nonnegative(),
  allow_partial: z.boolean(),
  provider: z.string(),
  lm_eval_version: z.string(),
  /** Over every data file scored; null when nothing was scored. */
  data_fingerprint: z.string().nullable(),
});

/** The fields every version holds with the same shape. */
export const sharedRecordFields = {
  task: z.enum(MLRB_TASK_NAMES),
  mini: z.boolean(),
  /** MLRB's name for the task as run (`mini_mini_pile`). */
  mlrb_task: z.string(),
  /** Who produced the model (`--agent`); null when not given. */
  agent: z.string().nullable(),
  not_available: z.array(unavailableSchema),
  /** How the mini variant differs from the full task; null for the full task. */
  mini_note: z.string().nullable(),
  /** lm-eval's results object for the suites that were scored (as `mlrb-eval MODEL --tasks …` writes it); null when none was. */
  lm_eval: z.looseObject({ results: z.record(z.string(), z.record(z.string(), z.unknown())) }).nullable(),
  /**
   * math_reasoning's generation report (ROUGE-L, BLEU, Lean compile rate, each problem's output); null for
   * other tasks or when no generation ran. Records written before it existed have no such field and read as null.
   */
  math_reasoning: mathReasoningSchema.nullable().default(null),
  /** The edge track's full report (`check-track --json`); null for tasks without a track or when it could not run. */
  track_check: z.looseObject({ track: z.string(), verdict: z.looseObject({ status: z.string() }) }).nullable(),
  model: modelSchema,
  run: runSchema,
};
