/**
 * The results file's shape: lm-eval's results object (results.ts builds it) and the task config dump inside it. A
 * leaf, so task kinds, samples and the 0.4.13 layout use these types without importing the builder.
 */
import type { AggregationName, MetricName, TaskKind } from '../tasks/types.js';
import type { LmEvalRunFacts } from './run-facts.js';

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** lm-eval keys metrics as "<metric>,<filter>": "none" but for generate_until's filter pipelines. */
export type MetricKey = `${string},${string}`;

export interface ResultEntry {
  /** lm-eval 0.4.13 only (results-layout-0413.ts): the task or group name, documents scored, per-metric counts. */
  readonly name?: string;
  readonly alias: string;
  readonly sample_len?: number;
  readonly sample_count?: Readonly<Record<MetricKey, number>>;
  readonly [metric: MetricKey]: number | 'N/A';
}

/** A metric_list entry as the task's YAML spells it: wikitext's name the metric alone (lm-eval's defaults apply). */
export interface MetricListEntry {
  readonly metric: MetricName;
  readonly aggregation?: AggregationName;
  readonly higher_is_better?: boolean;
  /** exact_match's options (generate_until), as the YAML states them. */
  readonly ignore_case?: boolean;
  readonly ignore_punctuation?: boolean;
  readonly ignore_numbers?: boolean;
  readonly regexes_to_ignore?: readonly string[];
}

/** The subset of lm-eval's dumped TaskConfig that describes a task of any kind. */
export interface TaskConfigDump {
  readonly task: string;
  readonly task_alias?: string;
  readonly tag?: string;
  readonly dataset_path: string;
  readonly dataset_name?: string;
  /** Ours: the local files the documents were read from. */
  readonly dataset_files: readonly string[];
  readonly training_split?: string;
  readonly test_split?: string;
  readonly validation_split?: string;
  readonly fewshot_split?: string;
  readonly doc_to_text?: string;
  readonly doc_to_target?: string | number;
  readonly doc_to_choice?: string | readonly string[];
  /** A custom process_results, as lm-eval's YAML names it. */
  readonly process_results?: string;
  readonly description: string;
  readonly target_delimiter: string;
  readonly fewshot_delimiter: string;
  /** 0.4.8: the sampler alone; 0.4.13: every few-shot field, null where unset. */
  readonly fewshot_config?: { readonly sampler: string; readonly [field: string]: JsonValue };
  /** 0.4.13 only. */
  readonly unsafe_code?: boolean;
  readonly num_fewshot: number;
  readonly metric_list: readonly MetricListEntry[];
  readonly output_type: TaskKind;
  /** generate_until only: the YAML's generation_kwargs and filter_list. */
  readonly generation_kwargs?: Readonly<Record<string, JsonValue>>;
  readonly repeats: number;
  readonly filter_list?: readonly JsonValue[];
  readonly should_decontaminate: boolean;
  readonly doc_to_decontamination_query?: string;
  /** 0.4.13 adds the model arguments (`pretrained`). */
  readonly metadata: { readonly version: number; readonly pretrained?: string };
}

export interface RunConfig {
  readonly model: string;
  /** 0.4.8: `pretrained=PATH`; 0.4.13: {pretrained: PATH}. */
  readonly model_args: string | Readonly<Record<string, string>>;
  readonly model_path: string;
  readonly batch_size: number | string;
  readonly batch_sizes: readonly number[];
  readonly device: string | null;
  readonly limit: number | null;
  readonly num_fewshot: number | null;
  /** lm-eval's default; with only `mean` metrics no bootstrap runs, the stderr is closed-form. */
  readonly bootstrap_iters: number;
}

export interface RunConfigInput {
  readonly modelPath: string;
  readonly batchSize: number | 'auto';
  readonly batchSizes?: readonly number[];
  readonly device?: string;
  readonly limit?: number;
  readonly numFewshot?: number;
}

/** Our own facts about the run, kept apart from lm-eval's keys. */
export interface MlrbRunInfo {
  readonly tool_version: string;
  readonly model_sha256: string;
  /** sha256 over the graph file and every external-data file it names: what the model's numbers come from. */
  readonly model_content_sha256: string;
  readonly data_fingerprint: string;
  readonly provider: string;
  readonly wall_time_s: number;
  readonly tokens_scored: number;
  readonly tokens_per_s: number;
  readonly [key: string]: JsonValue;
}

export interface NSamples {
  readonly original: number;
  readonly effective: number;
}

/** lm-eval's run facts are present whenever evaluate() built the results (buildResults may be called without). */
export interface LmEvalResults extends Partial<LmEvalRunFacts> {
  readonly results: Readonly<Record<string, ResultEntry>>;
  /** Present when at least one group was aggregated (lm-eval's show_group_table). */
  readonly groups?: Readonly<Record<string, ResultEntry>>;
  readonly group_subtasks: Readonly<Record<string, readonly string[]>>;
  readonly configs: Readonly<Record<string, TaskConfigDump>>;
  /** 0.4.13 writes group versions as strings. */
  readonly versions: Readonly<Record<string, number | string>>;
  readonly 'n-shot': Readonly<Record<string, number>>;
  readonly higher_is_better: Readonly<Record<string, Readonly<Record<string, boolean>>>>;
  readonly 'n-samples': Readonly<Record<string, NSamples>>;
  readonly config: RunConfig;
  readonly mlrb: MlrbRunInfo;
}
