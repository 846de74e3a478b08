/**
 * One MLRB run record: what `mlrb-eval mlrb TASK MODEL` writes. It is read back by tools that group runs by
 * task and agent (successful runs, mean over them, best run), so it is versioned and validated with zod on
 * both sides. A number appears only where it was scored on everything the headline needs; everything that
 * could not be scored is listed with its reason, never left out.
 */
import { z } from 'zod';
import { MODEL_METRICS_SCHEMA, MODEL_METRICS_SCHEMA_VERSION } from '../model-metrics/model-metrics.js';
import { AGENT_EVAL_MODEL_METRICS, MLRB_TASK_NAMES } from './tasks.js';

export const RUN_RECORD_SCHEMA = 'mlrb-eval/mlrb-run';
/**
 * Bumped on any change a reader must know about; readers refuse versions they do not know.
 * v2 added `model_metrics`; v1 records are still read (as records without model metrics).
 */
export const RUN_RECORD_SCHEMA_VERSION = 2;

const finding = z.strictObject({ check: z.string(), message: z.string() });

const headlineSchema = z.strictObject({
  label: z.string(),
  /**
   * Where the number sits in `lm_eval` (`groups.mmlu`, metric `acc,none`); null when it is not an lm-eval number
   * (math_reasoning's sits in the record's `math_reasoning.metrics`) or MLRB's metric does not exist here.
   */
  source: z.strictObject({ entry: z.string(), metric: z.string() }).nullable(),
  /**
   * scored: computed on all its data. partial: only part of its data was scored (a partial folder, or --limit),
   * so there is no headline; lm_eval holds the partial numbers. not_scored: the data was not there.
   * unavailable: mlrb-eval cannot compute this metric yet.
   */
  status: z.enum(['scored', 'partial', 'not_scored', 'unavailable']),
  /** Present exactly when status is `scored`. */
  value: z.number().nullable(),
  reasons: z.array(z.string()),
});

const eligibilitySchema = z.strictObject({
  /** eligible: the checks pass (warnings may remain); ineligible: a check fails; unchecked: nothing could judge it. */
  status: z.enum(['eligible', 'ineligible', 'unchecked']),
  /** Which rule decided: an edge track's verdict, or rules no model check can see. */
  rule: z.string(),
  reasons: z.array(finding),
  warnings: z.array(finding),
});

const suiteSchema = z.strictObject({
  name: z.string(),
  status: z.enum(['scored', 'not_scored']),
  /** Why it was not scored (the loader's message), or what of it was left out (a partial folder). */
  reason: z.string().nullable(),
  error_code: z.string().nullable(),
});

/** The math-reasoning report (`mlrb-eval math-reasoning --output`'s JSON); its metrics are checked, the rest kept as written. */
const mathReasoningSchema = z.looseObject({
  data_file: z.string(),
  problems_scored: z.number().int().nonnegative(),
  problems_in_file: z.number().int().nonnegative(),
  metrics: z.strictObject({
    rouge_l: z.number().min(0).max(1),
    // 0–100 on sacrebleu's scale, which a perfect match can overshoot by rounding (100.00000000000004).
    bleu: z.number().nonnegative(),
    lean: z
      .strictObject({ compiled: z.number().int().nonnegative(), failed: z.number().int().nonnegative(), timed_out: z.number().int().nonnegative(), compile_rate: z.number().min(0).max(1) })
      .nullable(),
  }),
  problems: z.array(z.looseObject({ name: z.string(), rouge_l: z.number() })),
});

const unavailableSchema = z.strictObject({ name: z.string(), kind: z.enum(['suite', 'metric']), reason: z.string() });

const summaryOf = <Keys extends string>(keys: readonly Keys[]) => z.looseObject(Object.fromEntries(keys.map((key) => [key, z.number()])) as Record<Keys, z.ZodNumber>);
const STATISTICS = ['avg', 'median', 'min', 'max', 'p90', 'p95'] as const;

/**
 * The model-metrics report (`mlrb-eval model-metrics --output`'s JSON); the figures a reader takes from it are
 * checked, the rest (procedure parameters, each run's figure) kept as written.
 */
const modelMetricsReportSchema = z.looseObject({
  schema: z.literal(MODEL_METRICS_SCHEMA),
  schema_version: z.literal(MODEL_METRICS_SCHEMA_VERSION),
  tokens_per_second: z.looseObject({ procedure: z.looseObject({}), runs: z.array(z.number()), summary: summaryOf([...STATISTICS, 'std']) }).nullable(),
  perplexity: z.looseObject({ procedure: z.looseObject({}), perplexity: z.number().positive(), mlrb: summaryOf(STATISTICS), data: z.looseObject({ dataset: z.string() }) }).nullable(),
  latency: z.looseObject({ procedure: z.looseObject({}), runs_ms: z.array(z.number()), ms_per_token: summaryOf(STATISTICS) }).nullable(),
});

const modelMetricsSchema = z.strictObject({
  /** Each model metric agent_eval's cli.py runs for the task, in its order: measured, or why not. */
  metrics: z.array(
    z.strictObject({
      name: z.enum(AGENT_EVAL_MODEL_METRICS),
      status: z.enum(['measured', 'not_measured']),
      /** The loader's message when the metric's data was not there. */
      reason: z.string().nullable(),
      error_code: z.string().nullable(),
    }),
  ),
  /** null when none of them could be measured. */
  report: modelMetricsReportSchema.nullable(),
});

const modelSchema = z.strictObject({
  /** As the user named it. */
  path: z.string(),
  /** The .onnx file scored. */
  file: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Parameter count from the graph (agent-eval's parameters benchmark); null when the graph could not be read. */
  parameters: z.number().int().nonnegative().nullable(),
});

const runSchema = z.strictObject({
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

/** What every version of the record holds; the versions differ in schema_version and model_metrics. */
const recordFields = {
  schema: z.literal(RUN_RECORD_SCHEMA),
  task: z.enum(MLRB_TASK_NAMES),
  mini: z.boolean(),
  /** MLRB's name for the task as run (`mini_mini_pile`). */
  mlrb_task: z.string(),
  /** Who produced the model (`--agent`); null when not given. */
  agent: z.string().nullable(),
  headline: headlineSchema,
  eligibility: eligibilitySchema,
  suites: z.array(suiteSchema),
  not_available: z.array(unavailableSchema),
  /** How the mini variant's prompt differs from the full task; null for the full task. */
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

/** The record this version writes. */
export const runRecordSchema = z.strictObject({
  ...recordFields,
  schema_version: z.literal(RUN_RECORD_SCHEMA_VERSION),
  /**
   * agent_eval's perplexity, tokens per second and latency (`--model-metrics`); null when the run did not measure
   * them (not_available then says how to).
   */
  model_metrics: modelMetricsSchema.nullable(),
});

/** Records written before model_metrics existed: read as records that did not measure them. */
const runRecordV1Schema = z.strictObject({ ...recordFields, schema_version: z.literal(1), model_metrics: z.null().default(null) });

const anyRunRecordSchema = z.discriminatedUnion('schema_version', [runRecordSchema, runRecordV1Schema]);

/** A record as read back: this version's, or a v1 one (schema_version 1, model_metrics null). */
export type RunRecord = z.output<typeof anyRunRecordSchema>;
export type ModelMetricsSection = NonNullable<RunRecord['model_metrics']>;
export type Headline = RunRecord['headline'];
export type Eligibility = RunRecord['eligibility'];
export type SuiteOutcome = RunRecord['suites'][number];

/** Validates a record read back from JSON, of any version still read; a TypeError names every problem. */
export function parseRunRecord(value: unknown): RunRecord {
  const expected = `not an MLRB run record (schema ${RUN_RECORD_SCHEMA} v1 or v${RUN_RECORD_SCHEMA_VERSION})`;
  const foreign = foreignJsonReason(value);
  if (foreign !== null) throw new TypeError(`${expected}: ${foreign}`);
  const parsed = anyRunRecordSchema.safeParse(value);
  if (!parsed.success) throw new TypeError(`${expected}:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

const READ_VERSIONS = [1, RUN_RECORD_SCHEMA_VERSION];

/**
 * What a JSON value that is not a run record of a version read here is, in words; null when it claims to be
 * one (the schema then names each problem). A results file or a shard handed to a reader of records would
 * otherwise be described by the first field the schema misses.
 */
function foreignJsonReason(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `it is a JSON ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}, not an object`;
  const fields = value as Record<string, unknown>;
  if (fields.schema === RUN_RECORD_SCHEMA) {
    return READ_VERSIONS.includes(fields.schema_version as number) ? null : `its schema_version is ${JSON.stringify(fields.schema_version)}, which this version does not read`;
  }
  if (typeof fields.schema === 'string') return `its schema is ${JSON.stringify(fields.schema)}`;
  if (typeof fields.format === 'string') return `it is a ${JSON.stringify(fields.format)} file`;
  if ('results' in fields && 'config' in fields) return 'it is an lm-eval results file (mlrb-eval MODEL --output); run records are written by mlrb-eval mlrb TASK MODEL --output';
  return 'it has no "schema" field';
}
