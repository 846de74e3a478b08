/** `--shard I/N`: which documents each shard scores (src/run/shard.ts), against hand-worked and property checks. */
import { describe, expect, it } from 'vitest';
import { checkShardSpec, parseShardSpec, shardDocuments } from '../../src/run/shard.js';
import type { MultipleChoiceTask } from '../../src/tasks/types.js';

/** Tasks with the given document counts; doc ids are spread out, as a --limit'ed or filtered split's may be. */
function tasksOfSizes(sizes: readonly number[]): MultipleChoiceTask[] {
  return sizes.map((size, taskIndex) => ({
    kind: 'multiple_choice',
    name: `task_${taskIndex}`,
    version: 1,
    description: '',
    targetDelimiter: ' ',
    fewshotDelimiter: '\n\n',
    docs: Array.from({ length: size }, (_, position) => ({ docId: position * 3 + 1, text: `d${position}`, choices: ['a', 'b'], target: 0, source: {} })),
    metrics: ['acc'],
    tags: {},
    sourceFiles: [],
  }));
}

const asArrays = (selected: Map<string, Set<number>>): Record<string, number[]> =>
  Object.fromEntries([...selected].map(([task, ids]) => [task, [...ids].sort((a, b) => a - b)]));

describe('shard specs', () => {
  it('parses I/N counted from 0', () => {
    expect(parseShardSpec('0/3')).toEqual({ index: 0, count: 3 });
    expect(parseShardSpec('2/3')).toEqual({ index: 2, count: 3 });
    expect(parseShardSpec('0/1')).toEqual({ index: 0, count: 1 });
  });

  it('EXPECTED FAILURE – an index outside 0 … N-1, a zero count, or another form is a RangeError naming the rule', () => {
    expect(() => parseShardSpec('3/3')).toThrow(/from 0 to 2 \(shards are numbered from 0\); got 3/);
    expect(() => parseShardSpec('1/0')).toThrow(RangeError);
    for (const text of ['-1/3', '1-3', '1/3/4', 'a/b', '', '1.5/3']) expect(() => parseShardSpec(text)).toThrow(/--shard expects I\/N/);
    expect(() => checkShardSpec({ index: 0.5, count: 2 })).toThrow(RangeError);
  });
});

describe('shardDocuments', () => {
  it('deals documents round-robin over the run in task order (hand-worked)', () => {
    // Ordinals: task_0 docs 1, 4, 7 → 0, 1, 2; task_1 docs 1, 4 → 3, 4.
    const tasks = tasksOfSizes([3, 2]);
    expect(asArrays(shardDocuments(tasks, { index: 0, count: 2 }))).toEqual({ task_0: [1, 7], task_1: [4] });
    expect(asArrays(shardDocuments(tasks, { index: 1, count: 2 }))).toEqual({ task_0: [4], task_1: [1] });
  });

  it('is disjoint, covering and balanced, for many task shapes and shard counts', () => {
    for (const sizes of [[1000, 1000, 1000], [5, 1, 7, 2], [1], [3, 0, 3], [56, 277, 3270, 1000]]) {
      const tasks = tasksOfSizes(sizes);
      for (const count of [1, 2, 3, 7, 16, 100]) {
        const shards = Array.from({ length: count }, (_, index) => shardDocuments(tasks, { index, count }));
        for (const task of tasks) {
          const perShard = shards.map((selected) => [...(selected.get(task.name) ?? [])]);
          const all = perShard.flat();
          expect(new Set(all).size, 'disjoint').toBe(all.length);
          expect(new Set(all), 'covering').toEqual(new Set(task.docs.map((doc) => doc.docId)));
          const sizesPerShard = perShard.map((ids) => ids.length);
          expect(Math.max(...sizesPerShard) - Math.min(...sizesPerShard), `per task, ${task.name} over ${count}`).toBeLessThanOrEqual(1);
        }
        const totals = shards.map((selected) => [...selected.values()].reduce((sum, ids) => sum + ids.size, 0));
        expect(Math.max(...totals) - Math.min(...totals), 'overall').toBeLessThanOrEqual(1);
      }
    }
  });

  it('depends only on the tasks and the spec: the same on every call, whatever was asked before', () => {
    const tasks = tasksOfSizes([5, 1, 7, 2]);
    const first = asArrays(shardDocuments(tasks, { index: 2, count: 4 }));
    for (let index = 3; index >= 0; index -= 1) shardDocuments(tasks, { index, count: 4 });
    expect(asArrays(shardDocuments(tasksOfSizes([5, 1, 7, 2]), { index: 2, count: 4 }))).toEqual(first);
  });
});
