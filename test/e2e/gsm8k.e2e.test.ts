/**
 * The `gsm8k` suite (lm-eval's generate_until task) end to end on a real model (stories260K, from ../shared;
 * skipped visibly without it), on the committed GSM8K fixture, against references that share no code with the
 * evaluator's wiring:
 *  - the prompts are lm-eval 0.4.13's own (test/fixtures/lm-eval/gsm8k-expectations.json `requests`, 2-shot);
 *  - the responses are what the TextGenerator gives for those prompts when driven directly here: the context
 *    encoded by the tokenizer (0.4.4–0.4.8 rules: no special tokens), kept to its last max_length − 256 tokens,
 *    greedy, at most 256 new tokens, cut by plain string splitting at lm-eval's stop strings and the EOS text;
 *  - the filtered answers and metrics are gsm8k.yaml's filters and exact_match restated here for ASCII text
 *    (restatedGsm8k), and the scorer that test/eval/generate-until/gsm8k-lm-eval.test.ts holds to lm-eval's own outputs.
 * Plus shard + merge equal to the unsharded run, a run mixing gsm8k with a log-likelihood task, and the CLI.
 * Without ../shared, a tiny generated LM runs the response and shard checks 0-shot.
 */
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluate, evaluateShard, type EvaluateResult } from '../../src/index.js';
import { mergeShards } from '../../src/run/merge-shards.js';
import { scoreGenerateUntil } from '../../src/eval/generate-until/results.js';
import { createTextGenerator } from '../../src/generate/text-generator.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { loadGsm8k } from '../../src/tasks/gsm8k/load.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { runCli } from '../support/run-cli.js';
import { hasShared, repoRoot, sharedPaths } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { FULL_TIER } from '../support/test-tier.js';

const DATA_DIR = path.join(repoRoot, 'test/fixtures/tasks/gsm8k/hub');
const SHOTS = 2;
const MAX_GEN_TOKS = 256;

interface RecordedRequest {
  readonly docId: number;
  readonly context: string;
  readonly kwargs: { readonly until: readonly string[] };
}
const recorded = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/lm-eval/gsm8k-expectations.json'), 'utf8')) as {
  readonly requests: Readonly<Record<string, readonly RecordedRequest[]>>;
  readonly config: Readonly<Record<string, unknown>>;
};

/**
 * gsm8k.yaml's filters and exact_match restated from the YAML for ASCII text, where JS regexes mean what Python's
 * do (Python's `$` also matches before a final newline, hence the lookahead): strict-match takes the first
 * `#### (number)` group, flexible-extract the last match of its two-group pattern (the non-empty group); no match
 * gives "[invalid]"; exact_match removes `,`, `$`, everything up to the last `#### ` and a final `.` from both
 * sides, lower-cases them and compares.
 */
function restatedGsm8k(response: string, target: string): Record<'strict-match' | 'flexible-extract', { answer: string; score: number }> {
  const strict = /#### (-?[0-9.,]+)/.exec(response)?.[1]?.trim() ?? '[invalid]';
  const flexibleMatches = [...response.matchAll(/(-?[$0-9.,]{2,})|(-?[0-9]+)/g)];
  const last = flexibleMatches.at(-1);
  const flexible = last === undefined ? '[invalid]' : (last[1] || last[2] || '[invalid]').trim();
  const normalize = (text: string): string =>
    text
      .replace(/,/g, '')
      .replace(/\$/g, '')
      .replace(/[\s\S]*#### /, '')
      .replace(/\.(?=\n?$)/, '')
      .toLowerCase();
  const score = (answer: string): number => (normalize(answer) === normalize(target) ? 1 : 0);
  return { 'strict-match': { answer: strict, score: score(strict) }, 'flexible-extract': { answer: flexible, score: score(flexible) } };
}

/** lm-eval's mean and mean_stderr (sample standard deviation over sqrt(n)). */
function meanAndStderr(scores: readonly number[]): { value: number; stderr: number } {
  const value = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  const variance = scores.reduce((sum, score) => sum + (score - value) ** 2, 0) / (scores.length - 1);
  return { value, stderr: Math.sqrt(variance / scores.length) };
}

/** The responses computed from lm-eval's prompts (`shots`-shot) with the generator alone. */
async function referenceResponses(modelPath: string, shots: number): Promise<string[]> {
  const model = await loadModel({ model: modelPath, onLog: () => {} });
  try {
    const tokenizer = model.requireTokenizer();
    const eosText = tokenizer.tokenText(model.metadata.eosTokenId ?? -1);
    const requests = recorded.requests[String(shots)] ?? [];
    const room = model.maxLength - MAX_GEN_TOKS;
    const prompts = requests.map((request) => tokenizer.encode(request.context).slice(-room));
    const stops = [...(requests[0]?.kwargs.until ?? []), eosText];
    const generations = await createTextGenerator(model, { onWarning: () => {} }).generate(prompts, { maxNewTokens: MAX_GEN_TOKS, stopStrings: stops });
    return generations.map((generation) => stops.reduce((text, stop) => text.split(stop)[0] ?? '', generation.text));
  } finally {
    model.dispose();
  }
}

describe('gsm8k on a tiny generated LM (runs without ../shared)', () => {
  it("generates for lm-eval's 0-shot prompts what the generator gives, and shards merge to the same results", async () => {
    const model = writeTinyCausalLm(makeTempDir('gsm8k-tiny'), { maxPositions: 512, pastConvention: 'optimum' });
    const options = { model: model.modelPath, suite: 'gsm8k', dataDir: DATA_DIR, numFewshot: 0, cacheDir: false as const, logSamples: true };
    const [result, expected] = await Promise.all([evaluate(options), referenceResponses(model.modelPath, 0)]);
    const strict = (result.samples?.get('gsm8k') ?? []).filter((sample) => sample.filter === 'strict-match');
    expect(strict.map((sample) => sample.arguments[0]?.[0])).toEqual((recorded.requests['0'] ?? []).map((request) => request.context));
    expect(strict.map((sample) => sample.resps[0]?.[0])).toEqual(expected);
    expect(expected.some((text) => text.length > 0)).toBe(true);
    const task = await loadGsm8k({ dataDir: DATA_DIR, numFewshot: 0 });
    const restated = expected.map((response, index) => restatedGsm8k(response, task.docs[index]?.target ?? ''));
    const entry: Record<string, unknown> = { ...result.results.results.gsm8k };
    for (const filter of ['strict-match', 'flexible-extract'] as const) {
      const samples = (result.samples?.get('gsm8k') ?? []).filter((sample) => sample.filter === filter);
      expect(samples.map((sample) => sample.filtered_resps[0])).toEqual(restated.map((doc) => doc[filter].answer));
      expect(entry[`exact_match,${filter}`]).toBe(meanAndStderr(restated.map((doc) => doc[filter].score)).value);
    }
    const shards = await Promise.all(
      [0, 1].map(async (index) => ({ file: `shard-${index}.json`, record: await evaluateShard({ ...options, shard: { index, count: 2 } }) })),
    );
    const merged = await mergeShards(shards, { logSamples: true });
    expect(merged.results.results).toEqual(result.results.results);
    expect([...(merged.samples?.get('gsm8k') ?? [])]).toEqual([...(result.samples?.get('gsm8k') ?? [])]);
  }, 120_000);

  it('--shard I/N then mlrb-eval merge give the unsharded results and samples', async () => {
    const model = writeTinyCausalLm(makeTempDir('gsm8k-cli-model'), { maxPositions: 512, pastConvention: 'optimum' });
    const dir = makeTempDir('gsm8k-cli-shards');
    const common = [model.modelPath, '--tasks', 'gsm8k', '--data', DATA_DIR, '--num-fewshot', '1', '--no-cache', '--quiet'];
    const whole = await runCli([...common, '--output', path.join(dir, 'whole.json'), '--log-samples', path.join(dir, 'whole.jsonl')]);
    expect(whole.code, whole.stderr).toBe(0);
    for (const index of [0, 1]) {
      const shard = await runCli([...common, '--shard', `${index}/2`, '--output', path.join(dir, `shard-${index}.json`)]);
      expect(shard.code, shard.stderr).toBe(0);
    }
    const merge = await runCli([
      'merge',
      path.join(dir, 'shard-0.json'),
      path.join(dir, 'shard-1.json'),
      '--output',
      path.join(dir, 'merged.json'),
      '--log-samples',
      path.join(dir, 'merged.jsonl'),
    ]);
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stdout).toBe(whole.stdout);
    const read = (name: string): { results: unknown; configs: unknown } =>
      JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as { results: unknown; configs: unknown };
    expect(read('merged.json').results).toEqual(read('whole.json').results);
    expect(read('merged.json').configs).toEqual(read('whole.json').configs);
    const samples = (name: string): unknown[] =>
      readFileSync(path.join(dir, name), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
    expect(samples('merged.jsonl')).toEqual(samples('whole.jsonl'));
    expect(samples('whole.jsonl')).toHaveLength(8);
  }, 120_000);

  it("refuses a model whose max length leaves no room for HFLM's 256 new tokens, as lm-eval asserts", async () => {
    const model = writeTinyCausalLm(makeTempDir('gsm8k-short'), { maxPositions: 256 });
    await expect(evaluate({ model: model.modelPath, suite: 'gsm8k', dataDir: DATA_DIR, numFewshot: 0, cacheDir: false })).rejects.toThrow(
      /max_gen_toks 256 must be less than the model's max length 256/,
    );
  });
});

// A real model's generations at gsm8k's 256 new tokens take a minute on 2 cores; the tiny LM above runs the same
// paths in the quick tier.
describe.runIf(FULL_TIER && hasShared)('gsm8k on stories260K', () => {
  const options = { model: sharedPaths.stories, suite: 'gsm8k', dataDir: DATA_DIR, numFewshot: SHOTS, cacheDir: false as const, logSamples: true };
  let result: EvaluateResult;
  let expected: string[];

  beforeAll(async () => {
    [result, expected] = await Promise.all([evaluate(options), referenceResponses(sharedPaths.stories, SHOTS)]);
  }, 120_000);

  it("generates for lm-eval's prompts what the generator gives for them directly", () => {
    const samples = result.samples?.get('gsm8k') ?? [];
    // One record per (filter, document): strict-match's first.
    const strict = samples.filter((sample) => sample.filter === 'strict-match');
    expect(strict.map((sample) => sample.arguments[0]?.[0])).toEqual((recorded.requests[String(SHOTS)] ?? []).map((request) => request.context));
    expect(strict.map((sample) => sample.resps[0]?.[0])).toEqual(expected);
    expect(expected.some((text) => text.length > 0)).toBe(true);
  });

  it('reports exact_match per filter from those responses, with version, n-shot and higher_is_better', async () => {
    const task = await loadGsm8k({ dataDir: DATA_DIR, numFewshot: SHOTS });
    const restated = expected.map((response, index) => restatedGsm8k(response, task.docs[index]?.target ?? ''));
    const entry: Record<string, unknown> = { ...result.results.results.gsm8k };
    for (const filter of ['strict-match', 'flexible-extract'] as const) {
      const samples = (result.samples?.get('gsm8k') ?? []).filter((sample) => sample.filter === filter);
      expect(samples.map((sample) => sample.filtered_resps[0])).toEqual(restated.map((doc) => doc[filter].answer));
      expect(samples.map((sample) => sample['exact_match'])).toEqual(restated.map((doc) => doc[filter].score));
      const { value, stderr } = meanAndStderr(restated.map((doc) => doc[filter].score));
      expect(entry[`exact_match,${filter}`]).toBe(value);
      expect(entry[`exact_match_stderr,${filter}`]).toBeCloseTo(stderr, 15);
    }
    // The same through the scorer that test/eval/generate-until/gsm8k-lm-eval.test.ts holds to lm-eval's recorded outputs.
    for (const filter of scoreGenerateUntil(task, expected).filters) expect(entry[`exact_match,${filter.filter}`]).toBe(filter.value);
    expect(Object.keys(entry)).toEqual([
      'alias',
      'exact_match,strict-match',
      'exact_match_stderr,strict-match',
      'exact_match,flexible-extract',
      'exact_match_stderr,flexible-extract',
    ]);
    expect(result.results.versions.gsm8k).toBe(3);
    expect(result.results['n-shot'].gsm8k).toBe(SHOTS);
    expect(result.results.higher_is_better.gsm8k).toEqual({ exact_match: true });
    expect(result.results['n-samples'].gsm8k).toEqual({ original: 4, effective: 4 });
  });

  it("writes the 0.4.13 configs entry as lm-eval's dump_config does", async () => {
    const run = await evaluate({ ...options, lmEvalVersion: '0.4.13', logSamples: false });
    const config: Record<string, unknown> = { ...run.results.configs.gsm8k };
    const lmEval: Record<string, unknown> = { ...recorded.config, num_fewshot: SHOTS };
    delete lmEval['dataset_kwargs'];
    // The recording read local parquet files (dataset_path "parquet", no dataset_name); ours names the hub's.
    const { dataset_files: _files, dataset_name: datasetName, ...ours } = config;
    expect(datasetName).toBe('main');
    expect(Object.keys(ours)).toEqual(Object.keys(lmEval));
    expect({ ...ours, dataset_path: 'parquet', metadata: lmEval['metadata'] }).toEqual(lmEval);
    expect(ours.dataset_path).toBe('openai/gsm8k');
    expect(run.results.results.gsm8k?.['exact_match,flexible-extract']).toBe(result.results.results.gsm8k?.['exact_match,flexible-extract']);
  }, 120_000);

  it('gives the same results when sharded and merged', async () => {
    const shards = await Promise.all(
      [0, 1, 2].map(async (index) => ({ file: `shard-${index}.json`, record: await evaluateShard({ ...options, shard: { index, count: 3 } }) })),
    );
    expect(shards.flatMap(({ record }) => record.documents.gsm8k?.docs.map((doc) => doc.responses?.length) ?? [])).toEqual([1, 1, 1, 1]);
    const merged = await mergeShards(shards, { logSamples: true });
    expect(merged.results.results).toEqual(result.results.results);
    expect(merged.results.configs).toEqual(result.results.configs);
    expect(merged.results['n-samples']).toEqual(result.results['n-samples']);
    expect(merged.results.mlrb.generation).toMatchObject({ requests: 4 });
    expect([...(merged.samples?.get('gsm8k') ?? [])]).toEqual([...(result.samples?.get('gsm8k') ?? [])]);
  }, 120_000);

  it('runs gsm8k beside a log-likelihood task in one run', async () => {
    // One folder per suite, as --data-dir takes several suites.
    const dataDir = makeTempDir('gsm8k-mixed');
    cpSync(DATA_DIR, path.join(dataDir, 'gsm8k'), { recursive: true });
    cpSync(path.join(repoRoot, 'test/fixtures/tasks/wikitext'), path.join(dataDir, 'wikitext'), { recursive: true });
    const mixed = await evaluate({ ...options, suite: 'gsm8k,wikitext', dataDir, limit: 2, logSamples: false });
    expect(Object.keys(mixed.results.results).sort()).toEqual(['gsm8k', 'wikitext']);
    expect(mixed.results.results.wikitext?.['word_perplexity,none']).toEqual(expect.any(Number));
    expect(mixed.results.results.gsm8k?.['exact_match,strict-match']).toEqual(expect.any(Number));
    expect(mixed.results['n-samples'].gsm8k).toEqual({ original: 4, effective: 2 });
  }, 120_000);

  it('prints exact_match per filter in the table and writes the results JSON from the CLI', async () => {
    const dir = makeTempDir('gsm8k-cli');
    const output = path.join(dir, 'results.json');
    const run = await runCli([sharedPaths.stories, '--suite', 'gsm8k', '--data', DATA_DIR, '--num-fewshot', String(SHOTS), '--no-cache', '--output', output]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/gsm8k.*strict-match.*exact_match/s);
    expect(run.stdout).toMatch(/flexible-extract/);
    const written = JSON.parse(readFileSync(output, 'utf8')) as { results: Record<string, Record<string, unknown>> };
    expect(written.results.gsm8k).toEqual(result.results.results.gsm8k);
  }, 120_000);
});
