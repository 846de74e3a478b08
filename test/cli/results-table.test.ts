import { describe, expect, it } from 'vitest';
import { formatFixed, renderResultsTable } from '../../src/cli/table.js';
import type { TaskMetrics } from '../../src/eval/metrics.js';
import { buildResults } from '../../src/eval/results.js';
import type { MlrbRunInfo } from '../../src/eval/result-types.js';
import type { MultipleChoiceTask, Suite } from '../../src/tasks/types.js';
import { BLIMP_PARADIGMS } from '../../src/tasks/blimp/paradigms.js';

const task = (name: string, docCount: number, alias?: string): MultipleChoiceTask => ({
  kind: 'multiple_choice',
  name,
  version: 1,
  description: 'Desc.\n\n',
  targetDelimiter: ' ',
  fewshotDelimiter: '\n\n',
  docs: Array.from({ length: docCount }, (_, docId) => ({ docId, text: 'q', choices: ['A', 'B'], target: 0, source: {} })),
  numFewshot: 0,
  totalDocs: 10,
  metrics: ['acc'],
  tags: {},
  sourceFiles: [`/data/${name}.csv`],
  ...(alias !== undefined
    ? {
        lmEval: {
          alias,
          datasetPath: 'hub/demo',
          splits: { test_split: 'test' },
          docToText: '{{q}}',
          docToTarget: 'answer',
          docToChoice: ['A', 'B'],
          shouldDecontaminate: false,
        },
      }
    : {}),
});

const suite: Suite = {
  name: 'demo',
  tasks: [task('demo_b', 4), task('demo_a', 2, 'a')],
  groups: [{ name: 'demo', subtasks: ['demo_b', 'demo_a'], weightBySize: true, version: 2 }],
};
const taskMetrics = new Map<string, TaskMetrics>([
  ['demo_a', { taskName: 'demo_a', n: 2, metrics: [{ metric: 'acc', value: 0.5, stderr: 0.5 }], docs: [] }],
  ['demo_b', { taskName: 'demo_b', n: 4, metrics: [{ metric: 'acc', value: 0.75, stderr: 0.25 }], docs: [] }],
]);
const mlrb: MlrbRunInfo = {
  tool_version: '0.1.0',
  model_sha256: 'ab',
  model_content_sha256: 'cd',
  data_fingerprint: 'cd',
  provider: 'cpu',
  wall_time_s: 1.5,
  tokens_scored: 100,
  tokens_per_s: 66.7,
};
const results = buildResults({ suites: [suite], taskMetrics, run: { modelPath: '/m/model.onnx', batchSize: 8, limit: 4 }, mlrb });

describe('buildResults', () => {
  it('orders results depth first with sorted names and plain aliases (make_table indents by depth)', () => {
    expect(Object.keys(results.results)).toEqual(['demo', 'demo_a', 'demo_b']);
    expect(results.results.demo_a).toEqual({ alias: 'a', 'acc,none': 0.5, 'acc_stderr,none': 0.5 });
    expect(results.results.demo_b?.alias).toBe('demo_b');
    expect(results.groups?.demo?.alias).toBe('demo');
    expect(results.groups?.demo?.['acc,none']).toBeCloseTo(4 / 6, 15);
  });

  it('fills the lm-eval bookkeeping sections', () => {
    expect(results.group_subtasks).toEqual({ demo: ['demo_b', 'demo_a'] });
    expect(results.versions).toEqual({ demo: 2, demo_a: 1, demo_b: 1 });
    expect(results['n-shot']).toEqual({ demo_a: 0, demo_b: 0 });
    expect(results.higher_is_better).toEqual({ demo: { acc: true }, demo_a: { acc: true }, demo_b: { acc: true } });
    expect(results['n-samples']).toEqual({ demo_b: { original: 10, effective: 4 }, demo_a: { original: 10, effective: 2 } });
    expect(results.configs.demo_a).toMatchObject({
      task: 'demo_a',
      task_alias: 'a',
      dataset_path: 'hub/demo',
      dataset_files: ['/data/demo_a.csv'],
      test_split: 'test',
      description: 'Desc.\n\n',
      target_delimiter: ' ',
      fewshot_delimiter: '\n\n',
      num_fewshot: 0,
      metric_list: [{ metric: 'acc', aggregation: 'mean', higher_is_better: true }],
      output_type: 'multiple_choice',
      metadata: { version: 1 },
    });
    expect(results.config).toMatchObject({ model_path: '/m/model.onnx', batch_size: 8, limit: 4 });
    expect(results.mlrb).toEqual(mlrb);
    expect(JSON.parse(JSON.stringify(results))).toEqual(results);
  });
});

describe('renderResultsTable', () => {
  it('renders lm-eval make_table layout', () => {
    expect(renderResultsTable(results)).toBe(
      [
        '|  Tasks  |Version|Filter|n-shot|Metric|   |Value |   |Stderr|',
        '|---------|------:|------|-----:|------|---|-----:|---|-----:|',
        '|demo     |      2|none  |      |acc   |↑  |0.6667|±  |0.2282|',
        '| - a     |      1|none  |     0|acc   |↑  |0.5000|±  |0.5000|',
        '| - demo_b|      1|none  |     0|acc   |↑  |0.7500|±  |0.2500|',
        '',
      ].join('\n'),
    );
    expect(renderResultsTable(results, 'groups').split('\n')[0]).toBe('|Groups|Version|Filter|n-shot|Metric|   |Value |   |Stderr|');
  });

  it('prints every name whole, however wide, as make_table does (never cut to a shared "…" prefix)', () => {
    const names = BLIMP_PARADIGMS.map((paradigm) => `blimp_${paradigm}`);
    const blimp: Suite = {
      name: 'blimp',
      tasks: names.map((name) => task(name, 2)),
      groups: [{ name: 'blimp', subtasks: names, weightBySize: false, version: 2 }],
    };
    const metrics = new Map<string, TaskMetrics>(
      names.map((name) => [name, { taskName: name, n: 2, metrics: [{ metric: 'acc', value: 0.5, stderr: 0.5 }], docs: [] }]),
    );
    const table = renderResultsTable(
      buildResults({ suites: [blimp], taskMetrics: metrics, run: { modelPath: '/m/model.onnx', batchSize: 8, limit: 2 }, mlrb }),
    );
    const labels = table
      .split('\n')
      .slice(2, -1)
      .map((line) => line.split('|')[1]?.trimEnd());
    // make_table's label for a subtask at depth 1 is " - " + its alias (test/fixtures/lm-eval/tiny-run.make_table.json).
    expect(labels).toEqual(['blimp', ...[...names].sort().map((name) => ` - ${name}`)]);
    expect(Math.max(...names.map((name) => name.length))).toBeGreaterThan(50); // long enough that the old 100-column fit cut it
  });

  it('formats like Python "%.4f": exact ties round half to even', () => {
    expect(formatFixed(0.03125, 4)).toBe('0.0312'); // toFixed would give 0.0313
    expect(formatFixed(0.09375, 4)).toBe('0.0938');
    expect(formatFixed(0.00005, 4)).toBe('0.0001'); // 5e-5 is a hair above the tie as a double
    expect(formatFixed(2 / 3, 4)).toBe('0.6667');
    expect(formatFixed(1, 4)).toBe('1.0000');
  });
});
