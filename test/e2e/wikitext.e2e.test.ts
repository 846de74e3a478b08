/**
 * The `wikitext` suite end to end (lm-eval's loglikelihood_rolling task), against two independent references:
 *  - real lm-eval 0.4.13 on stories260K (test/fixtures/lm-eval/0.4.13/stories260K-wikitext.json, recorded by
 *    scripts/lm_eval/record_wikitext_expectations.py): per-document log-likelihoods, weights and the three metrics;
 *    needs ../shared, skipped visibly without it;
 *  - without ../shared, a tiny model scored by the reference scorer (plain onnxruntime, no code from src/), over
 *    lm-eval's recorded target texts and weights, windows cut by the rule stated below from scratch.
 * Plus the results file as lm-eval writes it, the samples, --limit, missing data, and the CLI's table and JSON.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate, type EvaluateResult } from '../../src/index.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { createReferenceScorer, type ReferenceScorer } from '../support/reference-scorer.js';
import { rejectedMlrbError } from '../support/expect-mlrb-error.js';
import { runCli } from '../support/run-cli.js';
import { hasShared, repoRoot, sharedPaths } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';

const DATA_DIR = path.join(repoRoot, 'test/fixtures/tasks');
const METRICS = ['word_perplexity', 'byte_perplexity', 'bits_per_byte'] as const;
type Metric = (typeof METRICS)[number];

interface Recorded {
  readonly metrics: Readonly<Record<Metric, number>>;
  readonly documents: readonly { readonly target: string; readonly loglikelihood: number; readonly words: number; readonly bytes: number }[];
}

const recorded = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/lm-eval/0.4.13/stories260K-wikitext.json'), 'utf8')) as Recorded;

function relativeError(actual: unknown, expected: number): number {
  return Math.abs((actual as number) - expected) / Math.abs(expected);
}

/** lm-eval's aggregations, restated: Σ loglik over Σ weight, as a perplexity or in bits per byte. */
function referenceMetrics(logliks: readonly number[]): Record<Metric, number> {
  const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);
  const loglik = sum(logliks);
  const words = sum(recorded.documents.map((doc) => doc.words));
  const bytes = sum(recorded.documents.map((doc) => doc.bytes));
  return { word_perplexity: Math.exp(-loglik / words), byte_perplexity: Math.exp(-loglik / bytes), bits_per_byte: -loglik / bytes / Math.LN2 };
}

function wikitextEntry(result: EvaluateResult): Record<string, unknown> {
  return { ...result.results.results.wikitext };
}

describe.skipIf(!hasShared)('wikitext on stories260K matches real lm-eval 0.4.13', () => {
  let result: EvaluateResult;
  beforeAll(async () => {
    result = await evaluate({ model: sharedPaths.stories, suite: 'wikitext', dataDir: DATA_DIR, lmEvalVersion: '0.4.13', cacheDir: false, logSamples: true });
  });

  it("gives each document lm-eval's log-likelihood, target and weights, and the task its three metrics", () => {
    const samples = result.samples?.get('wikitext') ?? [];
    expect(samples.map((sample) => sample.target)).toEqual(recorded.documents.map((doc) => doc.target));
    samples.forEach((sample, index) => {
      const doc = recorded.documents[index]!;
      expect(sample.arguments).toEqual([[doc.target]]);
      const [loglik, words] = sample.word_perplexity as [number, number];
      expect(relativeError(loglik, doc.loglikelihood)).toBeLessThan(1e-5);
      expect(words).toBe(doc.words);
      expect((sample.byte_perplexity as [number, number])[1]).toBe(doc.bytes);
    });
    for (const metric of METRICS) expect(relativeError(wikitextEntry(result)[`${metric},none`], recorded.metrics[metric]), metric).toBeLessThan(1e-5);
  });

  it('writes the task as lm-eval 0.4.13 does: no stderr, lower is better, a loglikelihood_rolling config', () => {
    const { results } = result;
    expect(wikitextEntry(result)).toMatchObject({
      name: 'wikitext',
      alias: 'wikitext',
      sample_len: 3,
      'word_perplexity_stderr,none': 'N/A',
      'bits_per_byte_stderr,none': 'N/A',
    });
    expect(results.higher_is_better.wikitext).toEqual({ word_perplexity: false, byte_perplexity: false, bits_per_byte: false });
    expect(results['n-samples'].wikitext).toEqual({ original: 3, effective: 3 });
    expect(results.configs.wikitext).toMatchObject({
      dataset_path: 'EleutherAI/wikitext_document_level',
      dataset_name: 'wikitext-2-raw-v1',
      test_split: 'test',
      doc_to_text: '',
      output_type: 'loglikelihood_rolling',
      num_fewshot: 0,
      // As real lm-eval 0.4.13 dumped it for this run: wikitext.yaml names the metrics alone.
      metric_list: [{ metric: 'word_perplexity' }, { metric: 'byte_perplexity' }, { metric: 'bits_per_byte' }],
      fewshot_config: { sampler: 'default', split: null, doc_to_choice: null, doc_to_text: '' },
      should_decontaminate: true,
      doc_to_decontamination_query: '{{page}}',
    });
  });
});

describe('wikitext on a tiny model matches an independent scorer', () => {
  const workDir = makeTempDir('wikitext');
  const modelPath = writeTinyCausalLm(path.join(workDir, 'model')).modelPath;
  let reference: ReferenceScorer;
  beforeAll(async () => {
    reference = await createReferenceScorer(modelPath);
  });
  afterAll(() => reference?.dispose());

  /**
   * lm-eval's rolling log-likelihood from scratch: with s = [prefix] + tokens (n tokens) and max length L, windows
   * end at e = min(L, n), then L further each time, up to n; the window ending at e feeds s[max(0, e − L), e) and
   * scores its last e − p positions, where p is where the previous window ended (0 for the first).
   */
  async function referenceLoglik(tokens: readonly number[], prefix: number, maxLength: number): Promise<number> {
    const sequence = [prefix, ...tokens];
    let loglik = 0;
    for (let start = 0, end = Math.min(maxLength, tokens.length); start < tokens.length; start = end, end = Math.min(tokens.length, end + maxLength)) {
      const score = await reference.scoreTokens(sequence.slice(Math.max(0, end - maxLength), end), tokens.slice(start, end));
      loglik += score.loglik;
    }
    return loglik;
  }

  it("the suite's metrics are lm-eval's aggregations of the reference's per-document log-likelihoods (several windows per document)", async () => {
    const result = await evaluate({ model: modelPath, suite: 'wikitext', dataDir: DATA_DIR, cacheDir: false, logSamples: true });
    const model = await loadModel({ model: modelPath, threads: 1 });
    const logliks: number[] = [];
    try {
      const tokenizer = model.requireTokenizer();
      for (const doc of recorded.documents) {
        const tokens = tokenizer.encode(doc.target);
        // The long document must span several windows for this test to check the windowing at all.
        if (doc === recorded.documents[2]) expect(tokens.length).toBeGreaterThan(2 * model.maxLength);
        logliks.push(await referenceLoglik(tokens, model.prefixTokenId(), model.maxLength));
      }
    } finally {
      model.dispose();
    }
    const samples = result.samples?.get('wikitext') ?? [];
    samples.forEach((sample, index) => expect(relativeError(sample.filtered_resps[0], logliks[index]!)).toBeLessThan(1e-5));
    const expected = referenceMetrics(logliks);
    for (const metric of METRICS) expect(relativeError(wikitextEntry(result)[`${metric},none`], expected[metric]), metric).toBeLessThan(1e-5);
    expect(result.results.results.wikitext?.['word_perplexity_stderr,none']).toBe('N/A');
  });

  it('a second run takes the windows from the token cache and their scores from the score cache, with the same numbers', async () => {
    const cacheDir = makeTempDir('wikitext-cache');
    const logs: string[] = [];
    const run = (): Promise<EvaluateResult> =>
      evaluate({ model: modelPath, suite: 'wikitext', dataDir: DATA_DIR, cacheDir, onLog: (message) => logs.push(message) });
    const first = await run();
    const second = await run();
    expect(logs.some((message) => message.startsWith('tokenized requests from the cache'))).toBe(true);
    const requests = first.results.mlrb.requests as number;
    expect(requests).toBeGreaterThan(3);
    expect(second.results.mlrb.score_cache).toEqual({ hits: requests, misses: 0 });
    expect(second.results.results).toEqual(first.results.results);
  });

  it('--limit keeps the first documents and says how many the split had', async () => {
    const { results } = await evaluate({ model: modelPath, suite: 'wikitext', dataDir: DATA_DIR, cacheDir: false, limit: 2 });
    expect(results['n-samples'].wikitext).toEqual({ original: 3, effective: 2 });
  });

  it('EXPECTED FAILURE – a data folder without wikitext is BAD_DATA naming the path and the accepted layout', async () => {
    const empty = makeTempDir('no-wikitext');
    const error = await rejectedMlrbError(() => evaluate({ model: modelPath, suite: 'wikitext', dataDir: empty, cacheDir: false }));
    expect(error.code).toBe('BAD_DATA');
    expect(error.message).toContain(empty);
    expect(error.message).toContain('wikitext-2-raw-v1/test-00000-of-00001.parquet');
  });

  it('the CLI prints the perplexities lower-is-better with no stderr, and writes them to the results JSON', async () => {
    const output = path.join(workDir, 'results.json');
    const run = await runCli([modelPath, '--tasks', 'wikitext', '--data', DATA_DIR, '--output', output, '--no-cache']);
    expect(run.code, run.stderr).toBe(0);
    const rows = run.stdout.split('\n').filter((line) => line.includes('wikitext') || line.includes('_per'));
    for (const metric of METRICS)
      expect(
        rows.some((row) => row.includes(metric) && row.includes('↓')),
        `${metric} row in\n${run.stdout}`,
      ).toBe(true);
    const written = JSON.parse(readFileSync(output, 'utf8')) as {
      results: Record<string, Record<string, unknown>>;
      configs: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(written.results.wikitext ?? {})).toEqual(['alias', ...METRICS.flatMap((metric) => [`${metric},none`, `${metric}_stderr,none`])]);
    expect(written.configs.wikitext?.output_type).toBe('loglikelihood_rolling');
  });
});
