/**
 * SuperGLUE's metrics on hand-worked cases: ReCoRD's SQuAD em / f1 (best over the gold answers), CB's
 * cb_multi_fi, MultiRC's per-answer accuracy, and our `superglue` score group.
 */
import { describe, expect, it } from 'vitest';
import { aggregateGroups } from '../../src/eval/aggregate.js';
import { bestOverGold, exactMatch, normalizeAnswer, tokenF1 } from '../../src/eval/answer-metrics.js';
import { cbMultiF1, computeTaskMetrics, type TaskMetrics } from '../../src/eval/metrics.js';
import { buildResults } from '../../src/eval/results.js';
import { loadSuite } from '../../src/tasks/registry.js';
import type { MultipleChoiceDoc, MultipleChoiceTask, TaskGroup } from '../../src/tasks/types.js';
import { writeSuperGlueFixture } from '../support/superglue-fixtures.js';
import { makeOutcome, makeTask } from '../support/task-builders.js';

const outcome = makeOutcome;
const task = makeTask;

describe('SQuAD answer metrics (ReCoRD)', () => {
  it('normalize: lower, drop ASCII punctuation, articles at Unicode word boundaries, collapse whitespace', () => {
    expect(normalizeAnswer('The Big-Apple!')).toBe('bigapple');
    expect(normalizeAnswer('an Ánthem of the théâtre')).toBe('ánthem of théâtre');
    // Python's \b sees "é" as a word character, so "the" in "theécole" stays (an ASCII \b would cut it).
    expect(normalizeAnswer('theÉcole a')).toBe('theécole');
    expect(normalizeAnswer('Übermensch the\u00a0end\u0085x')).toBe('übermensch end x');
  });

  it('exact match and token F1 (multiset overlap; empty against empty is 1)', () => {
    expect(exactMatch('The Eiffel Tower', 'eiffel tower.')).toBe(1);
    expect(exactMatch('Eiffel', 'Eiffel Tower')).toBe(0);
    // tokens [big, apple] vs [big, apple, city]: P = 2/3, R = 1 → 0.8
    expect(tokenF1('the Big Apple', 'Big Apple city')).toBe(0.8);
    // [new, york, new, york] vs [york, new]: 2 shared → 2·1·0.5 / 1.5
    expect(tokenF1('New York New York', 'York, New')).toBe((2 * 1 * 0.5) / 1.5);
    expect(tokenF1('a', 'the')).toBe(1);
    expect(tokenF1('x', 'the')).toBe(0);
    expect(bestOverGold(tokenF1, 'Paris', ['Lyon', 'paris, France'])).toBeCloseTo(2 / 3, 15);
  });

  it('a document scores the entity with the highest loglik against its best gold answer; the task averages', () => {
    const doc = (docId: number, gold: string[]): MultipleChoiceDoc => ({
      docId,
      text: '',
      choices: ['  - Alice', '  - Bob Smith', '  - Paris'],
      target: 0,
      source: {},
      answers: { candidates: ['Alice', 'Bob Smith', 'Paris'], gold },
    });
    const record = task([doc(0, ['Bob', 'Bob Smith']), doc(1, ['Alice']), doc(2, ['Smith Bob Jr'])], { metrics: ['f1', 'em'], docScoring: 'answer' });
    const metrics = computeTaskMetrics(record, [outcome(0, [-3, -1, -2]), outcome(1, [-1, -1, -5]), outcome(2, [-9, -1, -2])]);
    // doc 0: "Bob Smith" exact → f1 1, em 1; doc 1: tie → first (Alice) → 1, 1; doc 2: 2 of 3 tokens → 0.8, em 0.
    expect(metrics.docs.map((d) => [d.values.f1, d.values.em])).toEqual([
      [1, 1],
      [1, 1],
      [0.8, 0],
    ]);
    expect(metrics.metrics.map((m) => [m.metric, m.value])).toEqual([
      ['f1', (1 + 1 + 0.8) / 3],
      ['em', 2 / 3],
    ]);
    expect(typeof metrics.metrics[0]?.stderr).toBe('number');
  });
});

describe('CB f1 (cb_multi_fi)', () => {
  it('is the mean of the three one-vs-rest F1 scores, with no stderr', () => {
    // gold [0, 0, 1, 2], pred [0, 1, 1, 1]:
    //   class 0: tp 1, gold 2, pred 1 → 2/3;  class 1: tp 1, gold 1, pred 3 → 1/2;  class 2: tp 0, gold 1, pred 0 → 0
    const expected = (2 / 3 + 1 / 2 + 0) / 3;
    expect(
      cbMultiF1([
        [0, 0],
        [0, 1],
        [1, 1],
        [2, 1],
      ]),
    ).toBe(expected);
    // A class that is neither gold nor predicted scores 0 (sklearn's zero_division).
    expect(cbMultiF1([[0, 0]])).toBe(1 / 3);
    const doc = (docId: number, target: number): MultipleChoiceDoc => ({ docId, text: '', choices: ['True', 'False', 'Neither'], target, source: {} });
    const cb = task([doc(0, 0), doc(1, 0), doc(2, 1), doc(3, 2)], { metrics: ['acc', 'f1'], aggregations: { f1: 'cb_multi_fi' } });
    const metrics = computeTaskMetrics(cb, [outcome(0, [0, -1, -2]), outcome(1, [-1, 0, -2]), outcome(2, [-1, 0, -2]), outcome(3, [-1, 0, -2])]);
    expect(metrics.metrics).toEqual([
      { metric: 'acc', value: 0.5, stderr: Math.sqrt(1 / 3) / 2 },
      { metric: 'f1', value: expected, stderr: 'N/A' },
    ]);
    expect(metrics.docs[1]?.values.f1).toEqual([0, 1]);
  });

  it('BAD CALL – f1 over (gold, pred) pairs needs a pair aggregation', () => {
    const doc: MultipleChoiceDoc = { docId: 0, text: '', choices: ['a', 'b'], target: 0, source: {} };
    expect(() => computeTaskMetrics(task([doc], { metrics: ['f1'] }), [outcome(0, [-1, -2])])).toThrow(/does not take \(gold, pred\) pairs/);
    expect(() => computeTaskMetrics(task([doc], { metrics: ['acc'], docScoring: 'answer' }), [outcome(0, [-1, -2])])).toThrow(RangeError);
  });
});

describe('MultiRC accuracy', () => {
  it('is per answer, with a correct answer (label 1) on the "no" choice', async () => {
    const suite = await loadSuite('multirc', { dataDir: writeSuperGlueFixture({ folders: ['MultiRC'] }) });
    const multirc = suite.tasks[0] as MultipleChoiceTask;
    // Answer 0 is correct (gold "…no"), answer 1 is not (gold "…yes"); the model prefers "yes" for both.
    const metrics = computeTaskMetrics(multirc, [outcome(0, [-1, -2]), outcome(1, [-1, -2])]);
    expect(metrics.n).toBe(2);
    expect(metrics.docs.map((d) => d.values.acc)).toEqual([0, 1]);
    expect(metrics.metrics[0]).toEqual({ metric: 'acc', value: 0.5, stderr: 0.5 });
  });
});

describe('the superglue group (ours)', () => {
  const summary = (taskName: string, metric: 'acc' | 'f1', value: number, n = 10): TaskMetrics => ({
    taskName,
    n,
    metrics: [{ metric, value, stderr: 0.1 }],
    docs: [],
  });
  const group: TaskGroup = { name: 'superglue', subtasks: ['boolq', 'record'], weightBySize: false, version: 1, scoreMetrics: { boolq: 'acc', record: 'f1' } };
  const taskMetrics = new Map([summary('boolq', 'acc', 0.6, 3000), summary('record', 'f1', 0.3)].map((m) => [m.taskName, m]));

  it('scores the plain mean of each subtask’s chosen metric, whatever the sizes, with no stderr', () => {
    const result = aggregateGroups([group], taskMetrics).get('superglue');
    expect(result?.metrics).toEqual([{ metric: 'score', value: (0.6 + 0.3) / 2, stderr: 'N/A' }]);
    expect(result?.n).toBe(3010);
  });

  it('appears in the results as score,none, and CB-style aggregations in metric_list', () => {
    const boolq = task([], { name: 'boolq' });
    const record = task([], { name: 'record', metrics: ['f1'], aggregations: { f1: 'cb_multi_fi' } });
    const results = buildResults({
      suites: [{ name: 'superglue', tasks: [boolq, record], groups: [group] }],
      taskMetrics,
      run: { modelPath: 'm.onnx', batchSize: 1 },
      mlrb: {
        tool_version: '0',
        model_sha256: '',
        model_content_sha256: '',
        data_fingerprint: '',
        provider: 'cpu',
        wall_time_s: 0,
        tokens_scored: 0,
        tokens_per_s: 0,
      },
    });
    expect(results.groups?.superglue).toEqual({ alias: 'superglue', 'score,none': (0.6 + 0.3) / 2, 'score_stderr,none': 'N/A' });
    expect(results.higher_is_better.superglue).toEqual({ score: true });
    expect(results.configs.record?.metric_list).toEqual([{ metric: 'f1', aggregation: 'cb_multi_fi', higher_is_better: true }]);
  });
});
