/**
 * `mlrb-eval model-metrics` end to end: perplexity on the committed tiny Llama (its figures are transformers',
 * recorded in perplexity-expectations.json), the timing metrics through an injected scripted generator (the real
 * engine is connected in src/model-metrics/generation-engine.ts), usage errors, and the real stories260K when
 * ../shared is there.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runModelMetricsCommand } from '../../src/cli/model-metrics-command.js';
import type { GenerationSubjectFactory } from '../../src/model-metrics/model-metrics-options.js';
import { modelMetrics } from '../../src/index.js';
import { runCli } from '../support/run-cli.js';
import { scriptedSubject } from '../support/scripted-timing-generator.js';
import { writeEosFirstModel } from '../support/odd-models.js';
import { hasShared, sharedPaths } from '../support/shared-data.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'model-metrics');
const tinyModel = path.join(fixtures, 'tiny-llama');
const hubData = path.join(fixtures, 'wikitext-hub');
const rawText = path.join(fixtures, 'wikitext-2-raw', 'wiki.test.raw');
const expected = JSON.parse(readFileSync(path.join(fixtures, 'perplexity-expectations.json'), 'utf8')) as {
  models: Record<string, { perplexity: number; windows: number; mlrb_summary: { avg: number } }>;
};
const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-model-metrics-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const relativeError = (actual: number, reference: number): number => Math.abs(actual - reference) / Math.abs(reference);

async function runWithGenerator(args: readonly string[], generation: GenerationSubjectFactory): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (chunk: string) => void) => ({ write: (chunk: string) => (append(chunk), true) }) as unknown as NodeJS.WritableStream;
  const code = await runModelMetricsCommand(args, { stdout: sink((chunk) => (stdout += chunk)), stderr: sink((chunk) => (stderr += chunk)) }, generation);
  return { code, stdout, stderr };
}

describe('mlrb-eval model-metrics', () => {
  it('--only perplexity on the committed model matches transformers and writes --output', async () => {
    const output = path.join(workDir, 'metrics.json');
    const { code, stderr } = await runCli(['model-metrics', tinyModel, '--data-dir', hubData, '--only', 'perplexity', '--output', output]);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(readFileSync(output, 'utf8'));
    const reference = expected.models['tiny-llama']!;
    expect(report.schema).toBe('mlrb-eval/model-metrics');
    expect(report.perplexity.procedure).toMatchObject({ window_tokens: 256, first_scored_position: 129, scored_tokens_per_window: 127 });
    expect(report.perplexity.data).toMatchObject({ dataset: 'wikitext-2-raw-v1/test', layout: 'hub' });
    expect(report.perplexity.windows).toBe(reference.windows);
    expect(relativeError(report.perplexity.perplexity, reference.perplexity)).toBeLessThan(1e-4);
    expect(relativeError(report.perplexity.mlrb.avg, reference.mlrb_summary.avg)).toBeLessThan(1e-4);
    expect(report.tokens_per_second).toBeNull();
    expect(report.latency).toBeNull();
    expect(stderr).toMatch(/perplexity \(MLRB: mean of running perplexities\): \d+\.\d{4}/);
  });

  it('measures the timing metrics with the built-in engine by default; --only picks metrics', async () => {
    const timed = await runCli([
      'model-metrics',
      tinyModel,
      '--text',
      rawText,
      '--only',
      'tokens-per-second,latency',
      '--warmup',
      '1',
      '--runs',
      '2',
      '--latency-warmup',
      '0',
      '--latency-runs',
      '1',
      '--max-length',
      '80',
    ]);
    expect(timed.code, timed.stderr).toBe(0);
    const report = JSON.parse(timed.stdout);
    expect(report.perplexity).toBeNull();
    expect(report.tokens_per_second.runs).toHaveLength(2);
    for (const value of report.tokens_per_second.runs) expect(value).toBeGreaterThan(0);
    for (const generated of report.tokens_per_second.generated_tokens) expect(generated).toBeGreaterThan(0);
    expect(report.latency.runs_ms).toHaveLength(1);
    const plain = await runCli(['model-metrics', tinyModel, '--text', rawText, '--only', 'perplexity']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout).perplexity.data.layout).toBe('text-file');
  });

  it('runs the timing metrics through the generator factory it is given', async () => {
    // 1 + 2 tokens-per-second runs, then 1 + 1 latency runs: five scripted calls.
    const scripted = scriptedSubject(
      Array.from({ length: 5 }, () => ({ tokens: 40, ms: 100 })),
      5,
    );
    const { code, stdout, stderr } = await runWithGenerator(
      [tinyModel, '--text', rawText, '--warmup', '1', '--runs', '2', '--latency-warmup', '1', '--latency-runs', '1', '--seed', '3'],
      async () => scripted.subject,
    );
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout);
    expect(scripted.generator.calls).toHaveLength(5);
    expect(report.tokens_per_second.procedure).toMatchObject({ warmup_runs: 1, timed_runs: 2, max_length: 200, temperature: 0.8, top_k: 300, seed: 3 });
    expect(report.tokens_per_second.runs).toHaveLength(2);
    expect(report.latency.runs_ms).toHaveLength(1);
    expect(report.perplexity).not.toBeNull();
    expect(stderr).toMatch(/tokens per second: \d+\.\d\d ± \d+\.\d\d/);
  });

  it('refuses conflicting or bad flags (exit 2) and names missing data (exit 1)', async () => {
    expect((await runCli(['model-metrics', tinyModel, '--data-dir', hubData, '--text', rawText])).code).toBe(2);
    expect((await runCli(['model-metrics', tinyModel, '--only', 'speed'])).stderr).toMatch(/--only expects some of perplexity, tokens-per-second, latency/);
    // The command throws its usage errors; main() turns them into exit codes.
    await expect(runWithGenerator([tinyModel, '--text', rawText, '--runs', '0'], async () => scriptedSubject([], 0).subject)).rejects.toMatchObject({
      exitCode: 2,
    });
    const missing = path.join(workDir, 'no-wikitext');
    const noData = await runCli(['model-metrics', tinyModel, '--data-dir', missing]);
    expect(noData.code).toBe(1);
    expect(noData.stderr).toMatch(/BAD_DATA/);
    expect(noData.stderr).toContain(missing);
  });

  it('the library entry times generation with the built-in engine when no factory is given', async () => {
    const report = await modelMetrics({ model: tinyModel, textFile: rawText, metrics: ['latency'], latency: { warmupRuns: 0, timedRuns: 2 }, maxLength: 80 });
    expect(report.perplexity).toBeNull();
    expect(report.latency?.runs_ms).toHaveLength(2);
  });

  it('latency generates the full length with EOS disabled, on a model that ends every generation with EOS at once', async () => {
    const model = writeEosFirstModel(path.join(workDir, 'eos-first'));
    const report = await modelMetrics({
      model,
      metrics: ['tokens-per-second', 'latency'],
      tokensPerSecond: { warmupRuns: 0, timedRuns: 3 },
      latency: { warmupRuns: 1, timedRuns: 3 },
    });
    const tokensPerSecond = report.tokens_per_second!;
    const latency = report.latency!;
    // Tokens per second lets the model's EOS end a run: one token (the EOS) each time.
    expect(tokensPerSecond.generated_tokens).toEqual([1, 1, 1]);
    // latency.py sets eos_token_id = None: max_length 200 less the prompt, every run.
    expect(latency.procedure.prompt_tokens).toBe(tokensPerSecond.procedure.prompt_tokens);
    expect(latency.generated_tokens).toEqual([1, 2, 3].map(() => 200 - latency.procedure.prompt_tokens));
  });
});

describe.skipIf(!hasShared)('mlrb-eval model-metrics on stories260K (../shared)', () => {
  it('--only perplexity agrees with transformers on the real weights', async () => {
    const { code, stdout, stderr } = await runCli(['model-metrics', sharedPaths.stories, '--text', rawText, '--only', 'perplexity']);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout);
    expect(relativeError(report.perplexity.mlrb.avg, expected.models['stories260K']!.mlrb_summary.avg)).toBeLessThan(1e-4);
  });
});
