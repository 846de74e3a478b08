/**
 * The CLI end to end on generated fixtures (no ../shared needed): a tiny causal LM with its tokenizer, and
 * MMLU / BLiMP folders in the real layouts. Accuracy is recomputed from the independent path.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { loadBinding } from '../../src/native/binding.js';
import { buildModelInputs } from '../../src/eval/text-requests.js';
import { createReferenceScorer } from '../support/reference-scorer.js';
import { writeTinyBlimp, writeTinyMmlu } from '../support/tiny-datasets.js';
import { repoRoot } from '../support/shared-data.js';
import { runCli } from '../support/run-cli.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-cli-'));
let modelPath = '';
let blimpDir = '';
let mmluDir = '';

beforeAll(() => {
  modelPath = writeTinyCausalLm(path.join(workDir, 'model')).modelPath;
  blimpDir = writeTinyBlimp(path.join(workDir, 'blimp'));
  mmluDir = writeTinyMmlu(path.join(workDir, 'mmlu'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface ResultsFile {
  results: Record<string, Record<string, unknown>>;
  groups?: Record<string, Record<string, unknown>>;
  'n-samples': Record<string, { original: number; effective: number }>;
  mlrb: Record<string, unknown>;
}

describe('mlrb-eval CLI', () => {
  it('scores BLiMP; accuracy equals the independent path with ties counted as correct', async () => {
    const output = path.join(workDir, 'out', 'blimp.json');
    const samples = path.join(workDir, 'out', 'blimp-samples.jsonl');
    const run = await runCli([
      modelPath,
      '--suite',
      'blimp',
      '--data',
      blimpDir,
      '--allow-partial',
      '--output',
      output,
      '--log-samples',
      samples,
      '--batch-size',
      '3',
    ]);
    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/blimp_toy_order/);
    const results = JSON.parse(readFileSync(output, 'utf8')) as ResultsFile;

    const model = await loadModel({ model: modelPath });
    const reference = await createReferenceScorer(modelPath);
    const accuracies: number[] = [];
    for (const paradigm of ['toy_order', 'toy_agreement']) {
      const rows = readFileSync(path.join(blimpDir, `${paradigm}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { sentence_good: string; sentence_bad: string });
      const requests = rows.flatMap((row) => [
        { context: '', continuation: ` ${row.sentence_good}` },
        { context: '', continuation: ` ${row.sentence_bad}` },
      ]);
      const inputs = buildModelInputs(model, requests, (index) => `r${index}`);
      let correct = 0;
      for (let pair = 0; pair < rows.length; pair += 1) {
        const good = await reference.scoreTokens(inputs[2 * pair]!.inputTokens, inputs[2 * pair]!.continuationTokens);
        const bad = await reference.scoreTokens(inputs[2 * pair + 1]!.inputTokens, inputs[2 * pair + 1]!.continuationTokens);
        if (good.loglik >= bad.loglik) correct += 1;
      }
      const accuracy = correct / rows.length;
      accuracies.push(accuracy);
      expect(results.results[`blimp_${paradigm}`]?.['acc,none']).toBeCloseTo(accuracy, 12);
    }
    model.dispose();
    await reference.dispose();
    expect(results.results.blimp_partial?.['acc,none']).toBeCloseTo((accuracies[0]! + accuracies[1]!) / 2, 12);
    expect(results.mlrb.model_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(results.mlrb.breakdowns as object)).toEqual(['field', 'linguistics_term']);
    const sampleLines = readFileSync(samples, 'utf8').trim().split('\n');
    expect(sampleLines).toHaveLength(10);
    expect(JSON.parse(sampleLines[0]!)).toMatchObject({
      task: 'blimp_toy_agreement',
      doc_id: 0,
      target: 0,
      arguments: [
        ['', ' the cat sat on the mat.'],
        ['', ' the cat sat the on mat.'],
      ],
    });
  });

  it('scores MMLU in the Hendrycks layout with --limit and --num-fewshot', async () => {
    const output = path.join(workDir, 'out', 'mmlu.json');
    const run = await runCli([modelPath, '--suite', 'mmlu', '--data', mmluDir, '--num-fewshot', '1', '--limit', '3', '--output', output, '--quiet']);
    expect(run.stderr).not.toMatch(/error/);
    expect(run.code).toBe(0);
    const results = JSON.parse(readFileSync(output, 'utf8')) as ResultsFile;
    expect(results['n-samples']['mmlu_anatomy']).toEqual({ original: 4, effective: 3 });
    expect(results.groups?.mmlu?.['acc,none']).toBeTypeOf('number');
    expect(results.results['mmlu_virology']).toHaveProperty('acc_stderr,none');
  });

  it('runs the fused kernels by default, says so with --verbose, records it; --no-cpu-fusion gives the same accuracy', async () => {
    const plainOutput = path.join(workDir, 'out', 'blimp-plain.json');
    const fusedOutput = path.join(workDir, 'out', 'blimp-fused.json');
    const plain = await runCli([
      modelPath,
      '--suite',
      'blimp',
      '--data',
      blimpDir,
      '--allow-partial',
      '--output',
      plainOutput,
      '--quiet',
      '--no-cache',
      '--no-cpu-fusion',
    ]);
    const fused = await runCli([
      modelPath,
      '--suite',
      'blimp',
      '--data',
      blimpDir,
      '--allow-partial',
      '--output',
      fusedOutput,
      '--quiet',
      '--no-cache',
      '--verbose',
    ]);
    expect(plain.code).toBe(0);
    expect(fused.code).toBe(0);
    // One line per rewrite, in the order they run.
    expect(fused.stderr).toMatch(
      /rewrite cpuFusion: applied \(\d+ of \d+ Softmax attention blocks[^\n]*\n[^\n]*rewrite sliceLmHead: applied[^\n]*\n[^\n]*rewrite pruneLastBlock: /,
    );
    type Run = ResultsFile & {
      mlrb: {
        attention_fused: boolean;
        rewrites: { name: string; applied: boolean; reason: string }[];
        cpu: { kernel_path: string; mlas_path: string; features: string[] };
      };
    };
    const plainResults = JSON.parse(readFileSync(plainOutput, 'utf8')) as Run;
    const fusedResults = JSON.parse(readFileSync(fusedOutput, 'utf8')) as Run;
    expect(plainResults.mlrb.attention_fused).toBe(false);
    expect(fusedResults.mlrb.attention_fused).toBe(true);
    const cpu = loadBinding().buildInfo().cpu;
    expect(fusedResults.mlrb.cpu).toMatchObject({ kernel_path: cpu.kernelPath, mlas_path: cpu.mlasPath, features: cpu.features });
    expect(plainResults.mlrb.rewrites.map(({ name, applied }) => [name, applied])).toEqual([
      ['cpuFusion', false],
      ['sliceLmHead', true],
      ['pruneLastBlock', false],
      ['decodeCache', false],
    ]);
    expect(plainResults.mlrb.rewrites[0]?.reason).toBe('turned off by the caller');
    expect(plainResults.mlrb.rewrites[2]?.reason).toBe('needs cpuFusion, which did not apply');
    expect(fusedResults.mlrb.rewrites.slice(0, 2).map(({ name, applied }) => [name, applied])).toEqual([
      ['cpuFusion', true],
      ['sliceLmHead', true],
    ]);
    expect(fusedResults.groups?.blimp_partial?.['acc,none']).toBe(plainResults.groups?.blimp_partial?.['acc,none']);
  });

  it('runs through the bin shim as a separate process', () => {
    const stdout = execFileSync(
      process.execPath,
      [path.join(repoRoot, 'bin', 'mlrb-eval.js'), modelPath, '--suite', 'blimp', '--data', blimpDir, '--allow-partial', '--quiet'],
      { encoding: 'utf8' },
    );
    expect(stdout).toMatch(/\|blimp \(partial: 67 of 67 subtasks missing\)\s*\|/);
  });

  it('EXPECTED FAILURE – usage mistakes exit 2 with a message', async () => {
    expect((await runCli([])).code).toBe(2);
    // Without --data the suite is looked for in the Hugging Face hub cache; an empty one is a data error that
    // says where it looked and which layouts it accepts.
    const emptyCache = path.join(workDir, 'empty-hub-cache');
    mkdirSync(emptyCache, { recursive: true });
    const savedCache = process.env.HF_HUB_CACHE;
    process.env.HF_HUB_CACHE = emptyCache;
    try {
      const noData = await runCli([modelPath, '--suite', 'blimp']);
      expect(noData.code).toBe(1);
      expect(noData.stderr).toContain('error [BAD_DATA]');
      expect(noData.stderr).toContain(emptyCache);
    } finally {
      if (savedCache === undefined) delete process.env.HF_HUB_CACHE;
      else process.env.HF_HUB_CACHE = savedCache;
    }
    const unknownFlag = await runCli([modelPath, '--suite', 'blimp', '--data', blimpDir, '--allow-partial', '--frobnicate']);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toMatch(/frobnicate/);
    const badSuite = await runCli([modelPath, '--suite', 'nonesuch', '--data', blimpDir]);
    expect(badSuite.code).toBe(2);
    expect(badSuite.stderr).toMatch(/unknown task "nonesuch"/);
    const badNumber = await runCli([modelPath, '--suite', 'blimp', '--data', blimpDir, '--allow-partial', '--limit', 'ten']);
    expect(badNumber.code).toBe(2);
  });

  it('EXPECTED FAILURE – a malformed jsonl row names the file and line', async () => {
    const dir = writeTinyBlimp(path.join(workDir, 'broken-blimp'), ['broken']);
    appendFileSync(path.join(dir, 'broken.jsonl'), '{"sentence_good": "x"}\n');
    const run = await runCli([modelPath, '--suite', 'blimp', '--data', dir, '--quiet']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/BAD_DATA/);
    expect(run.stderr).toMatch(/broken\.jsonl.*line 6/);
  });

  it('EXPECTED FAILURE – a missing tokenizer and a missing model', async () => {
    const dir = path.join(workDir, 'no-tokenizer');
    const { modelPath: bare } = writeTinyCausalLm(dir, { withTokenizer: false });
    expect(existsSync(path.join(dir, 'tokenizer.json'))).toBe(false);
    const run = await runCli([bare, '--suite', 'blimp', '--data', blimpDir, '--allow-partial', '--quiet']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/BAD_TOKENIZER.*tokenizer\.json/);
    const missing = await runCli([path.join(workDir, 'nothing.onnx'), '--suite', 'blimp', '--data', blimpDir, '--allow-partial', '--quiet']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/BAD_MODEL.*nothing\.onnx/);
  });

  it('EXPECTED FAILURE – a corrupt tokenizer.json', async () => {
    const dir = path.join(workDir, 'bad-tokenizer');
    writeTinyCausalLm(dir);
    unlinkSync(path.join(dir, 'tokenizer.json'));
    appendFileSync(path.join(dir, 'tokenizer.json'), '{ not json');
    const run = await runCli([path.join(dir, 'model.onnx'), '--suite', 'blimp', '--data', blimpDir, '--allow-partial', '--quiet']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/BAD_TOKENIZER/);
  });
});
