/**
 * Group scores the way lm-eval v0.4.4+ computes them (`consolidate_group_results`): a group is aggregated over
 * its *leaf* tasks, descending through nested groups, never over its sub-groups' scores. That is why `mmlu`
 * (weighted by size over 57 subjects) is the micro average of all questions, not the mean of its 4 categories.
 *   value  = aggregate_subtask_metrics: Σ value_i·w_i / Σ w_i, w_i = n_i when weighted by size, else 1
 *   stderr = pooled_sample_stderr over the leaves with their real sizes (v0.4.4–v0.4.8: also for unweighted
 *            groups; v0.4.13: an unweighted group takes unweighted_mean_stderr, √Σse_i² / k), "N/A" when any
 *            leaf's stderr is
 * A group with `scoreMetrics` (ours: `superglue`) instead reports one `score`, the plain mean of the chosen metric
 * of each subtask in subtask order, with stderr "N/A".
 */
import { MlrbError } from '../errors.js';
import type { MetricName, Task, TaskGroup } from '../tasks/types.js';
import type { MetricSummary, Stderr, TaskMetrics } from './metrics.js';
import { DEFAULT_LM_EVAL_VERSION, type LmEvalVersion } from './lm-eval-version.js';

export interface GroupMetrics {
  readonly groupName: string;
  /** Leaf tasks the scores are aggregated over, in group order. */
  readonly leafTasks: readonly string[];
  /** Σ of the leaves' document counts (lm-eval's group "samples"). */
  readonly n: number;
  readonly metrics: readonly MetricSummary[];
}

/** lm-eval's `aggregate_subtask_metrics`. */
export function aggregateSubtaskMetrics(values: readonly number[], sizes: readonly number[], weightBySize: boolean): number {
  checkSameLength(values, sizes);
  let weighted = 0;
  let total = 0;
  for (let index = 0; index < values.length; index += 1) {
    const size = weightBySize ? (sizes[index] as number) : 1;
    weighted += (values[index] as number) * size;
    total += size;
  }
  return weighted / total;
}

/** lm-eval's `pooled_sample_stderr`: sqrt(Σ (n_i − 1)·se_i²·n_i / (Σn − k) / Σn). */
export function pooledSampleStderr(stderrs: readonly number[], sizes: readonly number[]): number {
  checkSameLength(stderrs, sizes);
  let pooled = 0;
  let total = 0;
  for (let index = 0; index < stderrs.length; index += 1) {
    const size = sizes[index] as number;
    const stderr = stderrs[index] as number;
    pooled += (size - 1) * (stderr * stderr) * size;
    total += size;
  }
  return Math.sqrt(pooled / (total - sizes.length) / total);
}

/** lm-eval 0.4.13's `unweighted_mean_stderr`: the stderr of a plain mean of k subtask means, √Σse_i² / k. */
export function unweightedMeanStderr(stderrs: readonly number[]): number {
  let squares = 0;
  for (const stderr of stderrs) squares += stderr * stderr;
  return Math.sqrt(squares) / stderrs.length;
}

/**
 * Aggregates every group (nested groups included) from the leaf tasks' metrics. A metric is aggregated over
 * the leaves that report it, as lm-eval does.
 */
export function aggregateGroups(
  groups: readonly TaskGroup[],
  taskMetrics: ReadonlyMap<string, TaskMetrics>,
  lmEvalVersion: LmEvalVersion = DEFAULT_LM_EVAL_VERSION,
): Map<string, GroupMetrics> {
  const groupsByName = new Map(groups.map((group) => [group.name, group]));
  const result = new Map<string, GroupMetrics>();
  for (const group of groups) {
    const leaves = leafTasks(group.name, groupsByName, taskMetrics);
    const leafMetrics = leaves.map((leaf) => taskMetrics.get(leaf) as TaskMetrics);
    const metrics = group.scoreMetrics === undefined ? combineMetrics(leafMetrics, group.weightBySize, lmEvalVersion) : [groupScore(group, taskMetrics)];
    result.set(group.name, { groupName: group.name, leafTasks: leaves, n: sum(leafMetrics.map((leaf) => leaf.n)), metrics });
  }
  return result;
}

export interface TagBreakdown {
  /** The tag's value (e.g. BLiMP field `morphology`). */
  readonly tagValue: string;
  readonly tasks: readonly string[];
  readonly n: number;
  readonly metrics: readonly MetricSummary[];
}

/**
 * The unweighted mean of tasks that share a tag value (BLiMP by field or linguistics_term, MMLU by category),
 * with the same pooled stderr as a group. Values are listed in order of first appearance among `tasks`.
 */
export function breakdownByTag(tasks: readonly Task[], taskMetrics: ReadonlyMap<string, TaskMetrics>, tag: string): TagBreakdown[] {
  const members = new Map<string, TaskMetrics[]>();
  for (const task of tasks) {
    const value = task.tags[tag];
    const metrics = taskMetrics.get(task.name);
    if (value === undefined || metrics === undefined) continue;
    const list = members.get(value) ?? [];
    list.push(metrics);
    members.set(value, list);
  }
  return [...members].map(([tagValue, list]) => ({
    tagValue,
    tasks: list.map((metrics) => metrics.taskName),
    n: sum(list.map((metrics) => metrics.n)),
    // Breakdowns are ours, not lm-eval's: one stderr rule (pooled) whatever the release followed.
    metrics: combineMetrics(list, false, DEFAULT_LM_EVAL_VERSION),
  }));
}

function combineMetrics(leaves: readonly TaskMetrics[], weightBySize: boolean, lmEvalVersion: LmEvalVersion): MetricSummary[] {
  const stderrOf = (stderrs: readonly number[], sizes: readonly number[]): number =>
    lmEvalVersion === '0.4.13' && !weightBySize ? unweightedMeanStderr(stderrs) : pooledSampleStderr(stderrs, sizes);
  const names: MetricName[] = [];
  for (const leaf of leaves) for (const { metric } of leaf.metrics) if (!names.includes(metric)) names.push(metric);
  return names.map((metric): MetricSummary => {
    const values: number[] = [];
    const stderrs: Stderr[] = [];
    const sizes: number[] = [];
    for (const leaf of leaves) {
      const summary = leaf.metrics.find((candidate) => candidate.metric === metric);
      if (summary === undefined) continue;
      values.push(summary.value);
      stderrs.push(summary.stderr);
      sizes.push(leaf.n);
    }
    const numericStderrs = stderrs.filter((stderr): stderr is number => stderr !== 'N/A');
    const stderr: Stderr = numericStderrs.length === stderrs.length ? stderrOf(numericStderrs, sizes) : 'N/A';
    return { metric, value: aggregateSubtaskMetrics(values, sizes, weightBySize), stderr };
  });
}

function groupScore(group: TaskGroup, taskMetrics: ReadonlyMap<string, TaskMetrics>): MetricSummary {
  const values = group.subtasks.map((subtask) => {
    const metric = group.scoreMetrics?.[subtask];
    const summary = taskMetrics.get(subtask)?.metrics.find((candidate) => candidate.metric === metric);
    if (metric === undefined || summary === undefined) {
      throw new MlrbError('INTERNAL', `group ${group.name}: no ${metric ?? 'score metric'} for subtask ${subtask}`, { group: group.name });
    }
    return summary.value;
  });
  return {
    metric: 'score',
    value: aggregateSubtaskMetrics(
      values,
      values.map(() => 1),
      false,
    ),
    stderr: 'N/A',
  };
}

/** The leaf tasks under a group, depth first in subtask order; rejects unknown names and cycles. */
function leafTasks(root: string, groupsByName: ReadonlyMap<string, TaskGroup>, taskMetrics: ReadonlyMap<string, TaskMetrics>): string[] {
  const leaves: string[] = [];
  const visit = (name: string, path: readonly string[]): void => {
    const group = groupsByName.get(name);
    if (group === undefined) {
      if (!taskMetrics.has(name)) {
        throw new MlrbError('INTERNAL', `group ${path.at(-1) ?? root} lists ${name}, which is neither a group nor a scored task`, { group: root });
      }
      leaves.push(name);
      return;
    }
    if (path.includes(name)) throw new MlrbError('INTERNAL', `group cycle: ${[...path, name].join(' -> ')}`, { group: root });
    for (const subtask of group.subtasks) visit(subtask, [...path, name]);
  };
  visit(root, []);
  if (leaves.length === 0) throw new MlrbError('INTERNAL', `group ${root} has no tasks`, { group: root });
  return leaves;
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

function checkSameLength(a: readonly number[], b: readonly number[]): void {
  if (a.length !== b.length) throw new RangeError(`expected as many sizes as values; got ${a.length} and ${b.length}`);
}
