/**
 * The results object in lm-eval v0.4.4+'s shape (`evaluate()`'s return value as written to results_*.json),
 * so existing tooling and a diff against an lm-eval run both work. Our own run facts go under `mlrb`.
 *
 * Ordering follows lm-eval: `results`/`groups` walk the group tree depth first with names sorted at each
 * level (prepare_print_tasks); `group_subtasks` is the pre-order walk in group order, reversed; configs,
 * versions, n-shot and higher_is_better are sorted by name. Aliases are plain (`stem`, `anatomy`): lm-eval's
 * make_table indents rows by their depth in `group_subtasks` (0.4.13), so an alias indented here would be
 * indented twice. lm-eval's top-level run facts (date, model_name, task_hashes …) follow `config`.
 */
import type { MetricName, Suite, Task, TaskGroup } from '../tasks/types.js';
import { aggregateGroups } from './aggregate.js';
import type { MetricSummary, TaskMetrics } from './metrics.js';
import type { LmEvalRunFacts } from './run-facts.js';
import { DEFAULT_LM_EVAL_VERSION, type LmEvalVersion } from './lm-eval-version.js';
import { toLmEval0413Layout } from './results-layout-0413.js';
import type { LmEvalResults, MetricKey, MlrbRunInfo, ResultEntry, RunConfig, RunConfigInput } from './result-types.js';
import { isHigherBetter, metricNamesOf, numFewshotOf, taskConfigFor } from './task-kinds.js';

export interface BuildResultsInput {
  readonly suites: readonly Suite[];
  /** Metrics of every task in the suites, by task name. */
  readonly taskMetrics: ReadonlyMap<string, TaskMetrics>;
  readonly run: RunConfigInput;
  readonly facts?: LmEvalRunFacts;
  readonly mlrb: MlrbRunInfo;
  /** The release whose layout (and group stderr) to follow; default '0.4.4-0.4.8'. */
  readonly lmEvalVersion?: LmEvalVersion;
}

const FILTER = 'none';

export function buildResults(input: BuildResultsInput): LmEvalResults {
  const tasks = input.suites.flatMap((suite) => suite.tasks);
  const groups = input.suites.flatMap((suite) => suite.groups);
  for (const task of tasks) {
    if (!input.taskMetrics.has(task.name)) throw new RangeError(`no metrics for task ${task.name}`);
  }
  const lmEvalVersion = input.lmEvalVersion ?? DEFAULT_LM_EVAL_VERSION;
  const groupMetrics = aggregateGroups(groups, input.taskMetrics, lmEvalVersion);
  const tree = new GroupTree(tasks, groups);
  const results: Record<string, ResultEntry> = {};
  const groupResults: Record<string, ResultEntry> = {};
  for (const name of tree.sortedWalk()) {
    const alias = tree.alias(name);
    const group = groupMetrics.get(name);
    const metrics = group?.metrics ?? input.taskMetrics.get(name)?.metrics ?? [];
    results[name] = resultEntry(alias, metrics);
    if (group !== undefined) groupResults[name] = resultEntry(alias, metrics);
  }
  const layout048: LmEvalResults = {
    results,
    ...(Object.keys(groupResults).length > 0 ? { groups: groupResults } : {}),
    group_subtasks: tree.groupSubtasks(),
    configs: sortedRecord(tasks.map((task) => [task.name, taskConfigFor(task)])),
    versions: sortedRecord([...tasks, ...groups].map((item) => [item.name, item.version])),
    'n-shot': sortedRecord(tasks.map((task) => [task.name, numFewshotOf(task)])),
    higher_is_better: sortedRecord([
      ...tasks.map((task): [string, Record<string, boolean>] => [task.name, higherIsBetter(metricNamesOf(task))]),
      ...[...groupMetrics.values()].map((group): [string, Record<string, boolean>] => [group.groupName, higherIsBetter(group.metrics.map((m) => m.metric))]),
    ]),
    'n-samples': Object.fromEntries(tasks.map((task) => [task.name, { original: task.totalDocs ?? task.docs.length, effective: task.docs.length }])),
    config: runConfig(input.run),
    ...input.facts,
    mlrb: withPartial(input.mlrb, input.suites),
  };
  if (lmEvalVersion !== '0.4.13') return layout048;
  return toLmEval0413Layout(layout048, { tasks, groups, taskMetrics: input.taskMetrics, groupMetrics, modelPath: input.run.modelPath });
}

/** A run over a partial suite says so in `mlrb.partial`, listing every missing task (src/tasks/partial.ts). */
function withPartial(mlrb: MlrbRunInfo, suites: readonly Suite[]): MlrbRunInfo {
  const missing = suites.flatMap((suite) => suite.missing ?? []);
  return missing.length === 0 ? mlrb : { ...mlrb, partial: { missing } };
}

function resultEntry(alias: string, metrics: readonly MetricSummary[]): ResultEntry {
  const entry: { alias: string; [metric: MetricKey]: number | 'N/A' } = { alias };
  for (const { metric, filter = FILTER, value, stderr } of metrics) {
    entry[`${metric},${filter}`] = value;
    entry[`${metric}_stderr,${filter}`] = stderr;
  }
  return entry;
}

/** lm-eval's higher_is_better: true for every metric but the perplexities (and bits per byte) of rolling tasks. */
function higherIsBetter(metrics: readonly MetricName[]): Record<string, boolean> {
  return Object.fromEntries(metrics.map((metric) => [metric, isHigherBetter(metric)]));
}

function runConfig(run: RunConfigInput): RunConfig {
  return {
    model: 'mlrb-onnx',
    model_args: `pretrained=${run.modelPath}`,
    model_path: run.modelPath,
    batch_size: run.batchSize,
    batch_sizes: run.batchSizes ?? [],
    device: run.device ?? null,
    limit: run.limit ?? null,
    num_fewshot: run.numFewshot ?? null,
    bootstrap_iters: 100000,
  };
}

function sortedRecord<T>(entries: readonly (readonly [string, T])[]): Record<string, T> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The task/group hierarchy: top-level items are those no group lists. */
class GroupTree {
  private readonly groups: ReadonlyMap<string, TaskGroup>;
  private readonly aliases: ReadonlyMap<string, string>;
  private readonly roots: readonly string[];

  constructor(tasks: readonly Task[], groups: readonly TaskGroup[]) {
    this.groups = new Map(groups.map((group) => [group.name, group]));
    this.aliases = new Map([
      ...tasks.map((task): [string, string] => [task.name, (task.kind !== 'generate_until' ? task.lmEval?.alias : undefined) ?? task.name]),
      ...groups.map((group): [string, string] => [group.name, group.alias ?? group.name]),
    ]);
    const listed = new Set(groups.flatMap((group) => group.subtasks));
    this.roots = [...groups, ...tasks].map((item) => item.name).filter((name) => !listed.has(name));
  }

  alias(name: string): string {
    return this.aliases.get(name) ?? name;
  }

  /** Depth-first, names sorted at each level (lm-eval's prepare_print_tasks). */
  sortedWalk(): string[] {
    const rows: string[] = [];
    const visit = (names: readonly string[]): void => {
      for (const name of [...names].sort()) {
        rows.push(name);
        const group = this.groups.get(name);
        if (group !== undefined) visit(group.subtasks);
      }
    };
    visit(this.roots);
    return rows;
  }

  /** lm-eval's get_subtask_list, reversed as evaluate() writes it; ungrouped tasks map to []. */
  groupSubtasks(): Record<string, readonly string[]> {
    const entries: [string, readonly string[]][] = [];
    const visit = (name: string): void => {
      const group = this.groups.get(name);
      if (group === undefined) return;
      entries.push([name, group.subtasks]);
      for (const subtask of group.subtasks) visit(subtask);
    };
    for (const root of this.roots) {
      if (this.groups.has(root)) visit(root);
      else entries.push([root, []]);
    }
    return Object.fromEntries(entries.reverse());
  }
}
