/**
 * `--lm-eval-version 0.4.13` writes the results file in the layout of a real lm-eval 0.4.13 run
 * (test/fixtures/lm-eval/0.4.13/stories260K-mmlu-results.json, recorded by
 * scripts/lm_eval/record_0413_expectations.py): same keys in the same order at every level, the same group
 * tree, versions, n-shot, higher_is_better and task configs. Values that depend on the model and the run (scores,
 * timings, environment) are not compared here; test/e2e/lm-eval-0413.e2e.test.ts compares scores. Needs no ../shared:
 * the MMLU data is the tiny 57-subject fixture, the metrics are made up.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskMetrics } from '../../src/eval/metrics.js';
import { buildResults } from '../../src/eval/results.js';
import type { LmEvalResults } from '../../src/eval/result-types.js';
import { lmEvalRunFacts } from '../../src/eval/run-facts.js';
import type { LmEvalVersion } from '../../src/eval/lm-eval-version.js';
import { loadSuite } from '../../src/tasks/registry.js';
import type { Suite } from '../../src/tasks/types.js';
import { repoRoot } from '../support/shared-data.js';
import { writeTinyMmlu } from '../support/tiny-datasets.js';

type Json = Record<string, unknown>;
const real = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/lm-eval/0.4.13/stories260K-mmlu-results.json'), 'utf8')) as Json;
const dir = mkdtempSync(path.join(tmpdir(), 'mlrb-layout-0413-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function results(suite: Suite, lmEvalVersion: LmEvalVersion): LmEvalResults {
  const taskMetrics = new Map<string, TaskMetrics>(
    suite.tasks.map((task, index) => [
      task.name,
      { taskName: task.name, n: task.docs.length, metrics: [{ metric: 'acc', value: (index % 4) / 4, stderr: 0.1 }], docs: [] },
    ]),
  );
  const facts = lmEvalRunFacts({
    modelSource: 'mlrb-onnx',
    modelName: 'stories260K-hf',
    startedAtUnixSeconds: 0,
    startMs: 0,
    endMs: 1000,
    environment: 'test',
    bos: { text: '<s>', id: 1 },
    eos: { text: '</s>', id: 2 },
    maxLength: 512,
    taskHashes: {},
    lmEvalVersion,
  });
  const mlrb = {
    tool_version: '0',
    model_sha256: '',
    model_content_sha256: '',
    data_fingerprint: '',
    provider: 'cpu',
    wall_time_s: 1,
    tokens_scored: 1,
    tokens_per_s: 1,
  };
  return buildResults({
    suites: [suite],
    taskMetrics,
    run: { modelPath: 'stories260K-hf', batchSize: 16, device: 'cpu', limit: 3 },
    facts,
    mlrb,
    lmEvalVersion,
  });
}

const keys = (value: unknown): string[] => Object.keys(value as Json);
const section = (file: unknown, name: string): Json => (file as Json)[name] as Json;

describe('lm-eval 0.4.13 results layout', async () => {
  const suite = await loadSuite('mmlu', { dataDir: writeTinyMmlu(dir), limit: 3 });
  const ours = results(suite, '0.4.13') as unknown as Json;

  it('has 0.4.13’s top-level keys in its order (plus our `mlrb`), without start_time/end_time', () => {
    expect(keys(ours).filter((key) => key !== 'mlrb')).toEqual(keys(real));
    expect(ours.lm_eval_version).toBe('0.4.13');
    expect(ours.fewshot_as_multiturn).toBeNull();
  });

  it('lists results and groups in 0.4.13’s order, with its entry fields', () => {
    for (const name of ['results', 'groups']) {
      expect(keys(section(ours, name))).toEqual(keys(section(real, name)));
      for (const entry of keys(section(real, name))) expect(keys(section(section(ours, name), entry))).toEqual(keys(section(section(real, name), entry)));
    }
    const mmlu = section(section(ours, 'groups'), 'mmlu');
    expect(mmlu.sample_len).toBe(suite.tasks.reduce((total, task) => total + task.docs.length, 0));
    expect(mmlu.sample_count).toEqual({ 'acc,none': mmlu.sample_len });
  });

  it('has the same group tree, versions, n-shot and higher_is_better; n-samples in results order', () => {
    for (const name of ['group_subtasks', 'versions', 'n-shot', 'higher_is_better']) expect(section(ours, name)).toEqual(section(real, name));
    expect(keys(section(ours, 'n-samples'))).toEqual(keys(section(real, 'n-samples')));
  });

  it('dumps task configs as 0.4.13 does (but for our dataset_files and lm-eval’s own YAML path)', () => {
    const ourConfigs = section(ours, 'configs');
    expect(keys(ourConfigs)).toEqual(keys(section(real, 'configs')));
    for (const [name, realConfig] of Object.entries(section(real, 'configs') as Record<string, Json>)) {
      const { dataset_files: _files, metadata, ...config } = ourConfigs[name] as Json;
      const { metadata: realMetadata, ...expected } = realConfig;
      expect(config).toEqual(expected);
      expect(keys(config)).toEqual(keys(expected));
      const { dtype: _dtype, config_source: _source, ...realModelArgs } = realMetadata as Json;
      expect(metadata).toEqual(realModelArgs);
    }
    expect(section(section(ours, 'config'), 'model_args')).toEqual({ pretrained: 'stories260K-hf' });
  });

  it('keeps the v0.4.4–v0.4.8 layout by default', () => {
    const old = results(suite, '0.4.4-0.4.8') as unknown as Json;
    expect(old.lm_eval_version).toBe('0.4.8');
    expect(keys(old)).toContain('start_time');
    expect(keys(section(section(old, 'results'), 'mmlu_anatomy'))).toEqual(['alias', 'acc,none', 'acc_stderr,none']);
    expect(keys(section(old, 'group_subtasks'))[0]).toBe('mmlu_humanities');
  });
});
