/**
 * MLRB's statistics per task and agent: how many runs succeeded out of all, the mean score over the
 * successful runs, and the best run.
 *
 * A run is successful when it has a headline number (status `scored`: the whole of the headline's data was
 * scored) and is not ineligible (its eligibility is `eligible`, or `unchecked` where no check of a model file
 * can judge the task's rules). An ineligible model would not be counted by MLRB, and a run without a headline
 * has nothing to average; both still count among all runs.
 */
import type { RunRecord } from '../mlrb/run-record.js';

export function isSuccessfulRun(record: Pick<RunRecord, 'headline' | 'eligibility'>): boolean {
  return record.headline.status === 'scored' && record.headline.value !== null && record.eligibility.status !== 'ineligible';
}

/** What the statistics need of a run. */
export interface ScoredRun {
  readonly task: string;
  readonly agent: string;
  readonly label: string;
  readonly score: number | null;
  readonly successful: boolean;
}

export interface GroupSummary {
  readonly task: string;
  readonly agent: string;
  readonly runs: number;
  readonly successful: number;
  /** Mean score over the successful runs; null when none succeeded. */
  readonly mean: number | null;
  /** The successful run with the highest score (the first such run on a tie); null when none succeeded. */
  readonly best: { readonly label: string; readonly score: number } | null;
}

/** One summary per task × agent that has runs, ordered by task, then agent. */
export function summarizeByTaskAndAgent(runs: readonly ScoredRun[]): GroupSummary[] {
  const groups = new Map<string, ScoredRun[]>();
  for (const run of runs) {
    const key = JSON.stringify([run.task, run.agent]);
    const group = groups.get(key);
    if (group) group.push(run);
    else groups.set(key, [run]);
  }
  return [...groups.values()]
    .map(summarizeGroup)
    .sort((a, b) => compareText(a.task, b.task) || compareText(a.agent, b.agent));
}

function summarizeGroup(runs: readonly ScoredRun[]): GroupSummary {
  const [{ task, agent }] = runs as [ScoredRun, ...ScoredRun[]];
  const successful = runs.filter((run): run is ScoredRun & { score: number } => run.successful && run.score !== null);
  let best: GroupSummary['best'] = null;
  for (const run of successful) if (best === null || run.score > best.score) best = { label: run.label, score: run.score };
  const mean = successful.length === 0 ? null : successful.reduce((sum, run) => sum + run.score, 0) / successful.length;
  return { task, agent, runs: runs.length, successful: successful.length, mean, best };
}

/** Code-point order, so the report's order does not depend on the machine's locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
