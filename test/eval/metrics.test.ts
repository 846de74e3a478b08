import { describe, expect, it } from 'vitest';
import { MlrbError } from '../../src/errors.js';
import { argmaxFirst, computeTaskMetrics, mean, meanStderr } from '../../src/eval/metrics.js';
import type { MetricName, MultipleChoiceDoc, MultipleChoiceTask } from '../../src/tasks/types.js';
import { makeDoc, makeOutcome, makeTask } from '../support/task-builders.js';

const doc = makeDoc;
const outcome = makeOutcome;
const task = (docs: MultipleChoiceDoc[], metrics: MetricName[] = ['acc', 'acc_norm']): MultipleChoiceTask => makeTask(docs, { metrics });

describe('computeTaskMetrics', () => {
  // Hand-worked: acc items [1, 0, 1, 1] → 0.75, stderr sqrt(0.75 / 3) / 2 = 0.25.
  //              acc_norm items [0, 1, 1, 1] → 0.75, stderr 0.25.
  const docs = [doc(0, ['a', 'bbbb'], 0), doc(1, ['a', 'bbbb'], 1), doc(2, ['xy', 'z'], 0), doc(3, ['abc', '😀😀'], 0)];
  const outcomes = [
    outcome(3, [-3, -3.5]), // norm by code points: -1 vs -1.75 → 0 (by UTF-16 units it would be -0.875 → 1)
    outcome(0, [-1, -2]), // acc 1; norm -1 vs -0.5 → pred 1 ≠ target 0 → acc_norm 0
    outcome(1, [-1, -2]), // acc 0; norm -1 vs -0.5 → pred 1 = target → 1
    outcome(2, [-1, -1]), // tie → first argmax 0 = target → acc 1; norm -0.5 vs -1 → 0 → 1
  ];

  it('scores acc, acc_norm (length in code points) and stderr as lm-eval does', () => {
    const metrics = computeTaskMetrics(task(docs), outcomes);
    expect(metrics.docs.map((d) => [d.docId, d.values.acc, d.values.acc_norm])).toEqual([
      [0, 1, 0],
      [1, 0, 1],
      [2, 1, 1],
      [3, 1, 1],
    ]);
    expect(metrics.n).toBe(4);
    const [acc, accNorm] = metrics.metrics;
    expect(acc).toEqual({ metric: 'acc', value: 0.75, stderr: 0.25 });
    expect(accNorm).toEqual({ metric: 'acc_norm', value: 0.75, stderr: 0.25 });
  });

  it('ties go to the first maximum', () => {
    const tied = computeTaskMetrics(task([doc(0, ['a', 'b'], 1)], ['acc']), [outcome(0, [-2, -2])]);
    expect(tied.docs[0]?.values.acc).toBe(0);
    expect(argmaxFirst([-5, -1, -1, -3])).toBe(1);
    expect(argmaxFirst([-1, Number.NaN, 0])).toBe(1); // numpy: a NaN is the maximum
  });

  it('reports stderr "N/A" for a single document, like lm-eval', () => {
    const single = computeTaskMetrics(task([doc(0, ['a', 'b'], 0)], ['acc']), [outcome(0, [-1, -2])]);
    expect(single.metrics[0]).toEqual({ metric: 'acc', value: 1, stderr: 'N/A' });
  });

  it('mean and mean_stderr follow the Python formulas', () => {
    expect(mean([1, 0])).toBe(0.5);
    expect(meanStderr([1, 0])).toBe(0.5); // sqrt(0.5 / 1) / sqrt(2)
    expect(meanStderr([1, 1, 0])).toBeCloseTo(Math.sqrt(1 / 3) / Math.sqrt(3), 15);
  });

  it('EXPECTED FAILURE – missing, duplicate or misshapen outcomes are internal errors', () => {
    const two = task([doc(0, ['a', 'b'], 0), doc(1, ['a', 'b'], 0)], ['acc']);
    expect(() => computeTaskMetrics(two, [outcome(0, [-1, -2])])).toThrow(MlrbError);
    expect(() => computeTaskMetrics(two, [outcome(0, [-1, -2]), outcome(0, [-1, -2])])).toThrow(/two outcomes/);
    expect(() => computeTaskMetrics(two, [outcome(0, [-1, -2]), outcome(1, [-1])])).toThrow(/2 choices but 1/);
  });

  it('BAD CALL – metrics not implemented yet are refused', () => {
    expect(() => computeTaskMetrics(task([doc(0, ['a', 'b'], 0)], ['f1']), [outcome(0, [-1, -2])])).toThrow(RangeError);
  });
});
