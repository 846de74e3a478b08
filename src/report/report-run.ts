/**
 * One run as the report sees it: the facts of a run record (`mlrb-eval mlrb … --output`) that the tables,
 * charts and CSV files show, read once. The record keeps lm-eval's results and the track check as loose
 * JSON; the few numbers taken from them are validated here with narrow schemas, so a record from another
 * tool version that lacks one simply shows no such number.
 */
import path from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../errors.js';
import { readJsonFileUnder } from '../io/text-file.js';
import { parseRunRecord, type RunRecord } from '../mlrb/run-record.js';
import { dramConstraint, parameterConstraint, type ConstraintUse } from './constraints.js';
import { isSuccessfulRun } from './statistics.js';

/** lm-eval's four MMLU categories, in its own order, with the labels its tables print. */
export const MMLU_CATEGORIES = [
  { entry: 'mmlu_stem', label: 'STEM' },
  { entry: 'mmlu_humanities', label: 'humanities' },
  { entry: 'mmlu_social_sciences', label: 'social sciences' },
  { entry: 'mmlu_other', label: 'other' },
] as const;

/** Records written without `--agent` are grouped under this name. */
export const UNNAMED_AGENT = '(no agent)';

export interface ReportRun {
  /** The record file as given on the command line. */
  readonly file: string;
  /** MLRB's task name as run (`mini_llm_merging`): a mini task is a task of its own in MLRB's tables. */
  readonly task: string;
  readonly agent: string;
  /** `agent #n`: the run's place among its task × agent runs (by start time), for chart axes. */
  readonly label: string;
  readonly headlineLabel: string;
  readonly headlineStatus: RunRecord['headline']['status'];
  readonly score: number | null;
  readonly eligibility: RunRecord['eligibility']['status'];
  readonly successful: boolean;
  readonly parameters: number | null;
  readonly dram: ConstraintUse | null;
  readonly parameterLimit: ConstraintUse | null;
  /** Accuracy by MMLU category label; empty when MMLU was not scored. */
  readonly mmluByCategory: ReadonlyMap<string, number>;
  /** BLiMP accuracy by field (syntax, morphology …), the unweighted mean over its paradigms; empty without BLiMP. */
  readonly blimpByField: ReadonlyMap<string, number>;
  /** agent_eval's model metrics; null where the run did not measure them (v1 records never did). */
  readonly modelMetrics: ReportModelMetrics | null;
  readonly startedAt: string;
  readonly modelSha256: string;
}

/** The headline figure of each model metric; null for one not measured. */
export interface ReportModelMetrics {
  /** exp(mean NLL over every scored token). */
  readonly perplexity: number | null;
  /** MLRB's perplexity: the mean of the running perplexities. */
  readonly perplexityMlrb: number | null;
  readonly tokensPerSecond: number | null;
  readonly latencyMsPerToken: number | null;
}

/** Reads and validates one record; every failure is BAD_RECORD naming the file. */
export function readRunRecord(file: string): RunRecord {
  const json = readJsonFileUnder(file, { kind: 'record', root: path.dirname(path.resolve(file)), what: 'MLRB run record' });
  try {
    return parseRunRecord(json);
  } catch (cause) {
    throw new MlrbError('BAD_RECORD', `${file}: ${(cause as Error).message}`, { file }, { cause });
  }
}

/** The report's view of records read from `files`, each labelled within its task × agent group. */
export function toReportRuns(records: readonly { readonly file: string; readonly record: RunRecord }[]): ReportRun[] {
  // Runs are numbered by start time (then file name), so `#1` is the agent's first run of the task.
  const ordered = [...records].sort((a, b) => a.record.run.started_at.localeCompare(b.record.run.started_at) || a.file.localeCompare(b.file));
  const counts = new Map<string, number>();
  return ordered.map(({ file, record }) => {
    const agent = record.agent ?? UNNAMED_AGENT;
    const key = `${record.mlrb_task}\u0000${agent}`;
    const number = (counts.get(key) ?? 0) + 1;
    counts.set(key, number);
    return {
      file,
      task: record.mlrb_task,
      agent,
      label: `${agent} #${number}`,
      headlineLabel: record.headline.label,
      headlineStatus: record.headline.status,
      score: record.headline.value,
      eligibility: record.eligibility.status,
      successful: isSuccessfulRun(record),
      parameters: record.model.parameters,
      dram: dramConstraint(record),
      parameterLimit: parameterConstraint(record),
      mmluByCategory: mmluByCategory(record),
      blimpByField: blimpByField(record),
      modelMetrics: modelMetricsOf(record),
      startedAt: record.run.started_at,
      modelSha256: record.model.sha256,
    };
  });
}

const accuracyEntry = z.looseObject({ 'acc,none': z.number() });

function mmluByCategory(record: RunRecord): Map<string, number> {
  const results = record.lm_eval?.results ?? {};
  const byCategory = new Map<string, number>();
  for (const { entry, label } of MMLU_CATEGORIES) {
    const parsed = accuracyEntry.safeParse(results[entry]);
    if (parsed.success) byCategory.set(label, parsed.data['acc,none']);
  }
  return byCategory;
}

/** `lm_eval.mlrb.breakdowns.field`: what `--show-breakdowns` prints for BLiMP (src/eval/run-results.ts). */
const blimpBreakdowns = z.looseObject({
  mlrb: z.looseObject({ breakdowns: z.looseObject({ field: z.record(z.string(), accuracyEntry) }) }),
});

function blimpByField(record: RunRecord): Map<string, number> {
  const parsed = blimpBreakdowns.safeParse(record.lm_eval);
  if (!parsed.success) return new Map();
  return new Map(Object.entries(parsed.data.mlrb.breakdowns.field).map(([field, entry]) => [field, entry['acc,none']]));
}

function modelMetricsOf(record: RunRecord): ReportModelMetrics | null {
  const report = record.model_metrics?.report;
  if (report === undefined || report === null) return null;
  return {
    perplexity: report.perplexity?.perplexity ?? null,
    perplexityMlrb: report.perplexity?.mlrb.avg ?? null,
    tokensPerSecond: report.tokens_per_second?.summary.avg ?? null,
    latencyMsPerToken: report.latency?.ms_per_token.avg ?? null,
  };
}
