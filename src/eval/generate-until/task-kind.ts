/**
 * The `generate_until` kind of task where it meets the evaluator (src/eval/task-kinds.ts): a document's outcome
 * is its generated text (DocOutcome.responses, one per request), and the metrics, samples and config come from
 * the pure functions of results.ts. The texts are all a shard keeps, so a merge recomputes every filter's
 * exact_match from them with this same code.
 */
import { MlrbError } from '../../errors.js';
import type { GenerateUntilTask } from '../../tasks/generate-until-types.js';
import { indexOutcomes, type DocMetrics, type DocOutcome, type MetricSummary, type TaskMetrics } from '../metrics.js';
import type { LoggedSample } from '../samples.js';
import type { GenerateUntilRequest } from './requests.js';
import { createGenerateUntilScorer, generateUntilSamples, type GenerateUntilScores } from './results.js';

/** Each document's one generated text, in document order; a document without exactly one is INTERNAL. */
function responsesInDocumentOrder(task: GenerateUntilTask, outcomes: readonly DocOutcome[]): string[] {
  const byDocId = indexOutcomes(task, outcomes);
  return task.docs.map((doc) => {
    const responses = byDocId.get(doc.docId)?.responses;
    if (responses?.length !== 1 || responses[0] === undefined) {
      throw new MlrbError('INTERNAL', `task ${task.name} document ${doc.docId}: ${responses?.length ?? 0} generated texts for 1 request`, {
        task: task.name,
        docId: doc.docId,
      });
    }
    return responses[0];
  });
}

function summaries(task: GenerateUntilTask, scores: GenerateUntilScores): MetricSummary[] {
  return scores.filters.map((filter) => ({ metric: task.metric.name, filter: filter.filter, value: filter.value, stderr: filter.stderr }));
}

/** Every filter's exact_match over the documents' generated texts (lm-eval's `exact_match,<filter>`). */
export function generateUntilTaskMetrics(task: GenerateUntilTask, outcomes: readonly DocOutcome[]): TaskMetrics {
  if (task.docs.length === 0) throw new MlrbError('INTERNAL', `task ${task.name} has no documents to score`, { task: task.name });
  const responses = responsesInDocumentOrder(task, outcomes);
  const scores = createGenerateUntilScorer(task)(responses);
  const docs = task.docs.map(
    (doc, index): DocMetrics => ({ docId: doc.docId, target: doc.target, logliks: [], isGreedy: [], responses: [responses[index] ?? ''], values: {} }),
  );
  return { taskName: task.name, n: docs.length, metrics: summaries(task, scores), docs };
}

/** --log-samples records: one per (filter, document), as lm-eval writes a generate_until task's. */
export function generateUntilLoggedSamples(task: GenerateUntilTask, requests: readonly GenerateUntilRequest[], metrics: TaskMetrics): LoggedSample[] {
  const responses = metrics.docs.map((doc) => doc.responses?.[0] ?? '');
  const byDocId = new Map(requests.map((request) => [request.docId, request]));
  const ordered = task.docs.map((doc) => {
    const request = byDocId.get(doc.docId);
    if (request === undefined)
      throw new MlrbError('INTERNAL', `task ${task.name}: no request for document ${doc.docId}`, { task: task.name, docId: doc.docId });
    return request;
  });
  const scores = createGenerateUntilScorer(task)(responses);
  return generateUntilSamples(task, ordered, responses, scores).map(({ metrics: _names, exact_match, ...record }) => ({
    ...record,
    arguments: record.arguments.map((argument) => [...argument]),
    filtered_resps: record.filtered_resps.map((answer) => (typeof answer === 'string' ? answer : JSON.stringify(answer))),
    [task.metric.name]: exact_match,
  }));
}

/** A shard document's outcome is well formed for this kind: one generated text, no log-likelihoods. */
export function generateUntilOutcomeProblem(outcome: DocOutcome): string | undefined {
  if (outcome.logliks.length !== 0 || outcome.isGreedy.length !== 0) return `document ${outcome.docId} of a generate_until task has log-likelihoods`;
  if (outcome.responses?.length !== 1) return `document ${outcome.docId} has ${outcome.responses?.length ?? 0} generated texts for 1 request`;
  return undefined;
}
