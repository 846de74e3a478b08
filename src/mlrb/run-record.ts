/**
 * One MLRB run record: what `mlrb-eval mlrb TASK MODEL` writes. It is read back by tools that group runs by
 * task and agent (successful runs, mean over them, best run), so it is versioned and validated with zod on
 * both sides. A number appears only where it was scored on everything the headline needs; everything that
 * could not be scored is listed with its reason, never left out.
 */
import { z } from 'zod';
import { MLRB_TASK_NAMES } from './tasks.js';

export const RUN_RECORD_SCHEMA = 'mlrb-eval/mlrb-run';
/** Bumped on any change a reader must know about; readers refuse versions they do not know. */
export const RUN_RECORD_SCHEMA_VERSION = 1;

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

export const runRecordSchema = z.strictObject({
  schema: z.literal(RUN_RECORD_SCHEMA),
  schema_version: z.literal(RUN_RECORD_SCHEMA_VERSION),
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
});

export type RunRecord = z.output<typeof runRecordSchema>;
export type Headline = RunRecord['headline'];
export type Eligibility = RunRecord['eligibility'];
export type SuiteOutcome = RunRecord['suites'][number];

/** Validates a record read back from JSON; a TypeError names every problem. */
export function parseRunRecord(value: unknown): RunRecord {
  const parsed = runRecordSchema.safeParse(value);
  if (!parsed.success) throw new TypeError(`not an MLRB run record (schema ${RUN_RECORD_SCHEMA} v${RUN_RECORD_SCHEMA_VERSION}):\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
