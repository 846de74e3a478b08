/**
 * Scored requests back to documents. A document's result for a choice is the sum over its scoring requests: one
 * for a text pair, one per window for a rolling text (in window order, as lm-eval sums them); it is greedy only
 * if every piece was. A document with nothing to score (a rolling text that encodes to no tokens) gets lm-eval's
 * sum over no windows: 0.
 */
import type { Task } from '../tasks/types.js';
import type { LoglikelihoodResult, ScoringRequest } from './instance.js';
import type { DocOutcome } from './metrics.js';
import { resultsPerDocument } from './task-kinds.js';

type Sums = { logliks: number[]; isGreedy: boolean[] };

/**
 * Every selected document's outcome, by task, in document order. `results[i]` is the result of `requests[i]`;
 * `selected` (a shard's documents) limits which documents are expected (a task it does not name has none); absent,
 * all are.
 */
export function documentOutcomes(
  tasks: readonly Task[],
  requests: readonly ScoringRequest[],
  results: readonly LoglikelihoodResult[],
  selected?: ReadonlyMap<string, ReadonlySet<number>>,
): Map<string, DocOutcome[]> {
  const sums = new Map<string, Map<number, Sums>>();
  requests.forEach((request, index) => {
    const docs = sums.get(request.taskName) ?? new Map<number, Sums>();
    sums.set(request.taskName, docs);
    const doc = docs.get(request.docId) ?? { logliks: [], isGreedy: [] };
    docs.set(request.docId, doc);
    const result = results[index] as LoglikelihoodResult;
    doc.logliks[request.choiceIndex] = (doc.logliks[request.choiceIndex] ?? 0) + result.loglik;
    doc.isGreedy[request.choiceIndex] = (doc.isGreedy[request.choiceIndex] ?? true) && result.isGreedy;
  });
  return new Map(
    tasks.map((task) => {
      const docs = sums.get(task.name) ?? new Map<number, Sums>();
      const counts = resultsPerDocument(task);
      const outcomes = task.docs.flatMap((doc): DocOutcome[] => {
        if (selected !== undefined && selected.get(task.name)?.has(doc.docId) !== true) return [];
        const scored = docs.get(doc.docId);
        if (scored !== undefined) return [{ docId: doc.docId, ...scored }];
        const count = counts.get(doc.docId) ?? 0;
        return [{ docId: doc.docId, logliks: new Array<number>(count).fill(0), isGreedy: new Array<boolean>(count).fill(true) }];
      });
      return [task.name, outcomes];
    }),
  );
}
