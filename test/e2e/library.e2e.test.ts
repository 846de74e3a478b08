/** The library entry points: options are validated up front, and evaluate() returns the CLI's object. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluate, loadModel, scoreRequests, MlrbError } from '../../src/index.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import type { MemoryPeaks } from '../../src/run/memory-peaks.js';
import type { RewriteOutcome } from '../../src/native/binding.js';
import { writeTinyBlimp } from '../support/tiny-datasets.js';
import { createReferenceScorer } from '../support/reference-scorer.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-lib-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('library API', () => {
  it('BAD CALL – invalid options throw TypeError synchronously, naming the field', () => {
    expect(() => evaluate({ model: 'm.onnx', suite: 'blimp', dataDir: 'd', batchSize: 0 })).toThrow(/batchSize/);
    expect(() => evaluate({ model: 'm.onnx', suite: 'blimp', dataDir: 'd', numFewshot: -1 })).toThrow(TypeError);
    expect(() => evaluate({ model: 'm.onnx', suite: 'blimp', dataDir: 'd', unknownOption: 1 } as never)).toThrow(/unknownOption/);
    expect(() => evaluate({ model: 'm.onnx', suite: 'blimp', dataDir: 'd', cpuFusion: 'yes' } as never)).toThrow(/cpuFusion/);
    expect(() => evaluate({ model: 'm.onnx', suite: 'blimp', dataDir: 'd', rewrites: { sliceLMHead: false } } as never)).toThrow(/sliceLMHead/);
    expect(() => evaluate({ model: 'm.onnx', suite: 'blimp', dataDir: 'd', cpuFusion: false, rewrites: { cpuFusion: true } })).toThrow(
      /cpuFusion and rewrites\.cpuFusion disagree/,
    );
  });

  it('evaluate() returns lm-eval keys plus mlrb facts and samples on request', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'model'));
    const dataDir = writeTinyBlimp(path.join(workDir, 'blimp'));
    const progress: number[] = [];
    const { results, samples } = await evaluate({
      model: modelPath,
      suite: 'blimp',
      dataDir,
      allowPartial: true,
      logSamples: true,
      onProgress: (update) => progress.push(update.requestsDone),
    });
    expect(Object.keys(results)).toEqual(expect.arrayContaining(['results', 'group_subtasks', 'configs', 'versions', 'n-shot', 'n-samples', 'config', 'mlrb']));
    expect(results.mlrb.tokens_scored).toBeGreaterThan(0);
    expect(results.mlrb.peak_rss_bytes).toBeGreaterThan(0);
    if (process.platform === 'linux') {
      // Split at the end of loading: each peak is a real RSS figure, neither above the whole run's.
      const { peak_rss_bytes: whole, memory } = results.mlrb as unknown as { peak_rss_bytes: number; memory: MemoryPeaks };
      const { load_peak_rss_bytes: loadPeak, scoring_peak_rss_bytes: scoringPeak } = memory;
      expect(loadPeak).toBeGreaterThan(10 * 1024 * 1024);
      expect(loadPeak ?? Number.NaN).toBeLessThanOrEqual(whole);
      expect(scoringPeak).toBeGreaterThan(10 * 1024 * 1024);
      expect(scoringPeak ?? Number.NaN).toBeLessThanOrEqual(whole);
    }
    expect((results.mlrb.rewrites as unknown as RewriteOutcome[]).map((outcome) => outcome.name)).toEqual([
      'cpuFusion',
      'sliceLmHead',
      'pruneLastBlock',
      'decodeCache',
    ]);
    expect(progress.at(-1)).toBe(20);
    expect(samples?.get('blimp_toy_order')).toHaveLength(5);
  });

  it('scoreRequests() scores text requests in order, matching the independent path', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'score'));
    const model = await loadModel({ model: modelPath });
    const reference = await createReferenceScorer(modelPath);
    const requests = [
      { taskName: 't', docId: 0, choiceIndex: 0, context: 'the cat sat on the', continuation: ' mat' },
      { taskName: 't', docId: 0, choiceIndex: 1, context: 'the cat sat on the', continuation: ' dog' },
      { taskName: 't', docId: 1, choiceIndex: 0, context: '', continuation: ' the dog ran' },
    ];
    const { results } = await scoreRequests(model, requests);
    // Hand-encoded with the fixture tokenizer: "▁the ▁cat ▁sat ▁on ▁the" then "▁mat" / "▁dog"; BOS = 1.
    const tokenizer = model.requireTokenizer();
    const context = tokenizer.encode('the cat sat on the');
    const expected = [
      await reference.scoreTokens(context, tokenizer.encode(' mat')),
      await reference.scoreTokens(context, tokenizer.encode(' dog')),
      await reference.scoreTokens([1, ...tokenizer.encode(' the dog ran')].slice(0, -1), tokenizer.encode(' the dog ran')),
    ];
    results.forEach((result, index) => expect(Math.abs(result.loglik - (expected[index]?.loglik ?? NaN))).toBeLessThan(1e-4));
    model.dispose();
    await reference.dispose();
  });

  it('EXPECTED FAILURE – a missing data folder is a BAD_DATA error naming it', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'model2'));
    const failure = evaluate({ model: modelPath, suite: 'blimp', dataDir: path.join(workDir, 'no-such-dir') });
    await expect(failure).rejects.toBeInstanceOf(MlrbError);
    await expect(failure).rejects.toMatchObject({ code: 'BAD_DATA', message: expect.stringContaining('no-such-dir') });
  });
});
