/**
 * An encoder-decoder (the tiny T5 export) everywhere a causal model goes: the CLI's scoring with its results JSON,
 * shards and their merge, the score cache, the wikitext (loglikelihood_rolling) and gsm8k (generate_until) kinds,
 * `generate`, `math-reasoning`, `mlrb math_reasoning` and `model-metrics` (tokens per second and latency; MLRB's
 * perplexity refused with the reason). The numbers themselves are held to lm-eval and transformers elsewhere
 * (test/e2e/seq2seq-lm-eval.e2e.test.ts, test/engine/seq2seq-models.native.test.ts); here: that every path runs the
 * encoder-decoder, end to end.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, evaluateShard } from '../../src/run/evaluate.js';
import { mergeShards } from '../../src/run/merge-shards.js';
import type { MathReasoningReport } from '../../src/math-reasoning/score.js';
import type { ModelMetricsReport } from '../../src/model-metrics/model-metrics.js';
import { withoutProcessFacts } from '../support/process-facts.js';
import { runCli } from '../support/run-cli.js';
import { readSeq2SeqExpectation, seq2seqFolder, type RecordedGenerations } from '../support/seq2seq-fixtures.js';
import { repoRoot } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { writeTinyBlimp } from '../support/tiny-datasets.js';

const work = makeTempDir('seq2seq-commands');
const t5 = seq2seqFolder('t5', 'past');
const blimpDir = writeTinyBlimp(path.join(work, 'blimp'));
const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const FAKE_LEAN = path.join(repoRoot, 'test/support/fake-lean.mjs');
const problems = path.join(work, 'problems.jsonl');
writeFileSync(
  problems,
  [
    { name: 'add_zero', informal_statement: 'n + 0 = n', informal_proof: 'by definition', formal_proof: 'theorem add_zero (n : ℕ) : n + 0 = n := rfl' },
    { name: 'two', informal_statement: '1 + 1 = 2', informal_proof: 'compute', formal_proof: 'theorem two : 1 + 1 = 2 := rfl' },
  ]
    .map((row) => JSON.stringify(row))
    .join('\n'),
);

describe('scoring an encoder-decoder', () => {
  it('from the CLI: results name every graph and hash them together', async () => {
    const output = path.join(work, 'results.json');
    const run = await runCli([t5, '--tasks', 'blimp', '--data', blimpDir, '--allow-partial', '--no-cache', '--quiet', '--output', output]);
    expect(run.code, run.stderr).toBe(0);
    const results = readJson<{ results: Record<string, Record<string, number>>; mlrb: Record<string, unknown> }>(output);
    expect(results.mlrb['model_file']).toBe('encoder_model.onnx + decoder_model.onnx + decoder_with_past_model.onnx');
    expect(results.mlrb['model_sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(results.results)).toEqual(['blimp_partial', 'blimp_toy_agreement', 'blimp_toy_order']);
  });

  it('shards merge to the unsharded run; a rerun with the score cache scores nothing', async () => {
    const common = { model: t5, suite: 'blimp', dataDir: blimpDir, allowPartial: true, logSamples: true } as const;
    const whole = await evaluate({ ...common, cacheDir: false });
    const shards = [];
    for (const index of [0, 1])
      shards.push({ file: `shard-${index}`, record: await evaluateShard({ ...common, cacheDir: false, shard: { index, count: 2 } }) });
    const merged = await mergeShards(shards, { logSamples: true });
    expect(withoutProcessFacts({ ...merged.results })).toEqual(withoutProcessFacts({ ...whole.results }));
    expect(merged.samples).toEqual(whole.samples);

    const cacheDir = path.join(work, 'cache');
    const first = await evaluate({ ...common, cacheDir });
    const second = await evaluate({ ...common, cacheDir });
    expect(second.results.results).toEqual(first.results.results);
    expect(second.results.mlrb.score_cache).toEqual({ hits: first.results.mlrb.requests, misses: 0 });
  });

  it('runs lm-eval’s rolling (wikitext) and generate_until (gsm8k) tasks', async () => {
    const wikitext = await evaluate({ model: t5, suite: 'wikitext', dataDir: path.join(repoRoot, 'test/fixtures/tasks'), limit: 2, cacheDir: false });
    expect(wikitext.results.results['wikitext']?.['word_perplexity,none']).toBeGreaterThan(1);
    const gsm8k = await evaluate({ model: t5, suite: 'gsm8k', dataDir: path.join(repoRoot, 'test/fixtures/tasks/gsm8k/release'), limit: 2, cacheDir: false });
    expect(gsm8k.results.results['gsm8k']?.['exact_match,strict-match']).toBe(0);
    expect(gsm8k.results.mlrb.generation).toMatchObject({ requests: 2 });
  });
});

describe('generating with an encoder-decoder', () => {
  it('`generate` gives transformers’ greedy ids (prompt encoded with </s>, as T5’s tokenizer does)', async () => {
    const expected = readSeq2SeqExpectation<RecordedGenerations>('t5-generate.json');
    const output = path.join(work, 'generations.json');
    const run = await runCli(['generate', t5, '--prompt', 'The cat sat on the mat.', '--add-special-tokens', '--max-new-tokens', '8', '--output', output]);
    expect(run.code, run.stderr).toBe(0);
    const written = readJson<{ generations: { tokenIds: number[] }[] }>(output);
    expect(written.generations[0]?.tokenIds).toEqual(expected.greedy[0]?.slice(0, 8));
  });

  it('`math-reasoning` with the built-in engine', async () => {
    const output = path.join(work, 'math.json');
    const run = await runCli(['math-reasoning', t5, '--data', problems, '--max-new-tokens', '6', '--output', output]);
    expect(run.code, run.stderr).toBe(0);
    const report = readJson<MathReasoningReport>(output);
    expect(report.problems_scored).toBe(2);
    for (const problem of report.problems) expect(problem.generated_tokens).toBeGreaterThan(0);
  });

  it('`mlrb math_reasoning` with --math-data and --lean: a scored headline', async () => {
    const output = path.join(work, 'record.json');
    const run = await runCli([
      'mlrb',
      'math_reasoning',
      t5,
      '--data',
      path.join(work, 'no-data'),
      '--math-data',
      problems,
      '--lean',
      FAKE_LEAN,
      '--max-new-tokens',
      '6',
      '--output',
      output,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const record = readJson<{ headline: { status: string; value: number }; math_reasoning: MathReasoningReport; model: { file: string; sha256: string } }>(
      output,
    );
    expect(record.headline.status).toBe('scored');
    expect(record.math_reasoning.problems_scored).toBe(2);
    expect(record.model.file).toBe(t5);
    expect(record.model.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('`model-metrics`: tokens per second and latency with the decoder’s max length; MLRB’s perplexity refused with the reason', async () => {
    const output = path.join(work, 'metrics.json');
    const run = await runCli([
      'model-metrics',
      t5,
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
      '20',
      '--output',
      output,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = readJson<ModelMetricsReport>(output);
    // max_length bounds the decoder sequence, decoder_start_token_id included: 19 new tokens, whatever the prompt.
    expect(report.latency?.generated_tokens).toEqual([19]);
    expect(report.tokens_per_second?.procedure.max_new_tokens).toBe(19);
    const perplexity = await runCli(['model-metrics', t5, '--only', 'perplexity', '--text', problems]);
    expect(perplexity.code).not.toBe(0);
    expect(perplexity.stderr).toContain('AutoModelForCausalLM');
    expect(perplexity.stderr).toContain('--tasks wikitext');
  });
});
