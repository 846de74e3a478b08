/** Per-document records in the shape lm-eval writes with --log_samples, one JSON object per line. */
import type { MultipleChoiceTask } from '../tasks/types.js';
import type { JsonValue } from './result-types.js';
import type { LoglikelihoodRequest } from './instance.js';
import type { TaskMetrics } from './metrics.js';

/**
 * One request's response as lm-eval logs it: (loglik, is_greedy) for loglikelihood, the bare loglik for rolling,
 * the generated text (resps) or the filtered answer (filtered_resps) for generate_until.
 */
export type LoggedResponse = readonly [number, boolean] | number | string;

export interface LoggedSample {
  readonly doc_id: number;
  readonly doc: Readonly<Record<string, unknown>>;
  /**
   * lm-eval's doc_to_target of the document: the gold choice's index, or the string the task's doc_to_target
   * gives (COPA's and ReCoRD's gold choice text, WinoGrande's continuation, the text scored by a rolling task,
   * gsm8k's answer).
   */
  readonly target: number | string;
  /** Each request's arguments: (context, continuation), (text,) for a rolling request, (context, generation kwargs). */
  readonly arguments: readonly (readonly JsonValue[])[];
  readonly resps: readonly (readonly [LoggedResponse])[];
  readonly filtered_resps: readonly LoggedResponse[];
  /** The filter pipeline behind filtered_resps and the metrics; absent: `none`. */
  readonly filter?: string;
  readonly [metric: string]: JsonValue | Readonly<Record<string, unknown>> | readonly unknown[] | undefined;
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
      // A task whose doc_to_target is a string logs that string; its index serves the metrics only.
      target: doc?.targetText ?? docMetrics.target,
      arguments: (byDoc.get(docMetrics.docId) ?? []).map((request): readonly [string, string] => [request.context, request.continuation]),
      resps: pairs.map((pair) => [pair] as const),
      filtered_resps: pairs,
      ...docMetrics.values,
    };
  });
}
