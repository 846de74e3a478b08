/**
 * MLRB's statistics per task and agent: how many runs succeeded out of all, the mean score over the counted
 * runs, and the best of them.
 *
 * A run is successful when it has a headline number (status `scored`), all of its data was scored (no --limit,
 * no missing suites or subtasks: completeness.ts, read from the record's run facts, not from the headline's own
 * status, which a record could claim for a --limit run) and its eligibility is `eligible`, or `unchecked` where no
 * check of a model file can judge the task's rules. An ineligible model, or one whose gates were not judged (a
 * DRAM estimate), would not be counted by MLRB, and a run without a headline has nothing to average; all of them
 * still count among all runs.
 *
 * A partial run (headline status `partial`: `--limit`, or a suite lacking subtasks) is not successful: its
 * number comes from part of the data, so an agent scored on an easy subset would outrank one scored on all of
 * it. Partial runs are counted, and said to be, only where asked (`includePartial`).
 */
import type { RunRecord } from '../mlrb/run-record.js';
import { incompleteReasons } from './completeness.js';

/** Eligibility statuses a successful run may have: an allow-list, so a status added later counts only when named here. */
const COUNTED_ELIGIBILITY: ReadonlySet<RunRecord['eligibility']['status']> = new Set(['eligible', 'unchecked']);

export function isSuccessfulRun(record: RunRecord): boolean {
  const scored = record.headline.status === 'scored' && record.headline.value !== null;
  return scored && incompleteReasons(record).length === 0 && COUNTED_ELIGIBILITY.has(record.eligibility.status);
}

/** What the statistics need of a run. */
export interface ScoredRun {
  readonly task: string;
  readonly agent: string;
  readonly label: string;
  /** The headline number; null unless the headline was scored on all of its data. */
  readonly score: number | null;
  readonly successful: boolean;
  /** A partial headline's number from the partial data; null for any other run (completeness.ts reads it). */
  readonly partialScore: number | null;
  readonly eligibility: RunRecord['eligibility']['status'];
}

export interface SummaryOptions {
  /** Count partial runs' numbers in mean and best (`--include-partial`); by default they are left out. */
  readonly includePartial: boolean;
}

export interface GroupSummary {
  readonly task: string;
  readonly agent: string;
  readonly runs: number;
  readonly successful: number;
  /** Runs with a partial number (model not ineligible), counted in mean and best or not. */
  readonly partial: number;
  /** The runs mean and best are over: the successful ones, plus the partial ones with includePartial. */
  readonly counted: number;
  /** Mean score over the counted runs; null when none was counted. */
  readonly mean: number | null;
  /** The counted run with the highest score (the first such run on a tie); null when none was counted. */
  readonly best: { readonly label: string; readonly score: number; readonly partial: boolean } | null;
}

/** One summary per task × agent that has runs, ordered by task, then agent. */
export function summarizeByTaskAndAgent(runs: readonly ScoredRun[], options: SummaryOptions): GroupSummary[] {
  const groups = new Map<string, ScoredRun[]>();
  for (const run of runs) {
    const key = JSON.stringify([run.task, run.agent]);
    const group = groups.get(key);
    if (group) group.push(run);
    else groups.set(key, [run]);
  }
  return [...groups.values()].map((group) => summarizeGroup(group, options)).sort((a, b) => compareText(a.task, b.task) || compareText(a.agent, b.agent));
}

/** A partial run that would count were it complete: it has a number and its model may be counted. */
function isCountablePartial(run: ScoredRun): run is ScoredRun & { readonly partialScore: number } {
  return run.partialScore !== null && COUNTED_ELIGIBILITY.has(run.eligibility);
}

/** The number a run counts with, and whether it is partial; null when it is not counted. */
function countedScore(run: ScoredRun, { includePartial }: SummaryOptions): { readonly score: number; readonly partial: boolean } | null {
  if (run.successful && run.score !== null) return { score: run.score, partial: false };
  if (includePartial && isCountablePartial(run)) return { score: run.partialScore, partial: true };
  return null;
}

function summarizeGroup(runs: readonly ScoredRun[], options: SummaryOptions): GroupSummary {
  const [{ task, agent }] = runs as [ScoredRun, ...ScoredRun[]];
  const counted = runs.flatMap((run) => {
    const use = countedScore(run, options);
    return use === null ? [] : [{ label: run.label, ...use }];
  });
  let best: GroupSummary['best'] = null;
  for (const run of counted) if (best === null || run.score > best.score) best = run;
  const mean = counted.length === 0 ? null : counted.reduce((sum, run) => sum + run.score, 0) / counted.length;
  return {
    task,
    agent,
    runs: runs.length,
    successful: runs.filter((run) => run.successful).length,
    partial: runs.filter(isCountablePartial).length,
    counted: counted.length,
    mean,
    best,
  };
}

/** Code-point order, so the report's order does not depend on the machine's locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
