import { describe, expect, it } from 'vitest';
import { aggregateGroups, aggregateSubtaskMetrics, breakdownByTag, pooledSampleStderr } from '../../src/eval/aggregate.js';
import type { TaskMetrics } from '../../src/eval/metrics.js';
import type { MultipleChoiceTask, TaskGroup } from '../../src/tasks/types.js';

const metrics = (taskName: string, n: number, value: number, stderr: number | 'N/A'): TaskMetrics => ({
  taskName,
  n,
  metrics: [{ metric: 'acc', value, stderr }],
  docs: [],
});

// a: items [1, 0] → 0.5 ± 0.5;  b: items [1, 0, 1, 1] → 0.75 ± 0.25;  c: items [0, 0] → 0 ± 0.
const byName = new Map([metrics('a', 2, 0.5, 0.5), metrics('b', 4, 0.75, 0.25), metrics('c', 2, 0, 0)].map((m) => [m.taskName, m]));

describe('lm-eval group formulas', () => {
  it('aggregate_subtask_metrics: weighted by size or plain mean', () => {
    expect(aggregateSubtaskMetrics([0.5, 0.75], [2, 4], true)).toBeCloseTo(4 / 6, 15);
    expect(aggregateSubtaskMetrics([0.5, 0.75], [2, 4], false)).toBe(0.625);
  });

  it('pooled_sample_stderr: sqrt(Σ(n−1)·se²·n / (Σn − k) / Σn)', () => {
    // ((1·0.25·2) + (3·0.0625·4)) / (6 − 2) = 0.3125; / 6 → sqrt = 0.228217…
    expect(pooledSampleStderr([0.5, 0.25], [2, 4])).toBeCloseTo(Math.sqrt(0.3125 / 6), 15);
  });
});

describe('aggregateGroups', () => {
  it('weights a flat group by size and pools the stderr', () => {
    const groups: TaskGroup[] = [{ name: 'g', subtasks: ['a', 'b'], weightBySize: true, version: 1 }];
    const result = aggregateGroups(groups, byName).get('g');
    expect(result?.n).toBe(6);
    expect(result?.metrics[0]?.value).toBeCloseTo(4 / 6, 15);
    expect(result?.metrics[0]?.stderr).toBeCloseTo(Math.sqrt(0.3125 / 6), 15);
  });

  it('aggregates nested groups over the leaf tasks, not over the sub-groups’ scores', () => {
    const groups: TaskGroup[] = [
      { name: 'top', subtasks: ['g1', 'g2'], weightBySize: false, version: 2 },
      { name: 'g1', subtasks: ['a'], weightBySize: true, version: 2 },
      { name: 'g2', subtasks: ['b', 'c'], weightBySize: true, version: 2 },
    ];
    const result = aggregateGroups(groups, byName);
    expect(result.get('g2')?.metrics[0]?.value).toBe(0.5); // (3 + 0) / 6
    // Over leaves: (0.5 + 0.75 + 0) / 3; over sub-groups it would be (0.5 + 0.5) / 2.
    expect(result.get('top')?.metrics[0]?.value).toBeCloseTo(1.25 / 3, 15);
    expect(result.get('top')?.leafTasks).toEqual(['a', 'b', 'c']);
    // Pooled over leaves: (1·0.25·2 + 3·0.0625·4 + 1·0·2) / (8 − 3) / 8.
    expect(result.get('top')?.metrics[0]?.stderr).toBeCloseTo(Math.sqrt(1.25 / 5 / 8), 15);
  });

  it('the weighted top group equals the micro average over all leaf documents', () => {
    const groups: TaskGroup[] = [
      { name: 'top', subtasks: ['g1', 'g2'], weightBySize: true, version: 2 },
      { name: 'g1', subtasks: ['a'], weightBySize: true, version: 2 },
      { name: 'g2', subtasks: ['b', 'c'], weightBySize: true, version: 2 },
    ];
    expect(aggregateGroups(groups, byName).get('top')?.metrics[0]?.value).toBe(4 / 8); // 1 + 3 + 0 correct of 8
  });

  it('a leaf stderr of "N/A" makes the group stderr "N/A"', () => {
    const withSingle = new Map([...byName, ['d', metrics('d', 1, 1, 'N/A')]]);
    const result = aggregateGroups([{ name: 'g', subtasks: ['a', 'd'], weightBySize: true, version: 1 }], withSingle);
    expect(result.get('g')?.metrics[0]?.stderr).toBe('N/A');
  });

  it('EXPECTED FAILURE – unknown subtasks and cycles', () => {
    expect(() => aggregateGroups([{ name: 'g', subtasks: ['zzz'], weightBySize: true, version: 1 }], byName)).toThrow(/zzz/);
    const cyclic: TaskGroup[] = [
      { name: 'x', subtasks: ['y'], weightBySize: true, version: 1 },
      { name: 'y', subtasks: ['x'], weightBySize: true, version: 1 },
    ];
    expect(() => aggregateGroups(cyclic, byName)).toThrow(/cycle/);
  });
});

describe('breakdownByTag', () => {
  const task = (name: string, field: string): MultipleChoiceTask => ({
    kind: 'multiple_choice',
    name,
    version: 1,
    description: '',
    targetDelimiter: ' ',
    fewshotDelimiter: '\n\n',
    docs: [],
    metrics: ['acc'],
    tags: { field },
    sourceFiles: [],
  });

  it('is the unweighted mean of the tasks sharing a tag value', () => {
    const rows = breakdownByTag([task('a', 'syntax'), task('b', 'syntax'), task('c', 'morphology')], byName, 'field');
    expect(rows.map((row) => [row.tagValue, row.tasks, row.n, row.metrics[0]?.value])).toEqual([
      ['syntax', ['a', 'b'], 6, 0.625],
      ['morphology', ['c'], 2, 0],
    ]);
  });
});
