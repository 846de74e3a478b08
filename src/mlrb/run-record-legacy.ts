/**
 * Run records of versions 1 and 2, read in version 3's shape so readers handle one shape. What v3 added is filled
 * in from what the old record holds, never invented: `definition` is null (they did not record the source they
 * followed), gates are empty, every suite counts for completeness as all did then, and the headline source is
 * the entry it named (in v1 and v2 every headline's suite was named as its entry: mmlu, superglue,
 * blimp_filtered; math_reasoning's was ROUGE-L). An `eligible` that an old record drew from a DRAM estimate
 * (--skip-dram) is read as not_judged: an estimate never granted eligibility by the rules as written.
 */
import { z } from 'zod';
import { finding, modelMetricOutcomeFields, modelMetricsReportSchema, RUN_RECORD_SCHEMA, sharedRecordFields } from './run-record-parts.js';

const legacyHeadline = z.strictObject({
  label: z.string(),
  source: z.strictObject({ entry: z.string(), metric: z.string() }).nullable(),
  status: z.enum(['scored', 'partial', 'not_scored', 'unavailable']),
  value: z.number().nullable(),
  reasons: z.array(z.string()),
});
const legacyEligibility = z.strictObject({
  status: z.enum(['eligible', 'ineligible', 'unchecked']),
  rule: z.string(),
  reasons: z.array(finding),
  warnings: z.array(finding),
});
const legacySuite = z.strictObject({
  name: z.string(),
  status: z.enum(['scored', 'not_scored']),
  reason: z.string().nullable(),
  error_code: z.string().nullable(),
});
const legacyModelMetrics = z.strictObject({ metrics: z.array(z.strictObject(modelMetricOutcomeFields)), report: modelMetricsReportSchema.nullable() });

const legacyFields = {
  schema: z.literal(RUN_RECORD_SCHEMA),
  ...sharedRecordFields,
  headline: legacyHeadline,
  eligibility: legacyEligibility,
  suites: z.array(legacySuite),
};

type LegacyRecord = z.output<z.ZodObject<typeof legacyFields>> & { readonly model_metrics: z.output<typeof legacyModelMetrics> | null };

/** The DRAM check of a stored track report, as far as this needs it. */
const storedDram = z.looseObject({ checks: z.looseObject({ dram: z.looseObject({ basis: z.string(), measurementError: z.unknown().nullable() }) }) });

function upgrade<Version extends 1 | 2>(record: LegacyRecord, version: Version) {
  const source = record.headline.source;
  const dram = storedDram.safeParse(record.track_check);
  const estimated = dram.success && dram.data.checks.dram.basis === 'estimate' && dram.data.checks.dram.measurementError == null;
  const eligibility =
    record.eligibility.status === 'eligible' && estimated
      ? {
          ...record.eligibility,
          status: 'not_judged' as const,
          reasons: [
            ...record.eligibility.reasons,
            { check: 'dram', message: 'DRAM was not measured (--skip-dram); read as not judged: an estimate grants no eligibility' },
          ],
        }
      : record.eligibility;
  return {
    ...record,
    schema_version: version,
    definition: null,
    headline: {
      ...record.headline,
      source:
        source !== null
          ? { kind: 'lm_eval' as const, suite: source.entry, entry: source.entry, metric: source.metric }
          : record.task === 'math_reasoning' && !record.mini
            ? { kind: 'math_reasoning' as const, metric: 'rouge_l' as const }
            : null,
    },
    eligibility: { ...eligibility, gates: [] },
    suites: record.suites.map((suite) => ({ ...suite, role: 'headline' as const, fetch: null })),
    model_metrics:
      record.model_metrics === null ? null : { ...record.model_metrics, metrics: record.model_metrics.metrics.map((metric) => ({ ...metric, fetch: null })) },
  };
}

/** Version 2: before definition, gates, suite roles and fetch hints. */
export const runRecordV2Schema = z
  .strictObject({ ...legacyFields, schema_version: z.literal(2), model_metrics: legacyModelMetrics.nullable() })
  .transform((record) => upgrade(record, 2));

/** Version 1: also before model_metrics. */
export const runRecordV1Schema = z
  .strictObject({ ...legacyFields, schema_version: z.literal(1), model_metrics: z.null().default(null) })
  .transform((record) => upgrade(record, 1));

/**
 * What a JSON value that is not a run record of a version read here is, in words; null when it claims to be
 * one (the schema then names each problem). A results file or a shard handed to a reader of records would
 * otherwise be described by the first field the schema misses.
 */
export function foreignJsonReason(value: unknown, readVersions: readonly number[]): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `it is a JSON ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}, not an object`;
  const fields = value as Record<string, unknown>;
  if (fields.schema === RUN_RECORD_SCHEMA) {
    return readVersions.includes(fields.schema_version as number)
      ? null
      : `its schema_version is ${JSON.stringify(fields.schema_version)}, which this version does not read`;
  }
  if (typeof fields.schema === 'string') return `its schema is ${JSON.stringify(fields.schema)}`;
  if (typeof fields.format === 'string') return `it is a ${JSON.stringify(fields.format)} file`;
  if ('results' in fields && 'config' in fields)
    return 'it is an lm-eval results file (mlrb-eval MODEL --output); run records are written by mlrb-eval mlrb TASK MODEL --output';
  return 'it has no "schema" field';
}
