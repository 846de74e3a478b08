/**
 * One run as the report sees it: the facts of a run record (`mlrb-eval mlrb … --output`) that the tables,
 * charts and CSV files show, read once. The record keeps lm-eval's results and the track check as loose
 * JSON; the few numbers taken from them are validated here with narrow schemas, so a record from another
 * tool version that lacks one simply shows no such number.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../errors.js';
import { readJsonFileUnder } from '../io/text-file.js';
import { parseRunRecord, type RunRecord } from '../mlrb/run-record.js';
import { PARTIAL_SUFFIX } from '../tasks/partial.js';
import { incompleteReasons, isSuitePartial, partialHeadlineValue } from './completeness.js';
import { dramConstraint, parameterConstraint, type ConstraintUse } from './constraints.js';
import { isSuccessfulRun } from './statistics.js';
import { MINI_PREFIX } from '../mlrb/tasks.js';

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
  /**
   * The task as mlrb-eval names it, `mini_` before a mini variant (`minipile`, `mini_minipile`): a mini task is a
   * task of its own in MLRB's tables. Not MLRB's spelling, whose full tasks `mini_pile` and `baby_lm` read as
   * mini variants.
   */
  readonly task: string;
  readonly agent: string;
  /** `agent #n`: the run's place among its task × agent runs (by start time), for chart axes. */
  readonly label: string;
  readonly headlineLabel: string;
  readonly headlineStatus: RunRecord['headline']['status'];
  readonly score: number | null;
  /** A partial headline's number from its partial data (never counted for an ineligible model); null otherwise. */
  readonly partialScore: number | null;
  readonly eligibility: RunRecord['eligibility']['status'];
  readonly successful: boolean;
  readonly parameters: number | null;
  /** Why not every suite was scored on all of its data, without --limit; empty for a complete run. */
  readonly incomplete: readonly string[];
  readonly dram: ConstraintUse | null;
  readonly parameterLimit: ConstraintUse | null;
  /** Accuracy by MMLU category label; empty when MMLU was not scored. */
  readonly mmluByCategory: ReadonlyMap<string, BreakdownScore>;
  /** BLiMP accuracy by field (syntax, morphology …), the unweighted mean over its paradigms; empty without BLiMP. */
  readonly blimpByField: ReadonlyMap<string, BreakdownScore>;
  /** agent_eval's model metrics; null where the run did not measure them (v1 records never did). */
  readonly modelMetrics: ReportModelMetrics | null;
  readonly startedAt: string;
  readonly modelSha256: string;
}

/** Every suite scored on all of its data, without --limit. */
export function isComplete(run: ReportRun): boolean {
  return run.incomplete.length === 0;
}

/** One bar of a breakdown: its accuracy, and whether it was scored on part of its data only. */
export interface BreakdownScore {
  readonly accuracy: number;
  readonly partial: boolean;
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

/**
 * Reads and validates every record; each failure is BAD_RECORD naming the file. The same run given twice is
 * refused: one file named twice (overlapping globs) or a copy of it would count twice among the agent's runs,
 * in its mean and its success rate. Two runs never write the same record (each has its own start time and
 * wall time), so equal content is the same run.
 */
export function readRunRecords(
  files: readonly string[],
  onRead?: (done: number, total: number) => void,
): { readonly file: string; readonly record: RunRecord }[] {
  const fileByContent = new Map<string, string>();
  return files.map((file, index) => {
    const json = readRecordJson(file);
    const content = createHash('sha256').update(JSON.stringify(json)).digest('hex');
    const earlier = fileByContent.get(content);
    if (earlier !== undefined) {
      throw new MlrbError('BAD_RECORD', `${file}: the same run as ${earlier} (the file given twice, or a copy of it); each run counts once`, {
        file,
        sameAs: earlier,
      });
    }
    fileByContent.set(content, file);
    const record = parseRecordOf(file, json);
    onRead?.(index + 1, files.length);
    return { file, record };
  });
}

function readRecordJson(file: string): unknown {
  return readJsonFileUnder(file, { kind: 'record', root: path.dirname(path.resolve(file)), what: 'MLRB run record' });
}

function parseRecordOf(file: string, json: unknown): RunRecord {
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
    const task = `${record.mini ? MINI_PREFIX : ''}${record.task}`;
    const key = `${task}\u0000${agent}`;
    const number = (counts.get(key) ?? 0) + 1;
    counts.set(key, number);
    const incomplete = incompleteReasons(record);
    return {
      file,
      task,
      agent,
      label: `${agent} #${number}`,
      headlineLabel: record.headline.label,
      headlineStatus: record.headline.status,
      score: record.headline.value,
      partialScore: partialHeadlineValue(record),
      eligibility: record.eligibility.status,
      successful: isSuccessfulRun(record),
      parameters: record.model.parameters,
      incomplete,
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

/** An accuracy outside [0, 1] is no accuracy: such an entry shows no bar. */
const accuracyEntry = z.looseObject({ 'acc,none': z.number().min(0).max(1) });

/**
 * A category that lost subjects is `<category>_partial` (src/tasks/partial.ts) and is read as partial; under
 * --limit every category keeps its name and is partial too.
 */
function mmluByCategory(record: RunRecord): Map<string, BreakdownScore> {
  const results = record.lm_eval?.results ?? {};
  const limited = record.run.limit !== null;
  const byCategory = new Map<string, BreakdownScore>();
  for (const { entry, label } of MMLU_CATEGORIES) {
    const whole = accuracyEntry.safeParse(results[entry]);
    const partial = accuracyEntry.safeParse(results[`${entry}${PARTIAL_SUFFIX}`]);
    if (whole.success) byCategory.set(label, { accuracy: whole.data['acc,none'], partial: limited });
    else if (partial.success) byCategory.set(label, { accuracy: partial.data['acc,none'], partial: true });
  }
  return byCategory;
}

/** `lm_eval.mlrb.breakdowns.field`: what `--show-breakdowns` prints for BLiMP (src/run/run-results.ts). */
const blimpBreakdowns = z.looseObject({
  mlrb: z.looseObject({ breakdowns: z.looseObject({ field: z.record(z.string(), accuracyEntry) }) }),
});

/**
 * The breakdown is over the paradigms scored, and the record does not say which field a missing paradigm
 * belonged to: every field of a run whose BLiMP suites lacked paradigms (or ran under --limit) is partial.
 */
function blimpByField(record: RunRecord): Map<string, BreakdownScore> {
  const parsed = blimpBreakdowns.safeParse(record.lm_eval);
  if (!parsed.success) return new Map();
  const partial = isSuitePartial(record, (suite) => suite.startsWith('blimp'));
  return new Map(Object.entries(parsed.data.mlrb.breakdowns.field).map(([field, entry]) => [field, { accuracy: entry['acc,none'], partial }]));
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
