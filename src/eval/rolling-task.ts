/**
 * The `loglikelihood_rolling` kind of task (lm-eval's perplexity tasks, wikitext): each document is one request,
 * its target text, which becomes token windows once the model's tokenizer and context are known; the
 * document's log-likelihood is the sum over its windows, and the metrics weigh the summed log-likelihoods of
 * the whole task by the summed word or byte counts (perplexity-metrics.ts). Because the aggregation is over task
 * totals, a shard merge recomputes it from every document's log-likelihood, never from shard-level values.
 */
import { MlrbError } from '../errors.js';
import type { MetricName, PerplexityMetricName, RollingLoglikelihoodTask } from '../tasks/types.js';
import { bitsPerByte, weightedPerplexity, type WeightedLoglik } from '../tasks/wikitext/perplexity-metrics.js';
import type { RollingLoglikelihoodRequest, TokenWindowRequest } from './instance.js';
import { indexOutcomes, type DocMetrics, type DocOutcome, type MetricSummary, type TaskMetrics } from './metrics.js';
import type { EncodingRules } from './request-encoding.js';
import { documentWindows } from './rolling-windows.js';
import type { LoggedSample } from './samples.js';

/** lm-eval's Instance per document: arguments `(doc_to_target(doc),)`. */
export function buildRollingRequests(task: RollingLoglikelihoodTask): RollingLoglikelihoodRequest[] {
  return task.docs.map((doc) => ({ taskName: task.name, docId: doc.docId, text: doc.target }));
}

/** The requests' windows under the release's encoding rules, in request order; all add up to result 0 of their document. */
export function rollingWindowRequests(requests: readonly RollingLoglikelihoodRequest[], rules: EncodingRules, maxLength: number): TokenWindowRequest[] {
  return requests.flatMap(({ taskName, docId, text }) =>
    documentWindows(text, rules, maxLength).map((tokens, window) => ({ taskName, docId, choiceIndex: 0, window, tokens })),
  );
}

/** Which count weighs each metric, and lm-eval's aggregation of it (weighted_perplexity, or bits_per_byte). */
const PERPLEXITY_METRICS: Readonly<
  Record<PerplexityMetricName, { readonly weight: 'words' | 'bytes'; readonly aggregate: (items: readonly WeightedLoglik[]) => number }>
> = {
  word_perplexity: { weight: 'words', aggregate: weightedPerplexity },
  byte_perplexity: { weight: 'bytes', aggregate: weightedPerplexity },
  bits_per_byte: { weight: 'bytes', aggregate: bitsPerByte },
};

/** The perplexity metrics, all lower-is-better (lm-eval's higher_is_better false). */
export function isPerplexityMetric(metric: MetricName): metric is PerplexityMetricName {
  return Object.hasOwn(PERPLEXITY_METRICS, metric);
}

/**
 * Per document, the (log-likelihood, weight) item of each metric; per task, the aggregation over every document.
 * lm-eval has no standard error for these aggregations, so it reports "N/A". A document with no windows (an
 * empty target) has log-likelihood 0, as lm-eval's sum over no windows is.
 */
export function computeRollingMetrics(task: RollingLoglikelihoodTask, outcomes: readonly DocOutcome[]): TaskMetrics {
  if (task.docs.length === 0) throw new MlrbError('INTERNAL', `task ${task.name} has no documents to score`, { task: task.name });
  const byDocId = indexOutcomes(task, outcomes);
  const docs = task.docs.map((doc): DocMetrics => {
    const outcome = byDocId.get(doc.docId);
    if (outcome === undefined || outcome.logliks.length !== 1) {
      throw new MlrbError('INTERNAL', `task ${task.name} document ${doc.docId}: expected one log-likelihood, got ${outcome?.logliks.length ?? 0}`, {
        task: task.name,
        docId: doc.docId,
      });
    }
    const loglik = outcome.logliks[0] as number;
    const values = Object.fromEntries(task.metrics.map((metric) => [metric, [loglik, doc[PERPLEXITY_METRICS[metric].weight]] as const]));
    return { docId: doc.docId, target: doc.target, logliks: outcome.logliks, isGreedy: outcome.isGreedy, values };
  });
  const metrics = task.metrics.map((metric): MetricSummary => {
    const items = docs.map((doc) => {
      const [loglik, weight] = doc.values[metric] as readonly [number, number];
      return { loglik, weight };
    });
    return { metric, value: PERPLEXITY_METRICS[metric].aggregate(items), stderr: 'N/A' };
  });
  return { taskName: task.name, n: docs.length, metrics, docs };
}

/** lm-eval's --log_samples records: arguments `(text,)`, the response a bare log-likelihood, items (loglik, weight). */
export function buildRollingSamples(task: RollingLoglikelihoodTask, requests: readonly RollingLoglikelihoodRequest[], metrics: TaskMetrics): LoggedSample[] {
  const texts = new Map(requests.map((request) => [request.docId, request.text]));
  return metrics.docs.map((docMetrics, index) => {
    const loglik = docMetrics.logliks[0] ?? Number.NaN;
    return {
      doc_id: docMetrics.docId,
      doc: task.docs[index]?.source ?? {},
      target: docMetrics.target,
      arguments: [[texts.get(docMetrics.docId) ?? '']],
      resps: [[loglik]],
      filtered_resps: [loglik],
      ...docMetrics.values,
    };
  });
}
