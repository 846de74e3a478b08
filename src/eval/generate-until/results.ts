/**
 * A generate_until task's scores and its parts of an lm-eval results file, as pure functions of the task and
 * the generated texts (one per document, in document order: lm-eval's `resps` with repeats 1):
 *   scores   every filter pipeline reduces each response (filters.ts) and exact_match scores the result against
 *            the document's target (exact-match.ts); the task's metric is the mean over documents, its stderr
 *            lm-eval's mean_stderr ("N/A" for a single document);
 *   entry    `results[task]`: {alias, "exact_match,<filter>", "exact_match_stderr,<filter>"} per filter, in filter
 *            order (lm-eval keys metrics by "<metric>,<filter name>");
 *   config   `configs[task]` as ConfigurableTask.dump_config() writes it for a generate_until task;
 *   samples  --log_samples records: one per (filter, document), filter by filter, with `resps` [[text]] and
 *            `filtered_resps` [answer] (lm-eval's evaluate() loop over filter keys, then documents).
 */
import type { GenerateUntilTask } from '../../tasks/generate-until-types.js';
import { mean, meanStderr, type Stderr } from '../metrics.js';
import type { JsonValue, MetricKey, TaskConfigDump } from '../result-types.js';
import { createExactMatch } from './exact-match.js';
import { compilePipeline, type FilteredResponse } from './filters.js';
import type { GenerateUntilRequest } from './requests.js';

export interface FilterScores {
  /** The filter pipeline's name (`strict-match`). */
  readonly filter: string;
  /** Per document, in document order. */
  readonly filtered: readonly FilteredResponse[];
  readonly scores: readonly (0 | 1)[];
  readonly value: number;
  readonly stderr: Stderr;
}

export interface GenerateUntilScores {
  readonly taskName: string;
  readonly n: number;
  /** In the task's filter order. */
  readonly filters: readonly FilterScores[];
}

/**
 * Translates the task's filter and metric patterns now (a pattern with no JS translation is a RangeError), so a
 * caller that makes the scorer before generating learns of it before any model time is spent.
 */
export function createGenerateUntilScorer(task: GenerateUntilTask): (responses: readonly string[]) => GenerateUntilScores {
  const exactMatch = createExactMatch(task.metric.options);
  const pipelines = task.filters.map(compilePipeline);
  return (responses) => {
    if (responses.length !== task.docs.length) {
      throw new RangeError(`task ${task.name}: ${responses.length} responses for ${task.docs.length} documents`);
    }
    const filters = pipelines.map((pipeline): FilterScores => {
      const filtered = responses.map((response) => pipeline.apply([response]));
      const scores = filtered.map((answer, index) => {
        // exact_match compares strings; a pipeline without take_first leaves a list, which lm-eval would score
        // as its string form, so it is refused here instead.
        if (typeof answer !== 'string') throw new RangeError(`task ${task.name}: filter ${pipeline.name} must end in take_first to be scored by exact_match`);
        return exactMatch(answer, task.docs[index]?.target ?? '');
      });
      return { filter: pipeline.name, filtered, scores, value: mean(scores), stderr: scores.length > 1 ? meanStderr(scores) : 'N/A' };
    });
    return { taskName: task.name, n: responses.length, filters };
  };
}

/** Scores every document's response under every filter; `responses` has one text per document. */
export function scoreGenerateUntil(task: GenerateUntilTask, responses: readonly string[]): GenerateUntilScores {
  return createGenerateUntilScorer(task)(responses);
}

/** `results[task]`: the alias, then each filter's metric and stderr. */
export function generateUntilResultEntry(task: GenerateUntilTask, scores: GenerateUntilScores): { alias: string; [metric: MetricKey]: number | 'N/A' } {
  const entry: { alias: string; [metric: MetricKey]: number | 'N/A' } = { alias: task.name };
  for (const filter of scores.filters) {
    entry[`${task.metric.name},${filter.filter}`] = filter.value;
    entry[`${task.metric.name}_stderr,${filter.filter}`] = filter.stderr;
  }
  return entry;
}

/** `configs[task]` (the v0.4.4–v0.4.8 layout: fields lm-eval leaves unset are absent). */
export function generateUntilConfig(task: GenerateUntilTask): TaskConfigDump {
  const { lmEval, generationKwargs, metric } = task;
  return {
    task: task.name,
    ...(lmEval.tag !== undefined ? { tag: lmEval.tag } : {}),
    dataset_path: lmEval.datasetPath,
    ...(lmEval.datasetName !== undefined ? { dataset_name: lmEval.datasetName } : {}),
    dataset_files: task.sourceFiles,
    ...lmEval.splits,
    doc_to_text: lmEval.docToText,
    doc_to_target: lmEval.docToTarget,
    description: task.description,
    target_delimiter: task.targetDelimiter,
    fewshot_delimiter: task.fewshotDelimiter,
    num_fewshot: task.numFewshot,
    metric_list: [
      {
        metric: metric.name,
        aggregation: 'mean',
        higher_is_better: true,
        ignore_case: metric.options.ignoreCase,
        ignore_punctuation: metric.options.ignorePunctuation,
        ...(metric.options.ignoreNumbers ? { ignore_numbers: true } : {}),
        regexes_to_ignore: [...metric.options.regexesToIgnore],
      },
    ],
    output_type: 'generate_until',
    generation_kwargs: generationKwargsJson(generationKwargs),
    repeats: 1,
    filter_list: task.filters.map((pipeline) => ({
      name: pipeline.name,
      filter: pipeline.steps.map((step) =>
        step.function === 'take_first'
          ? { function: 'take_first' }
          : {
              function: 'regex',
              // The YAML states only what differs from RegexFilter's defaults, and dump_config repeats it.
              ...(step.groupSelect !== 0 ? { group_select: step.groupSelect } : {}),
              regex_pattern: step.regexPattern,
              ...(step.fallback !== '[invalid]' ? { fallback: step.fallback } : {}),
            },
      ),
    })),
    should_decontaminate: lmEval.shouldDecontaminate,
    metadata: { version: task.version },
  };
}

/** The kwargs as a request's arguments and the config show them (the YAML's keys). */
export function generationKwargsJson(kwargs: GenerateUntilTask['generationKwargs']): Record<string, JsonValue> {
  return {
    until: [...kwargs.until],
    do_sample: kwargs.doSample,
    temperature: kwargs.temperature,
    ...(kwargs.maxGenToks !== undefined ? { max_gen_toks: kwargs.maxGenToks } : {}),
  };
}

export interface GenerateUntilSample {
  readonly doc_id: number;
  readonly doc: Readonly<Record<string, unknown>>;
  readonly target: string;
  readonly arguments: readonly (readonly [string, Record<string, JsonValue>])[];
  readonly resps: readonly (readonly [string])[];
  readonly filtered_resps: readonly FilteredResponse[];
  readonly filter: string;
  readonly metrics: readonly string[];
  readonly exact_match: number;
}

/** --log_samples records, filter by filter (see the file comment); requests and responses in document order. */
export function generateUntilSamples(
  task: GenerateUntilTask,
  requests: readonly GenerateUntilRequest[],
  responses: readonly string[],
  scores: GenerateUntilScores,
): GenerateUntilSample[] {
  return scores.filters.flatMap((filter) =>
    task.docs.map((doc, index) => ({
      doc_id: doc.docId,
      doc: doc.source,
      target: doc.target,
      arguments: [[requests[index]?.context ?? '', generationKwargsJson(requests[index]?.generationKwargs ?? task.generationKwargs)] as const],
      resps: [[responses[index] ?? ''] as const],
      filtered_resps: [filter.filtered[index] ?? ''],
      filter: filter.filter,
      metrics: [task.metric.name],
      exact_match: filter.scores[index] ?? 0,
    })),
  );
}
