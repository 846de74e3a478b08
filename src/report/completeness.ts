/**
 * Whether a run's numbers cover all of their data. A run scored with `--limit`, on a folder that lacks
 * subtasks (`--allow-partial`: its groups become `<group>_partial`), or without some of its suites gives
 * numbers that are not the task's: an agent scored on an easy subset would look better than one scored on
 * everything. The report reads completeness here once, so every table and chart marks such runs the same way.
 */
import { z } from 'zod';
import { headlineValueProblem } from '../mlrb/headline-ranges.js';
import type { RunRecord } from '../mlrb/run-record.js';
import { PARTIAL_SUFFIX } from '../tasks/partial.js';

/** Why a run's data was incomplete, one reason per cause; empty for a run scored on all of its data. */
export function incompleteReasons(record: RunRecord): string[] {
  const reasons: string[] = [];
  if (record.run.limit !== null) reasons.push(`--limit ${record.run.limit}`);
  // An extra suite (scored beside the headline when its data is given) never makes a run incomplete.
  for (const suite of record.suites.filter((outcome) => outcome.role === 'headline')) {
    if (suite.status === 'not_scored') reasons.push(`${suite.name} not scored`);
    // A scored suite carries a reason only when it was scored partially (run-task.ts: `partial: without …`).
    else if (suite.reason !== null) reasons.push(`${suite.name} ${suite.reason}`);
  }
  const math = record.math_reasoning;
  if (math !== null && math.problems_scored < math.problems_in_file)
    reasons.push(`math_reasoning ${math.problems_scored} of ${math.problems_in_file} problems`);
  // A generated headline needs its problems, and the compile rate a Lean toolchain: without them it has no data.
  if (record.headline.source?.kind === 'math_reasoning') {
    if (math === null) reasons.push('math_reasoning problems not generated');
    else if (record.headline.source.metric === 'lean.compile_rate' && math.metrics.lean === null) reasons.push('math_reasoning not compiled (no Lean)');
  }
  return reasons;
}

/** True when the run's suite was scored on part of its data: some of its subtasks missing, or `--limit`. */
export function isSuitePartial(record: RunRecord, suiteName: (name: string) => boolean): boolean {
  return record.run.limit !== null || record.suites.some((suite) => suiteName(suite.name) && suite.status === 'scored' && suite.reason !== null);
}

const metricEntry = z.record(z.string(), z.unknown());

/**
 * The number a partial headline would have had, read from the partial data the record keeps: the headline's
 * lm-eval entry (as named under `--limit`, or `<entry>_partial`), or math_reasoning's report. Null for any
 * other headline status, or where the record holds no such number. It is never the task's score: the report
 * counts it only when asked (`--include-partial`) and marks it partial wherever it shows it.
 */
export function partialHeadlineValue(record: RunRecord): number | null {
  const { headline } = record;
  if (headline.status !== 'partial' || headline.source === null) return null;
  const value = partialSourceValue(record, headline.source);
  // Held to the headline's range as a scored number is (headline-ranges.ts): out of it, there is no number.
  return value !== null && headlineValueProblem({ status: 'scored', value, source: headline.source }) === undefined ? value : null;
}

function partialSourceValue(record: RunRecord, source: NonNullable<RunRecord['headline']['source']>): number | null {
  if (source.kind === 'math_reasoning') {
    const metrics = record.math_reasoning?.metrics;
    return (source.metric === 'rouge_l' ? metrics?.rouge_l : metrics?.lean?.compile_rate) ?? null;
  }
  const results = record.lm_eval?.results ?? {};
  for (const name of [source.entry, `${source.entry}${PARTIAL_SUFFIX}`]) {
    const entry = metricEntry.safeParse(results[name]);
    const value = entry.success ? entry.data[source.metric] : undefined;
    if (typeof value === 'number') return value;
  }
  return null;
}
