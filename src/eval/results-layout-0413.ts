/**
 * The results file in lm-eval 0.4.13's layout, made from the v0.4.4–v0.4.8 layout buildResults writes. What
 * differs was read off a real 0.4.13 run (test/fixtures/lm-eval/0.4.13/stories260K-*-results.json, recorded by
 * scripts/lm_eval/record_0413_expectations.py) and its evaluator (EvalAcc._to_eval_results, Group.aggregate):
 *  - `results` lists the tasks depth first in group order, then the groups bottom up; `groups` bottom up.
 *    Task entries are {name, alias, sample_len, metrics…}, group entries {alias, name, sample_len, metrics…,
 *    sample_count}: sample_len is the documents scored (a group's, over its leaf tasks), sample_count the
 *    documents behind each group metric.
 *  - `group_subtasks` holds groups only, top down (0.4.8: reversed, with `[]` for every ungrouped task).
 *  - group `versions` are strings; `n-shot` and `higher_is_better` are propagated from children to groups
 *    in top-down order, so a group whose children are groups gets nothing (as 0.4.13 does for `mmlu`).
 *  - `n-samples` follows the order of `results`.
 *  - task configs carry `unsafe_code`, the whole `fewshot_config` and the model arguments in `metadata`, and
 *    no `tag`; MMLU's dataset_path is `cais/mmlu` (0.4.8: `hails/mmlu_no_train`); `config.model_args` is a dict.
 *  - the run facts have no start_time/end_time, and fewshot_as_multiturn is null.
 */
import type { Task, TaskGroup } from '../tasks/types.js';
import type { GroupMetrics } from './aggregate.js';
import type { TaskMetrics } from './metrics.js';
import type { LmEvalResults, MetricKey, ResultEntry, TaskConfigDump } from './result-types.js';

export interface Layout0413Input {
  readonly tasks: readonly Task[];
  readonly groups: readonly TaskGroup[];
  readonly taskMetrics: ReadonlyMap<string, TaskMetrics>;
  readonly groupMetrics: ReadonlyMap<string, GroupMetrics>;
  readonly modelPath: string;
}

export function toLmEval0413Layout(base: LmEvalResults, input: Layout0413Input): LmEvalResults {
  const order = groupOrder(input.tasks, input.groups);
  const results: Record<string, ResultEntry> = {};
  for (const name of order.leafTasks) {
    const { alias, ...metrics } = entryOf(base, name);
    results[name] = { name, alias, sample_len: input.taskMetrics.get(name)?.n ?? 0, ...metrics };
  }
  const groups: Record<string, ResultEntry> = {};
  for (const group of order.bottomUp) {
    const aggregated = input.groupMetrics.get(group.name);
    if (aggregated === undefined) continue;
    const { alias, ...metrics } = entryOf(base, group.name);
    const entry: ResultEntry = { alias, name: group.name, sample_len: aggregated.n, ...metrics, sample_count: sampleCount(aggregated, input.taskMetrics) };
    results[group.name] = entry;
    groups[group.name] = entry;
  }
  const { start_time: _start, end_time: _end, ...facts } = base;
  return {
    ...facts,
    results,
    ...(Object.keys(groups).length > 0 ? { groups } : {}),
    group_subtasks: Object.fromEntries(order.topDown.map((group) => [group.name, group.subtasks])),
    configs: Object.fromEntries(Object.entries(base.configs).map(([name, config]) => [name, taskConfig0413(config, input.modelPath)])),
    versions: Object.fromEntries(Object.entries(base.versions).map(([name, version]) => [name, order.isGroup(name) ? String(version) : version])),
    'n-shot': propagated(base['n-shot'], order.topDown, (values) => (new Set(values).size === 1 ? values[0] : undefined)),
    higher_is_better: propagated(taskEntries(base.higher_is_better, order), order.topDown, (values) => Object.assign({}, ...values.reverse())),
    'n-samples': Object.fromEntries(order.leafTasks.map((name) => [name, base['n-samples'][name] ?? { original: 0, effective: 0 }])),
    config: { ...base.config, model_args: { pretrained: base.config.model_path } },
    ...(base.fewshot_as_multiturn !== undefined ? { fewshot_as_multiturn: null } : {}),
  };
}

function entryOf(base: LmEvalResults, name: string): ResultEntry {
  const entry = base.results[name];
  if (entry === undefined) throw new RangeError(`no result for ${name}`);
  return entry;
}

/** Per group metric, the documents of the leaf tasks that report it (Group.aggregate's sample_count). */
function sampleCount(group: GroupMetrics, taskMetrics: ReadonlyMap<string, TaskMetrics>): Record<MetricKey, number> {
  const counts: Record<MetricKey, number> = {};
  for (const { metric } of group.metrics) {
    const leaves = group.leafTasks.map((name) => taskMetrics.get(name)).filter((leaf) => leaf !== undefined);
    // A group-only metric (ours: SuperGLUE's `score`) stands on all its leaves.
    const reporting = leaves.filter((leaf) => leaf.metrics.some((summary) => summary.metric === metric));
    counts[`${metric},none`] = (reporting.length > 0 ? reporting : leaves).reduce((total, leaf) => total + leaf.n, 0);
  }
  return counts;
}

/**
 * _propagate_num_fewshot / _propagate_higher_is_better: each group in top-down order takes what its children
 * already have, so a group of groups finds nothing (its children are filled later).
 */
function propagated<T>(byName: Readonly<Record<string, T>>, topDown: readonly TaskGroup[], combine: (values: T[]) => T | undefined): Record<string, T> {
  const out: Record<string, T> = { ...byName };
  for (const group of topDown) {
    const values = group.subtasks.filter((child) => child in out).map((child) => out[child] as T);
    const combined = values.length > 0 ? combine(values) : undefined;
    if (combined !== undefined) out[group.name] = combined;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The 0.4.8 layout also lists groups in higher_is_better; 0.4.13 derives them from tasks. */
function taskEntries<T>(byName: Readonly<Record<string, T>>, order: GroupOrder): Record<string, T> {
  return Object.fromEntries(Object.entries(byName).filter(([name]) => !order.isGroup(name)));
}

/** TaskConfig's field order, as a 0.4.13 dump lists the fields; ours (dataset_files) follow, metadata last. */
const CONFIG_FIELD_ORDER = [
  'task',
  'task_alias',
  'dataset_path',
  'dataset_name',
  'training_split',
  'validation_split',
  'test_split',
  'fewshot_split',
  'doc_to_text',
  'doc_to_target',
  'unsafe_code',
  'doc_to_choice',
  'process_results',
  'description',
  'target_delimiter',
  'fewshot_delimiter',
  'fewshot_config',
  'num_fewshot',
  'metric_list',
  'output_type',
  'generation_kwargs',
  'repeats',
  'filter_list',
  'should_decontaminate',
  'doc_to_decontamination_query',
];

/** Hub datasets 0.4.13's task YAMLs name instead of 0.4.8's (MMLU moved from a copy to the original; GSM8K to its owner's namespace). */
const DATASET_PATHS_0413: Readonly<Record<string, string>> = { 'hails/mmlu_no_train': 'cais/mmlu', gsm8k: 'openai/gsm8k' };

function taskConfig0413(config: TaskConfigDump, modelPath: string): TaskConfigDump {
  const { tag: _tag, metadata, ...fields } = config;
  const filled: Record<string, unknown> = {
    ...fields,
    dataset_path: DATASET_PATHS_0413[config.dataset_path] ?? config.dataset_path,
    unsafe_code: false,
    fewshot_config: {
      sampler: config.fewshot_config?.sampler ?? 'default',
      split: config.fewshot_split ?? null,
      process_docs: null,
      fewshot_indices: null,
      samples: null,
      doc_to_text: config.doc_to_text,
      doc_to_choice: config.doc_to_choice ?? null,
      doc_to_target: config.doc_to_target,
      gen_prefix: null,
      fewshot_delimiter: config.fewshot_delimiter,
      target_delimiter: config.target_delimiter,
    },
  };
  const ordered = Object.entries(filled).sort(([a], [b]) => rank(a) - rank(b));
  return { ...Object.fromEntries(ordered), metadata: { ...metadata, pretrained: modelPath } } as TaskConfigDump;
}

function rank(field: string): number {
  const at = CONFIG_FIELD_ORDER.indexOf(field);
  return at === -1 ? CONFIG_FIELD_ORDER.length : at;
}

interface GroupOrder {
  /** Tasks depth first through the groups (roots in suite order), then any task no group reaches. */
  readonly leafTasks: readonly string[];
  /** Groups in pre-order: how 0.4.13 lists group_subtasks and propagates n-shot. */
  readonly topDown: readonly TaskGroup[];
  /** Groups in post-order: the order they are aggregated and listed in results. */
  readonly bottomUp: readonly TaskGroup[];
  isGroup(name: string): boolean;
}

function groupOrder(tasks: readonly Task[], groups: readonly TaskGroup[]): GroupOrder {
  const byName = new Map(groups.map((group) => [group.name, group]));
  const listed = new Set(groups.flatMap((group) => group.subtasks));
  const roots = [...groups.map((group) => group.name), ...tasks.map((task) => task.name)].filter((name) => !listed.has(name));
  const leafTasks: string[] = [];
  const topDown: TaskGroup[] = [];
  const bottomUp: TaskGroup[] = [];
  const visit = (name: string): void => {
    const group = byName.get(name);
    if (group === undefined) {
      if (!leafTasks.includes(name)) leafTasks.push(name);
      return;
    }
    topDown.push(group);
    for (const child of group.subtasks) visit(child);
    bottomUp.push(group);
  };
  for (const root of roots) visit(root);
  for (const task of tasks) if (!leafTasks.includes(task.name)) leafTasks.push(task.name);
  return { leafTasks, topDown, bottomUp, isGroup: (name) => byName.has(name) };
}
