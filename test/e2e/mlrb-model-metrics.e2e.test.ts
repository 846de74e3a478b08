/**
 * `mlrb-eval mlrb TASK MODEL --model-metrics` end to end on the committed tiny Llama: the record's perplexity is
 * what modelMetrics() reports for the same model and text, and what transformers computed
 * (perplexity-expectations.json); the timing metrics ran the counts asked for; WikiText that is not there leaves
 * perplexity not measured with the loader's reason while the timings are still measured.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelMetrics, type ModelMetricsReport } from '../../src/model-metrics/model-metrics.js';
import { parseRunRecord, type ModelMetricsSection, type RunRecord } from '../../src/mlrb/run-record.js';
import { repoRoot } from '../support/shared-data.js';
import { runCli } from '../support/run-cli.js';
import { writeTinyMmlu } from '../support/tiny-datasets.js';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'model-metrics');
const tinyModel = path.join(fixtures, 'tiny-llama');
const hubData = path.join(fixtures, 'wikitext-hub');
const rawText = path.join(fixtures, 'wikitext-2-raw', 'wiki.test.raw');
const transformers = (
  JSON.parse(readFileSync(path.join(fixtures, 'perplexity-expectations.json'), 'utf8')) as {
    models: Record<string, { perplexity: number; windows: number; mlrb_summary: { avg: number } }>;
  }
).models['tiny-llama']!;

/** Few timed runs: the counts are what is checked, not the speed. */
const TIMING_FLAGS = ['--tps-warmup', '1', '--tps-runs', '2', '--latency-warmup', '0', '--latency-runs', '1'];

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-model-metrics-'));
/** A data folder as `--data` takes it: MMLU for the suite, WikiText in its wikitext/ sub-folder. */
const dataDir = path.join(workDir, 'data');
/** A data folder with MMLU and no WikiText. */
const noWikitextDir = path.join(workDir, 'data-without-wikitext');

beforeAll(() => {
  writeTinyMmlu(path.join(dataDir, 'mmlu'));
  cpSync(hubData, path.join(dataDir, 'wikitext'), { recursive: true });
  writeTinyMmlu(path.join(noWikitextDir, 'mmlu'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

let recordsWritten = 0;
async function runTask(args: readonly string[]): Promise<{ record: RunRecord; stderr: string }> {
  recordsWritten += 1;
  const output = path.join(workDir, 'records', `${recordsWritten}.json`);
  mkdirSync(path.dirname(output), { recursive: true });
  const run = await runCli(['mlrb', ...args, '--output', output]);
  expect(run.code, run.stderr).toBe(0);
  return { record: parseRunRecord(JSON.parse(readFileSync(output, 'utf8'))), stderr: run.stderr };
}

const relativeError = (actual: number, reference: number): number => Math.abs(actual - reference) / Math.abs(reference);

function expectTimings(report: ModelMetricsSection['report']): void {
  expect(report?.tokens_per_second?.procedure).toMatchObject({ warmup_runs: 1, timed_runs: 2, max_length: 200, temperature: 0.8, top_k: 300 });
  expect(report?.tokens_per_second?.runs).toHaveLength(2);
  for (const value of report?.tokens_per_second?.runs ?? []) expect(value).toBeGreaterThan(0);
  expect(report?.tokens_per_second?.summary.avg).toBeGreaterThan(0);
  expect(report?.latency?.procedure).toMatchObject({ warmup_runs: 0, timed_runs: 1, divided_by: 512 });
  expect(report?.latency?.runs_ms).toHaveLength(1);
  expect(report?.latency?.ms_per_token.avg).toBeCloseTo((report?.latency?.runs_ms[0] ?? Number.NaN) / 512, 12);
}

describe('mlrb-eval mlrb --model-metrics', () => {
  it("records modelMetrics()'s perplexity (transformers' within 1e-4) and the timings, after the suites, WikiText from --data", async () => {
    const { record, stderr } = await runTask(['llm_merging', tinyModel, '--data', dataDir, '--model-metrics', ...TIMING_FLAGS]);
    expect(record.schema_version).toBe(3);
    expect(record.suites).toEqual([{ name: 'mmlu', role: 'headline', status: 'scored', reason: null, error_code: null, fetch: null }]);
    const section = record.model_metrics;
    expect(section?.metrics).toEqual(
      ['tokens_per_second', 'perplexity', 'latency'].map((name) => ({ name, status: 'measured', reason: null, error_code: null, fetch: null })),
    );
    expect(record.not_available.map((item) => item.name)).not.toContain('perplexity');

    const reference: ModelMetricsReport = await modelMetrics({ model: tinyModel, dataDir: hubData, metrics: ['perplexity'] });
    const perplexity = section?.report?.perplexity;
    expect(perplexity).toMatchObject({
      procedure: reference.perplexity?.procedure,
      windows: transformers.windows,
      perplexity: reference.perplexity?.perplexity,
      mlrb: reference.perplexity?.mlrb,
      running_perplexity: reference.perplexity?.running_perplexity,
      data: { dataset: 'wikitext-2-raw-v1/test', layout: 'hub' },
    });
    expect(relativeError(perplexity?.perplexity ?? Number.NaN, transformers.perplexity)).toBeLessThan(1e-4);
    expect(relativeError(perplexity?.mlrb.avg ?? Number.NaN, transformers.mlrb_summary.avg)).toBeLessThan(1e-4);
    expectTimings(section?.report ?? null);
    expect(stderr).toMatch(/perplexity: \d+\.\d{4} \(MLRB's mean/);
    expect(stderr).toMatch(/tokens per second: \d+\.\d{2}/);
  });

  it("without WikiText records perplexity as not measured with the loader's reason, and still measures the timings", async () => {
    const { record, stderr } = await runTask(['mini_llm_merging', tinyModel, '--data', noWikitextDir, '--model-metrics', ...TIMING_FLAGS]);
    const [tokensPerSecond, perplexity, latency] = record.model_metrics?.metrics ?? [];
    expect(tokensPerSecond).toMatchObject({ name: 'tokens_per_second', status: 'measured' });
    expect(perplexity).toMatchObject({ name: 'perplexity', status: 'not_measured', error_code: 'BAD_DATA', reason: expect.stringContaining('WikiText-2') });
    expect(latency).toMatchObject({ name: 'latency', status: 'measured' });
    expect(record.model_metrics?.report?.perplexity).toBeNull();
    expectTimings(record.model_metrics?.report ?? null);
    expect(stderr).toContain('perplexity: NOT MEASURED');
  });

  it('--perplexity-text measures perplexity on that text, as modelMetrics() does', async () => {
    const { record } = await runTask(['llm_merging', tinyModel, '--data', noWikitextDir, '--model-metrics', '--perplexity-text', rawText, ...TIMING_FLAGS]);
    const reference = await modelMetrics({ model: tinyModel, textFile: rawText, metrics: ['perplexity'] });
    expect(record.model_metrics?.report?.perplexity).toMatchObject({
      perplexity: reference.perplexity?.perplexity,
      mlrb: reference.perplexity?.mlrb,
      data: { layout: 'text-file' },
    });
  });

  it('without --model-metrics the record has none, and not_available says how to get them', async () => {
    const { record } = await runTask(['llm_merging', tinyModel, '--data', noWikitextDir]);
    expect(record.model_metrics).toBeNull();
    const listed = record.not_available.filter((item) => item.kind === 'metric');
    expect(listed.map((item) => item.name)).toEqual(['tokens_per_second', 'perplexity', 'latency']);
    for (const item of listed) expect(item.reason).toContain('--model-metrics');
  });

  it('BAD CALL – model-metrics flags without --model-metrics, or two perplexity texts, are usage errors (exit 2)', async () => {
    const lonely = await runCli(['mlrb', 'llm_merging', tinyModel, '--wikitext-dir', hubData]);
    expect(lonely.code).toBe(2);
    expect(lonely.stderr).toContain('--wikitext-dir needs --model-metrics');
    const both = await runCli(['mlrb', 'llm_merging', tinyModel, '--model-metrics', '--wikitext-dir', hubData, '--perplexity-text', rawText]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
  });
});
