/**
 * Tasks are data: every task is one declarative spec of a KIND (lm-eval's output_type), and the evaluator turns
 * any spec of a kind into requests and metrics the same way (src/eval/task-kinds.ts), never by task name.
 *   multiple_choice        one log-likelihood per choice; acc, acc_norm, F1 … (MMLU, BLiMP, SuperGLUE, HellaSwag …)
 *   loglikelihood_rolling  one log-likelihood of a whole document, scored in windows; perplexities (wikitext)
 *   generate_until         one generated text per document, filtered to an answer and matched (gsm8k;
 *                          src/tasks/generate-until-types.ts)
 *
 * For a multiple-choice document d with choices c_i lm-eval builds:
 *   context      = description + few-shot blocks + docToText(d)
 *   continuation = targetDelimiter + c_i
 * where a few-shot block is docToText(e) + targetDelimiter + (targetText(e) ?? choices(e)[target(e)]) + fewshotDelimiter.
 */
import type { GenerateUntilTask } from './generate-until-types.js';

export type { GenerateUntilTask } from './generate-until-types.js';

/** lm-eval's metric names; `score` is ours and only a group reports it (see TaskGroup.scoreMetrics). */
export type MetricName = 'acc' | 'acc_norm' | 'f1' | 'mcc' | 'em' | 'score' | 'exact_match' | PerplexityMetricName;

/** The metrics of a loglikelihood_rolling task, each lower-is-better. */
export type PerplexityMetricName = 'word_perplexity' | 'byte_perplexity' | 'bits_per_byte';

/**
 * lm-eval's aggregation of a metric's per-document items: `mean` of numbers, or CB's `cb_multi_fi` (the mean of
 * the three one-vs-rest F1 scores over (gold, pred) pairs).
 */
export type MultipleChoiceAggregationName = 'mean' | 'cb_multi_fi';

/** Every aggregation a results file names: the multiple-choice ones and lm-eval's perplexity aggregations. */
export type AggregationName = MultipleChoiceAggregationName | 'weighted_perplexity' | 'bits_per_byte';

/**
 * How a document's log-likelihoods become metric items:
 *   choice  lm-eval's multiple_choice process_results: acc / acc_norm compare the argmax with the gold index;
 *           f1 / mcc items are (gold, pred) pairs;
 *   answer  ReCoRD's process_results: the candidate behind the argmax is scored against every gold answer with
 *           SQuAD's exact match and token F1, keeping the best (em / f1).
 */
export type DocScoring = 'choice' | 'answer';

/** One evaluation document, already reduced to what scoring needs. */
export interface MultipleChoiceDoc {
  /** Position of the document in its source split (lm-eval's doc_id). */
  readonly docId: number;
  /** Prompt text without description or few-shot examples. */
  readonly text: string;
  /**
   * The answer options, without the target delimiter; for a multiple-input document (see `continuation`), the
   * contexts the continuation is scored after.
   */
  readonly choices: readonly string[];
  /** Index of the gold choice. */
  readonly target: number;
  /**
   * The document as lm-eval sees it (the dataset row after its preprocessing), kept for --log-samples. Few-shot
   * sampling also compares it: lm-eval drops a drawn example equal to the evaluated document.
   */
  readonly source: Readonly<Record<string, unknown>>;
  /**
   * lm-eval's doc_to_target when it is a string rather than an index (COPA, ReCoRD): few-shot blocks show it
   * after the target delimiter; `target` is then its position among the choices (-1 when absent).
   */
  readonly targetText?: string;
  /** For `answer` scoring (ReCoRD): the candidate text behind each choice, and the gold answers. */
  readonly answers?: DocAnswers;
  /**
   * lm-eval's multiple-input form (Winogrande): its doc_to_text returns the gold index and doc_to_choice the
   * contexts, and every request scores this one continuation (after the target delimiter) behind one of the
   * contexts. `text` is then the gold context and `targetText` the continuation, which is how a few-shot
   * example shows the document.
   */
  readonly continuation?: string;
}

export interface DocAnswers {
  /** One per choice, in choice order (ReCoRD: the entity substituted into the query). */
  readonly candidates: readonly string[];
  /** At least one. */
  readonly gold: readonly string[];
}

export interface FewshotConfig {
  /** lm-eval's samplers: first_n takes the split's first k documents; default draws at random. */
  readonly sampler: 'first_n' | 'default';
  /** Documents the examples come from (MMLU: the dev split). */
  readonly docs: readonly MultipleChoiceDoc[];
  /**
   * lm-eval's `fewshot_split == test_split` test, true when a config sets neither (SuperGLUE, BLiMP): the sampler
   * then draws k + 1 examples and drops the evaluated document if it is among them. Absent means false.
   */
  readonly drawsExtra?: boolean;
  /** The default sampler's `random.Random` seed: lm-eval's fewshot_random_seed, 1234 unless set. */
  readonly seed?: number;
}

/** What every kind of task has: its names, where its documents came from, and how lm-eval describes it. */
interface TaskCommon {
  /** lm-eval task name, e.g. `mmlu_anatomy`, `blimp_adjunct_island`, `wikitext`. */
  readonly name: string;
  /** lm-eval task version, reported in `versions`. */
  readonly version: number;
  /** Extra facts for aggregation breakdowns (MMLU category, BLiMP field / linguistics_term). */
  readonly tags: Readonly<Record<string, string>>;
  /** Where the documents came from (file paths), for errors and the data fingerprint. */
  readonly sourceFiles: readonly string[];
  /** Documents in the split before `limit` was applied (lm-eval's n-samples "original"); absent means docs.length. */
  readonly totalDocs?: number;
  /** How lm-eval's own YAML describes the task, for the results' `configs`; scoring never reads it. */
  readonly lmEval?: LmEvalTaskFacts;
}

/** Any task the evaluator runs; `kind` says which rules (src/eval/task-kinds.ts) turn it into requests and metrics. */
export type Task = MultipleChoiceTask | RollingLoglikelihoodTask | GenerateUntilTask;

/** lm-eval's output_type of each kind. */
export type TaskKind = Task['kind'];

/**
 * lm-eval's `output_type: loglikelihood_rolling`: each document's target text is scored whole (in windows of
 * the model's context, src/eval/rolling-windows.ts) and its log-likelihood is weighed by the document's word
 * and byte counts into perplexities over the whole task.
 */
export interface RollingLoglikelihoodTask extends TaskCommon {
  readonly kind: 'loglikelihood_rolling';
  readonly docs: readonly RollingDoc[];
  /** In reporting order; each aggregates as lm-eval does (weighted_perplexity, or bits_per_byte). */
  readonly metrics: readonly PerplexityMetricName[];
}

export interface RollingDoc {
  readonly docId: number;
  /** The text scored (lm-eval's doc_to_target; wikitext: the page with WikiText's tokenization undone). */
  readonly target: string;
  /** The counts the log-likelihood is weighed by (lm-eval's process_results; wikitext: of the raw page). */
  readonly words: number;
  readonly bytes: number;
  /** The dataset row as lm-eval sees it, for --log-samples. */
  readonly source: Readonly<Record<string, unknown>>;
}

export interface MultipleChoiceTask extends TaskCommon {
  readonly kind: 'multiple_choice';
  readonly description: string;
  readonly targetDelimiter: string;
  readonly fewshotDelimiter: string;
  readonly docs: readonly MultipleChoiceDoc[];
  readonly fewshot?: FewshotConfig;
  readonly metrics: readonly MetricName[];
  /** Per metric, where it is not `mean` (CB: f1 → cb_multi_fi). */
  readonly aggregations?: Readonly<Partial<Record<MetricName, MultipleChoiceAggregationName>>>;
  /** Absent means `choice`. */
  readonly docScoring?: DocScoring;
  /** Few-shot examples per prompt (lm-eval's num_fewshot), drawn from `fewshot.docs` by its sampler; absent means 0. */
  readonly numFewshot?: number;
}

/**
 * lm-eval's config fields that have no role in our scoring but belong in an lm-eval-compatible results file,
 * so a `configs` entry can be compared with one lm-eval wrote.
 */
export interface LmEvalTaskFacts {
  /** task_alias, shown in tables instead of the task name (MMLU: the subject). */
  readonly alias?: string;
  readonly tag?: string;
  /** lm-eval's dataset id (e.g. `hails/mmlu_no_train`); our local files are in `sourceFiles`. */
  readonly datasetPath: string;
  readonly datasetName?: string;
  readonly splits: Readonly<Partial<Record<'training_split' | 'test_split' | 'validation_split' | 'fewshot_split', string>>>;
  /** The templates as lm-eval spells them (Jinja), for display only. */
  readonly docToText: string;
  readonly docToTarget: string | number;
  /** Multiple-choice tasks only. */
  readonly docToChoice?: string | readonly string[];
  /** lm-eval's custom process_results, as its YAML names it (wikitext's word and byte counts). */
  readonly processResults?: string;
  readonly shouldDecontaminate: boolean;
  /** doc_to_decontamination_query, where the YAML sets one. */
  readonly decontaminationQuery?: string;
}

/**
 * A group of tasks as lm-eval reports it: `mmlu` over its categories, `blimp` over paradigms.
 * `weightBySize` true is lm-eval's micro average (MMLU); false is the plain mean of subtasks (BLiMP).
 */
export interface TaskGroup {
  readonly name: string;
  readonly subtasks: readonly string[];
  readonly weightBySize: boolean;
  readonly version: number;
  /** lm-eval's group_alias, shown in tables (MMLU categories: `stem`, `social sciences` …); absent means the name. */
  readonly alias?: string;
  /**
   * Ours, not lm-eval's: when set, the group reports a single metric `score`, the plain mean of one named metric
   * per subtask (SuperGLUE: each task's acc, ReCoRD's f1), with no standard error. Keys are subtask names.
   */
  readonly scoreMetrics?: Readonly<Record<string, MetricName>>;
}

/** What a suite loader returns: the tasks to run (a loader of one kind says which) and the groups to aggregate them into. */
export interface Suite<T extends Task = Task> {
  readonly name: string;
  readonly tasks: readonly T[];
  /** Groups in reporting order; a group may list other groups among its subtasks. */
  readonly groups: readonly TaskGroup[];
  /**
   * Task names the full suite has and this run lacks (loaded with allowPartial); the groups that lost them are
   * named `<group>_partial`. Absent or empty for a complete suite.
   */
  readonly missing?: readonly string[];
}

export interface SuiteLoadOptions {
  readonly dataDir: string;
  /** Keep only the first N documents of each task (lm-eval's --limit). */
  readonly limit?: number;
  /**
   * lm-eval's --num_fewshot. A suite whose lm-eval config pins num_fewshot to 0 (BLiMP and BabyLM's BLiMP)
   * ignores it, as lm-eval does.
   */
  readonly numFewshot?: number;
  /**
   * Score a suite whose folder lacks some of its subtasks instead of refusing it (BAD_DATA); its groups are then
   * reported as `<group>_partial` and the results list what is missing (src/tasks/partial.ts).
   */
  readonly allowPartial?: boolean;
}

export function isMultipleChoice(task: Task): task is MultipleChoiceTask {
  return task.kind === 'multiple_choice';
}
