/**
 * One MLRB run record: what `mlrb-eval mlrb TASK MODEL` writes. It is read back by tools that group runs by
 * task and agent (successful runs, mean over them, best run), so it is versioned and validated with zod on
 * both sides. A number appears only where it was scored on everything the headline needs; everything that
 * could not be scored is listed with its reason and, where data was missing, what to fetch and where it goes.
 */
import { z } from 'zod';
import { MLRB_SOURCES, type MlrbSourceId } from './sources.js';
import { fetchSchema, finding, modelMetricOutcomeFields, modelMetricsReportSchema, RUN_RECORD_SCHEMA, sharedRecordFields } from './run-record-parts.js';
import { headlineValueProblem } from './headline-ranges.js';
import { foreignJsonReason, runRecordV1Schema, runRecordV2Schema } from './run-record-legacy.js';

export { RUN_RECORD_SCHEMA };
/**
 * Bumped on any change a reader must know about; readers refuse versions they do not know.
 * v2 added `model_metrics`; v3 added `definition` (the MLRB source followed), eligibility `gates` and
 * `not_judged`, suite `role` and `fetch`, and a headline `source` that names its suite or report. v1 and v2
 * records are still read, in v3's shape (run-record-legacy.ts).
 */
export const RUN_RECORD_SCHEMA_VERSION = 3;
const READ_VERSIONS = [1, 2, RUN_RECORD_SCHEMA_VERSION];

const SOURCE_IDS = Object.keys(MLRB_SOURCES) as [MlrbSourceId, ...MlrbSourceId[]];

export const headlineSchema = z
  .strictObject({
    label: z.string(),
    /**
     * Where the number comes from: a suite's entry and metric in `lm_eval` (`mmlu`, `groups.mmlu`, `acc,none`), or
     * the record's math_reasoning report (`lean.compile_rate`); null where MLRB defines no number (mini tasks).
     */
    source: z
      .discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('lm_eval'), suite: z.string(), entry: z.string(), metric: z.string() }),
        z.strictObject({ kind: z.literal('math_reasoning'), metric: z.enum(['lean.compile_rate', 'rouge_l']) }),
      ])
      .nullable(),
    /**
     * scored: computed on all its data. partial: only part of its data was scored (a partial folder, or --limit),
     * so there is no headline; lm_eval holds the partial numbers. not_scored: the data (or the Lean toolchain)
     * was not there. unavailable: there is no number to give (MLRB defines none for the mini tasks).
     */
    status: z.enum(['scored', 'partial', 'not_scored', 'unavailable']),
    /** Present exactly when status is `scored`, and within its metric's range (headline-ranges.ts). */
    value: z.number().nullable(),
    reasons: z.array(z.string()),
  })
  .superRefine((headline, context) => {
    const problem = headlineValueProblem(headline);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem, path: ['value'] });
  });

export const eligibilityGateSchema = z.strictObject({
  /** The track check's name (quantization, dram, pruning). */
  check: z.string(),
  /** pass / fail by its verdict; not_judged: nothing measured decided it (a DRAM estimate). */
  status: z.enum(['pass', 'fail', 'not_judged']),
  /** Why it was not judged, and how to judge it; null otherwise (the verdict's reasons say why a gate failed). */
  reason: z.string().nullable(),
});

export const eligibilitySchema = z.strictObject({
  /**
   * eligible: every gate measured and passed (warnings may remain); ineligible: a gate failed; not_judged: a
   * gate was not decided by a measurement (--skip-dram, a check that could not run), so the model is not
   * eligible; unchecked: the task's rules are about how the model was made, which no check can see.
   */
  status: z.enum(['eligible', 'ineligible', 'not_judged', 'unchecked']),
  /** Which rule decided: an edge track's verdict, or rules no model check can see. */
  rule: z.string(),
  /** The track's gates one by one; empty for tasks without a track, or when the track check did not run. */
  gates: z.array(eligibilityGateSchema),
  reasons: z.array(finding),
  warnings: z.array(finding),
});

export const suiteSchema = z.strictObject({
  name: z.string(),
  /** headline: the headline is computed from it; extra: reported beside it when its data is given. */
  role: z.enum(['headline', 'extra']),
  status: z.enum(['scored', 'not_scored']),
  /** Why it was not scored (the loader's message), or what of it was left out (a partial folder). */
  reason: z.string().nullable(),
  error_code: z.string().nullable(),
  /** When not scored: what to fetch and where it goes under --data. */
  fetch: fetchSchema.nullable(),
});

/** The source the run followed, where MLRB's sources disagree, and our deliberate differences from it. */
export const definitionSchema = z.strictObject({
  followed: z.strictObject({ source: z.enum(SOURCE_IDS), where: z.string(), at: z.string(), says: z.string() }),
  why: z.string(),
  differences: z.array(z.string()),
});

export const modelMetricsSchema = z.strictObject({
  /** Each model metric agent_eval's cli.py runs for the task, in its order: measured, or why not. */
  metrics: z.array(z.strictObject({ ...modelMetricOutcomeFields, fetch: fetchSchema.nullable() })),
  /** null when none of them could be measured. */
  report: modelMetricsReportSchema.nullable(),
});

/** The record this version writes. */
export const runRecordSchema = z.strictObject({
  schema: z.literal(RUN_RECORD_SCHEMA),
  schema_version: z.literal(RUN_RECORD_SCHEMA_VERSION),
  ...sharedRecordFields,
  definition: definitionSchema,
  headline: headlineSchema,
  eligibility: eligibilitySchema,
  suites: z.array(suiteSchema),
  /**
   * agent_eval's perplexity, tokens per second and latency; null when the run did not measure them (full tasks
   * without --model-metrics: not_available then says how to).
   */
  model_metrics: modelMetricsSchema.nullable(),
});

/** A record as this version writes it. */
export type CurrentRunRecord = z.output<typeof runRecordSchema>;
/**
 * A record as read back: this version's, or an older one in this version's shape (schema_version kept,
 * `definition` null: older versions did not record which source they followed).
 */
export type RunRecord = Omit<CurrentRunRecord, 'schema_version' | 'definition'> & {
  readonly schema_version: 1 | 2 | typeof RUN_RECORD_SCHEMA_VERSION;
  readonly definition: CurrentRunRecord['definition'] | null;
};
export type ModelMetricsSection = NonNullable<RunRecord['model_metrics']>;
export type Headline = RunRecord['headline'];
export type Eligibility = RunRecord['eligibility'];
export type EligibilityGate = Eligibility['gates'][number];
export type SuiteOutcome = RunRecord['suites'][number];

const anyRunRecordSchema = z.discriminatedUnion('schema_version', [runRecordSchema, runRecordV2Schema, runRecordV1Schema]);

/** Validates a record read back from JSON, of any version still read; a TypeError names every problem. */
export function parseRunRecord(value: unknown): RunRecord {
  const expected = `not an MLRB run record (schema ${RUN_RECORD_SCHEMA} v${READ_VERSIONS.join(', v')})`;
  const foreign = foreignJsonReason(value, READ_VERSIONS);
  if (foreign !== null) throw new TypeError(`${expected}: ${foreign}`);
  const parsed = anyRunRecordSchema.safeParse(value);
  if (!parsed.success) throw new TypeError(`${expected}:\n${z.prettifyError(parsed.error)}`);
  // Checked again in this version's shape: older versions' headlines are read with their own schema.
  const problem = headlineValueProblem(parsed.data.headline);
  if (problem !== undefined) throw new TypeError(`${expected}:\n✖ ${problem}\n  → at headline.value`);
  return parsed.data;
}
