/**
 * lm-eval's few-shot draw and the contexts built from it. The expected draws come from CPython 3.11.7:
 *
 *   import random
 *   docs = list(range(5))
 *   r = random.Random(1234)   # fewshot_split == test_split: k + 1 drawn, the evaluated document dropped
 *   [[x for x in r.sample(docs, 3) if x != d][:2] for d in docs]   # → [[3, 4], [0, 4], [0, 4], [1, 0], [0, 2]]
 *   r = random.Random(1234)   # different splits: k drawn (an equal document is still dropped)
 *   [[x for x in r.sample(docs, 2) if x != d][:2] for d in docs]   # → [[3], [0, 4], [4, 0], [0, 4], [2, 1]]
 */
import { describe, expect, it } from 'vitest';
import { buildTaskContexts, buildTaskRequests } from '../../../src/eval/task-requests.js';
import { createFewshotDraw } from '../../../src/tasks/fewshot/sampler.js';
import type { FewshotConfig, MultipleChoiceDoc, MultipleChoiceTask } from '../../../src/tasks/types.js';

const doc = (docId: number, extra: Partial<MultipleChoiceDoc> = {}): MultipleChoiceDoc => ({
  docId,
  text: `Q${docId}:`,
  choices: ['no', 'yes'],
  target: docId % 2,
  source: { id: docId },
  ...extra,
});
const docs = [0, 1, 2, 3, 4].map((id) => doc(id));
const drawIds = (config: FewshotConfig, count: number, evaluated: readonly MultipleChoiceDoc[]): number[][] => {
  const draw = createFewshotDraw('demo', config, count);
  return evaluated.map((evaluatedDoc) => draw(evaluatedDoc).map((example) => example.docId));
};

describe('lm-eval few-shot draws', () => {
  it('default sampler, same split: draws k + 1 and drops the evaluated document', () => {
    expect(drawIds({ sampler: 'default', docs, drawsExtra: true }, 2, docs)).toEqual([
      [3, 4],
      [0, 4],
      [0, 4],
      [1, 0],
      [0, 2],
    ]);
  });

  it('default sampler without the extra draw takes k per document from one seeded stream', () => {
    // lm-eval still drops an equal document, leaving the first prompt one example short.
    expect(drawIds({ sampler: 'default', docs }, 2, docs)).toEqual([[3], [0, 4], [4, 0], [0, 4], [2, 1]]);
  });

  it('documents are equal when their sources are, whatever their key order (Python dict equality)', () => {
    const evaluated = doc(9, { source: { id: 3 } });
    const reordered = [0, 1, 2, 3, 4].map((id) => doc(id, { source: id === 3 ? { id: 3 } : { id, other: true } }));
    // Draw for the first document is [3, 0, 4]: the source equal to the evaluated one goes.
    expect(drawIds({ sampler: 'default', docs: reordered, drawsExtra: true }, 2, [evaluated])).toEqual([[0, 4]]);
  });

  it('first_n takes the first k (k + 1 with the extra draw, minus the evaluated one)', () => {
    expect(drawIds({ sampler: 'first_n', docs }, 2, [doc(7), doc(8)])).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(drawIds({ sampler: 'first_n', docs, drawsExtra: true }, 2, [docs[1] as MultipleChoiceDoc])).toEqual([[0, 2]]);
  });

  it('EXPECTED FAILURE – more shots than the split can give, or shots without a few-shot split', () => {
    expect(() => createFewshotDraw('demo', { sampler: 'default', docs, drawsExtra: true }, 5)).toThrow(/needs 6 few-shot documents.*has 5/);
    expect(() => createFewshotDraw('demo', undefined, 1)).toThrow(RangeError);
    expect(createFewshotDraw('demo', undefined, 0)(docs[0] as MultipleChoiceDoc)).toEqual([]);
  });
});

describe('few-shot contexts', () => {
  const task = (fewshotDocs: readonly MultipleChoiceDoc[], targetDelimiter = ' '): MultipleChoiceTask => ({
    kind: 'multiple_choice',
    name: 'demo',
    version: 1,
    description: 'D\n',
    targetDelimiter,
    fewshotDelimiter: '\n\n',
    docs: [doc(10)],
    fewshot: { sampler: 'first_n', docs: fewshotDocs },
    numFewshot: 2,
    metrics: ['acc'],
    tags: {},
    sourceFiles: [],
  });

  it('a block is text + delimiter + gold choice, or the string target when there is one', () => {
    const examples = [doc(0), doc(1, { targetText: '  gold text' })];
    expect(buildTaskContexts(task(examples))).toEqual(['D\nQ0: no\n\nQ1:   gold text\n\nQ10:']);
    expect(buildTaskRequests(task(examples)).map((request) => request.continuation)).toEqual([' no', ' yes']);
  });

  it('an empty string target adds nothing after the example text (lm-eval skips both delimiters)', () => {
    expect(buildTaskContexts(task([doc(0, { targetText: '' }), doc(1)], ''))).toEqual(['D\nQ0:Q1:yes\n\nQ10:']);
  });
});
