/**
 * Per-document and per-task metrics for multiple-choice tasks, computed the way lm-eval v0.4.x does in
 * `ConfigurableTask.process_results` and `TaskOutput.calculate_aggregate_metric`:
 *   pred      = numpy argmax of the choices' log-likelihoods (the first maximum; a NaN wins, as in numpy)
 *   acc       = pred == gold
 *   acc_norm  = argmax of loglik / len(choice) == gold, len counting code points of the choice string
 *               without the target delimiter
 *   f1        = the item (gold, pred); CB aggregates the items with cb_multi_fi
 *   em / f1   = with `answer` scoring (ReCoRD), SQuAD scores of the predicted candidate, best over the golds
 *   value     = the aggregation over the items: mean = sum(items) / n, summed in document order
 *   stderr    = for mean: sample standard deviation (n − 1) / sqrt(n), "N/A" when n < 2; for cb_multi_fi "N/A"
 *               (lm-eval has no stderr function for it)
 * The operations and their order follow lm-eval's Python, so the floats agree to the last bit.
 */
import { MlrbError } from '../errors.js';
import { pythonLength } from '../text/python-text.js';
import type { MetricName, MultipleChoiceAggregationName, MultipleChoiceDoc, MultipleChoiceTask, Task } from '../tasks/types.js';
import { bestOverGold, exactMatch, tokenF1 } from './answer-metrics.js';

/**
 * What the model returned for one document: one log-likelihood and greedy flag per choice, in choice order; for a
 * generate_until document no log-likelihoods and its generated text in `responses` (one per request).
 */
export interface DocOutcome {
  readonly docId: number;
  readonly logliks: readonly number[];
  readonly isGreedy: readonly boolean[];
  readonly responses?: readonly string[];
}

/** lm-eval reports the string "N/A" where a standard error is undefined. */
export type Stderr = number | 'N/A';

export interface MetricSummary {
  readonly metric: MetricName;
  /** lm-eval's filter the metric was computed after (generate_until's `strict-match` …); absent: `none`. */
  readonly filter?: string;
  readonly value: number;
  readonly stderr: Stderr;
}

/**
 * A per-document metric item: a number, or a pair for metrics aggregated over the whole split: (gold, pred) for
 * F1 and MCC, (log-likelihood, weight) for the perplexities of a loglikelihood_rolling task.
 */
export type MetricItem = number | readonly [number, number];

/** One document's scores, for --log-samples. */
export interface DocMetrics {
  readonly docId: number;
  /** The gold choice's index; for a loglikelihood_rolling document, the text scored (as lm-eval logs it). */
  readonly target: number | string;
  readonly logliks: readonly number[];
  readonly isGreedy: readonly boolean[];
  /** generate_until: the document's generated texts (lm-eval's resps). */
  readonly responses?: readonly string[];
  /** One item per metric the task reports. */
  readonly values: Readonly<Partial<Record<MetricName, MetricItem>>>;
}

/** A task's metrics, whatever its kind (src/eval/task-kinds.ts computes them). */
export interface TaskMetrics {
  readonly taskName: string;
  /** Documents scored (lm-eval's per-task "samples"). */
  readonly n: number;
  /** In the order of the task's `metrics`. */
  readonly metrics: readonly MetricSummary[];
  /** In the task's document order. */
  readonly docs: readonly DocMetrics[];
}

type DocMetricFn = (doc: MultipleChoiceDoc, logliks: readonly number[]) => MetricItem;

const goldPredPair: DocMetricFn = (doc, logliks) => [doc.target, argmaxFirst(logliks)];

/** lm-eval's multiple_choice process_results. */
const CHOICE_METRICS: Readonly<Partial<Record<MetricName, DocMetricFn>>> = {
  acc: (doc, logliks) => (argmaxFirst(logliks) === doc.target ? 1 : 0),
  acc_norm: (doc, logliks) => {
    const normalized = logliks.map((loglik, index) => loglik / pythonLength(doc.choices[index] ?? ''));
    return argmaxFirst(normalized) === doc.target ? 1 : 0;
  },
  f1: goldPredPair,
  mcc: goldPredPair,
};

/** ReCoRD's process_results: the candidate behind the argmax against the gold answers. */
const ANSWER_METRICS: Readonly<Partial<Record<MetricName, DocMetricFn>>> = {
  em: (doc, logliks) => answerScore(doc, logliks, exactMatch),
  f1: (doc, logliks) => answerScore(doc, logliks, tokenF1),
};

function answerScore(doc: MultipleChoiceDoc, logliks: readonly number[], metric: (prediction: string, gold: string) => number): number {
  const answers = doc.answers;
  if (answers === undefined || answers.gold.length === 0) {
    throw new MlrbError('INTERNAL', `document ${doc.docId} has no gold answers for answer scoring`, { docId: doc.docId });
  }
  return bestOverGold(metric, answers.candidates[argmaxFirst(logliks)] ?? '', answers.gold);
}

interface Aggregation {
  readonly value: (items: readonly MetricItem[]) => number;
  readonly stderr: (items: readonly MetricItem[]) => Stderr;
  /** Whether it takes (gold, pred) pairs rather than numbers. */
  readonly pairs: boolean;
}

const AGGREGATIONS: Readonly<Record<MultipleChoiceAggregationName, Aggregation>> = {
  mean: {
    value: (items) => mean(items as readonly number[]),
    stderr: (items) => (items.length > 1 ? meanStderr(items as readonly number[]) : 'N/A'),
    pairs: false,
  },
  cb_multi_fi: { value: (items) => cbMultiF1(items as readonly (readonly [number, number])[]), stderr: () => 'N/A', pairs: true },
};

/** Resolves each metric of the task to its per-document function and aggregation, or throws a RangeError. */
function metricPlan(task: MultipleChoiceTask): { metric: MetricName; item: DocMetricFn; aggregation: Aggregation }[] {
  const scoring = task.docScoring ?? 'choice';
  const table = scoring === 'answer' ? ANSWER_METRICS : CHOICE_METRICS;
  return task.metrics.map((metric) => {
    const item = table[metric];
    if (item === undefined) throw new RangeError(`metric "${metric}" of task ${task.name} is not implemented for ${scoring} scoring`);
    const aggregationName = task.aggregations?.[metric] ?? 'mean';
    const aggregation = AGGREGATIONS[aggregationName];
    const makesPairs = item === goldPredPair;
    if (makesPairs !== aggregation.pairs) {
      throw new RangeError(
        `metric "${metric}" of task ${task.name}: aggregation ${aggregationName} does not take ${makesPairs ? '(gold, pred) pairs' : 'numbers'}`,
      );
    }
    return { metric, item, aggregation };
  });
}

/** A multiple-choice task's metrics from its documents' outcomes. */
export function computeTaskMetrics(task: MultipleChoiceTask, outcomes: readonly DocOutcome[]): TaskMetrics {
  const plan = metricPlan(task);
  if (task.docs.length === 0) throw new MlrbError('INTERNAL', `task ${task.name} has no documents to score`, { task: task.name });
  const byDocId = indexOutcomes(task, outcomes);
  const docs = task.docs.map((doc): DocMetrics => {
    const outcome = byDocId.get(doc.docId);
    if (outcome === undefined) {
      throw new MlrbError('INTERNAL', `task ${task.name}: no outcome for document ${doc.docId}`, { task: task.name, docId: doc.docId });
    }
    if (outcome.logliks.length !== doc.choices.length || outcome.isGreedy.length !== doc.choices.length) {
      throw new MlrbError(
        'INTERNAL',
        `task ${task.name} document ${doc.docId}: ${doc.choices.length} choices but ${outcome.logliks.length} log-likelihoods and ${outcome.isGreedy.length} greedy flags`,
        { task: task.name, docId: doc.docId },
      );
    }
    const values: Partial<Record<MetricName, MetricItem>> = {};
    for (const { metric, item } of plan) values[metric] = item(doc, outcome.logliks);
    return { docId: doc.docId, target: doc.target, logliks: outcome.logliks, isGreedy: outcome.isGreedy, values };
  });
  const metrics = plan.map(({ metric, aggregation }): MetricSummary => {
    const items = docs.map((doc) => doc.values[metric] ?? 0);
    return { metric, value: aggregation.value(items), stderr: aggregation.stderr(items) };
  });
  return { taskName: task.name, n: docs.length, metrics, docs };
}

/** The outcomes by document id, checked to be exactly one per document of the task. */
export function indexOutcomes(task: Task, outcomes: readonly DocOutcome[]): Map<number, DocOutcome> {
  const byDocId = new Map<number, DocOutcome>();
  for (const outcome of outcomes) {
    if (byDocId.has(outcome.docId)) {
      throw new MlrbError('INTERNAL', `task ${task.name}: two outcomes for document ${outcome.docId}`, { task: task.name, docId: outcome.docId });
    }
    byDocId.set(outcome.docId, outcome);
  }
  if (byDocId.size !== task.docs.length) {
    throw new MlrbError('INTERNAL', `task ${task.name}: ${byDocId.size} outcomes for ${task.docs.length} documents`, { task: task.name });
  }
  return byDocId;
}

/** numpy.argmax: index of the first maximum; the first NaN if there is one. */
export function argmaxFirst(values: readonly number[]): number {
  let best = -1;
  let bestValue = -Infinity;
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index] as number;
    if (Number.isNaN(value)) return index;
    if (best === -1 || value > bestValue) {
      best = index;
      bestValue = value;
    }
  }
  return best;
}

/** lm-eval's `mean`: sum(arr) / len(arr), summed left to right like Python's sum. */
export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** lm-eval's `mean_stderr`: sample_stddev(arr) / sqrt(len(arr)). */
export function meanStderr(values: readonly number[]): number {
  const mu = mean(values);
  let squares = 0;
  for (const value of values) {
    const deviation = value - mu;
    squares += deviation * deviation;
  }
  return Math.sqrt(squares / (values.length - 1)) / Math.sqrt(values.length);
}

/**
 * CB's `cb_multi_fi`: the mean of sklearn's binary f1_score for each class 0, 1, 2 against the rest. sklearn
 * (1.3+) computes F1 as 2·tp / (true + predicted) and returns 0 when both are 0; swapping gold and pred (the
 * aggregation unpacks lm-eval's (gold, pred) items as (preds, golds)) leaves it unchanged.
 */
export function cbMultiF1(items: readonly (readonly [gold: number, pred: number])[]): number {
  const scores = [0, 1, 2].map((label) => {
    let truePositives = 0;
    let actual = 0;
    let predicted = 0;
    for (const [gold, pred] of items) {
      if (gold === label) actual += 1;
      if (pred === label) predicted += 1;
      if (gold === label && pred === label) truePositives += 1;
    }
    return actual + predicted === 0 ? 0 : (2 * truePositives) / (actual + predicted);
  });
  return mean(scores);
}
