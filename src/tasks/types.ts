/**
 * Tasks are data: a multiple-choice task is one declarative spec, and the evaluator turns any spec into
 * log-likelihood requests the same way (lm-eval's `output_type: multiple_choice`).
 *
 * lm-eval builds, for a document d with choices c_i:
 *   context      = description + few-shot blocks + docToText(d)
 *   continuation = targetDelimiter + c_i
 * where a few-shot block is docToText(e) + targetDelimiter + (targetText(e) ?? choices(e)[target(e)]) + fewshotDelimiter.
 */
/** lm-eval's metric names; `score` is ours and only a group reports it (see TaskGroup.scoreMetrics). */
export type MetricName = 'acc' | 'acc_norm' | 'f1' | 'mcc' | 'em' | 'score';

/**
 * lm-eval's aggregation of a metric's per-document items: `mean` of numbers, or CB's `cb_multi_fi` (the mean of
 * the three one-vs-rest F1 scores over (gold, pred) pairs).
 */
export type AggregationName = 'mean' | 'cb_multi_fi';

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

export interface MultipleChoiceTask {
  /** lm-eval task name, e.g. `mmlu_anatomy`, `blimp_adjunct_island`. */
  readonly name: string;
  /** lm-eval task version, reported in `versions`. */
  readonly version: number;
  readonly description: string;
  readonly targetDelimiter: string;
  readonly fewshotDelimiter: string;
  readonly docs: readonly MultipleChoiceDoc[];
  readonly fewshot?: FewshotConfig;
  readonly metrics: readonly MetricName[];
  /** Per metric, where it is not `mean` (CB: f1 → cb_multi_fi). */
  readonly aggregations?: Readonly<Partial<Record<MetricName, AggregationName>>>;
  /** Absent means `choice`. */
  readonly docScoring?: DocScoring;
  /** Extra facts for aggregation breakdowns (MMLU category, BLiMP field / linguistics_term). */
  readonly tags: Readonly<Record<string, string>>;
  /** Where the documents came from (file paths), for errors and the data fingerprint. */
  readonly sourceFiles: readonly string[];
  /** Few-shot examples per prompt (lm-eval's num_fewshot), drawn from `fewshot.docs` by its sampler; absent means 0. */
  readonly numFewshot?: number;
  /** Documents in the split before `limit` was applied (lm-eval's n-samples "original"); absent means docs.length. */
  readonly totalDocs?: number;
  /** How lm-eval's own YAML describes the task, for the results' `configs`; scoring never reads it. */
  readonly lmEval?: LmEvalTaskFacts;
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
  readonly docToChoice: string | readonly string[];
  readonly shouldDecontaminate: boolean;
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

/** What a suite loader returns: the tasks to run and the groups to aggregate them into. */
export interface Suite {
  readonly name: string;
  readonly tasks: readonly MultipleChoiceTask[];
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
