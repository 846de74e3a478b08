/** Per-document records in the shape lm-eval writes with --log_samples, one JSON object per line. */
import type { MultipleChoiceTask } from '../tasks/types.js';
import type { JsonValue } from './results.js';
import type { LoglikelihoodRequest } from './instance.js';
import type { TaskMetrics } from './metrics.js';

/** One request's response as lm-eval logs it: (loglik, is_greedy) for loglikelihood, the bare loglik for rolling. */
export type LoggedResponse = readonly [number, boolean] | number;

export interface LoggedSample {
  readonly doc_id: number;
  readonly doc: Readonly<Record<string, unknown>>;
  /** The gold choice's index, or (loglikelihood_rolling) the text scored. */
  readonly target: number | string;
  /** Each request's arguments: (context, continuation), or (text,) for a rolling request. */
  readonly arguments: readonly (readonly string[])[];
  readonly resps: readonly (readonly [LoggedResponse])[];
  readonly filtered_resps: readonly LoggedResponse[];
  readonly [metric: string]: JsonValue | Readonly<Record<string, unknown>> | readonly unknown[];
}

/** A multiple-choice task's samples: one request per choice. */
export function buildTaskSamples(task: MultipleChoiceTask, requests: readonly LoglikelihoodRequest[], metrics: TaskMetrics): LoggedSample[] {
  const byDoc = new Map<number, LoglikelihoodRequest[]>();
  for (const request of requests) {
    const list = byDoc.get(request.docId) ?? [];
    list.push(request);
    byDoc.set(request.docId, list);
  }
  return metrics.docs.map((docMetrics, index) => {
    const doc = task.docs[index];
    const pairs = docMetrics.logliks.map((loglik, choice): readonly [number, boolean] => [loglik, docMetrics.isGreedy[choice] ?? false]);
    return {
      doc_id: docMetrics.docId,
      doc: doc?.source ?? {},
      target: docMetrics.target,
      arguments: (byDoc.get(docMetrics.docId) ?? []).map((request): readonly [string, string] => [request.context, request.continuation]),
      resps: pairs.map((pair) => [pair] as const),
      filtered_resps: pairs,
      ...docMetrics.values,
    };
  });
}
