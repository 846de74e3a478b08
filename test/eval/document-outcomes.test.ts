import { describe, expect, it } from 'vitest';
import { documentOutcomes } from '../../src/eval/document-outcomes.js';
import type { ScoringRequest } from '../../src/eval/instance.js';
import type { RollingLoglikelihoodTask } from '../../src/tasks/types.js';
import { makeDoc, makeTask } from '../support/task-builders.js';

const rolling: RollingLoglikelihoodTask = {
  kind: 'loglikelihood_rolling',
  name: 'pages',
  version: 1,
  docs: [0, 1, 2].map((docId) => ({ docId, target: `page ${docId}`, words: 2, bytes: 6, source: {} })),
  metrics: ['word_perplexity'],
  tags: {},
  sourceFiles: [],
};
const window = (docId: number, index: number): ScoringRequest => ({
  taskName: 'pages',
  docId,
  choiceIndex: 0,
  window: index,
  tokens: { contextTokens: [1], continuationTokens: [2] },
});

describe('scored requests back to documents', () => {
  it("sums a rolling document's windows, greedy only if every window was; a document with no windows scores 0", () => {
    const requests = [window(0, 0), window(0, 1), window(0, 2), window(2, 0)];
    const results = [
      { loglik: -1.5, isGreedy: true },
      { loglik: -2.25, isGreedy: false },
      { loglik: -0.25, isGreedy: true },
      { loglik: -3, isGreedy: true },
    ];
    expect(documentOutcomes([rolling], requests, results).get('pages')).toEqual([
      { docId: 0, logliks: [-4], isGreedy: [false] },
      { docId: 1, logliks: [0], isGreedy: [true] },
      { docId: 2, logliks: [-3], isGreedy: [true] },
    ]);
  });

  it('puts a multiple-choice result at its choice, in document order, and keeps only the selected documents', () => {
    const task = makeTask([makeDoc(0, ['a', 'b'], 0), makeDoc(1, ['a', 'b'], 1)]);
    const request = (docId: number, choiceIndex: number): ScoringRequest => ({ taskName: 'demo', docId, choiceIndex, context: 'q', continuation: ' x' });
    const requests = [request(1, 1), request(1, 0), request(0, 0), request(0, 1)];
    const results = [-4, -3, -2, -1].map((loglik) => ({ loglik, isGreedy: loglik === -1 }));
    expect(documentOutcomes([task], requests, results).get('demo')).toEqual([
      { docId: 0, logliks: [-2, -1], isGreedy: [false, true] },
      { docId: 1, logliks: [-3, -4], isGreedy: [false, false] },
    ]);
    expect(documentOutcomes([task], requests.slice(0, 2), results.slice(0, 2), new Map([['demo', new Set([1])]])).get('demo')).toEqual([
      { docId: 1, logliks: [-3, -4], isGreedy: [false, false] },
    ]);
  });
});
