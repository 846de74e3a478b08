/**
 * Few-shot prefix reuse: rows sharing a long prefix are scored as suffixes over the prefix's KV, computed
 * once. Exact against the independent path (batch 1, full sequence, empty past) and against scoring
 * without reuse, for both KV layouts the core feeds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTinyCausalLm, type TinyCausalLmOptions } from '../support/model-builders/tiny-causal-lm.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import type { ModelInput } from '../../src/engine/model-input.js';
import { expectReferenceLogliks } from '../support/expect-reference.js';
import { seededRandom } from '../support/random-requests.js';
import { hasShared, sharedPaths } from '../support/shared-data.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-prefix-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/**
 * Few-shot-shaped requests: `subjects` shared prefixes of `prefixLength` tokens, each followed by questions
 * of varied length with four one-token answers (one row, four requests) and a multi-token one.
 */
function fewShotInputs(subjects: number, questions: number, prefixLength: number, vocab: number, seed: number): ModelInput[] {
  const random = seededRandom(seed);
  const id = (): number => 4 + Math.floor(random() * (vocab - 4));
  const inputs: ModelInput[] = [];
  for (let subject = 0; subject < subjects; subject += 1) {
    const prefix = Array.from({ length: prefixLength }, id);
    for (let question = 0; question < questions; question += 1) {
      const row = [...prefix, ...Array.from({ length: 2 + Math.floor(random() * 12) }, id)];
      for (let choice = 0; choice < 4; choice += 1) inputs.push({ inputTokens: row, continuationTokens: [id()] });
      const continuation = [id(), id(), id()];
      inputs.push({ inputTokens: [...row, ...continuation.slice(0, -1)], continuationTokens: continuation });
    }
  }
  // A row that shares nothing: scored without a prefix.
  inputs.push({ inputTokens: [7, 8, 9], continuationTokens: [10] });
  return inputs;
}

const layouts: [string, TinyCausalLmOptions][] = [
  ['optimum past_key_values.{i}.key/.value', { pastConvention: 'optimum' }],
  ['ORT GPT-2 stacked past_{i}, int32 ids + position_ids', { pastConvention: 'gpt2', idsType: 'int32', withPositionIds: true }],
];

describe('few-shot prefix reuse', () => {
  for (const [label, options] of layouts) {
    it(`${label}: exact against the independent path and against no reuse`, async () => {
      const { modelPath } = writeTinyCausalLm(path.join(workDir, label.replace(/[^a-z0-9]+/gi, '_')), { ...options, maxPositions: 128 });
      const inputs = fewShotInputs(3, 6, 40, 64, 17);
      const model = await loadModel({ model: modelPath, threads: 2 });
      try {
        expect(model.supportsPrefix).toBe(true);
        const reused = await scoreModelInputs(model, inputs, { batchSize: 4 });
        const plain = await scoreModelInputs(model, inputs, { batchSize: 4, prefixReuse: false });
        expect(reused.stats.prefixGroups).toBe(3);
        expect(plain.stats.prefixGroups).toBe(0);
        // Each subject's 40-token prefix runs once instead of once per question: 6 rows (each question's
        // four one-token answers read the row of its three-token answer, which extends theirs).
        expect(reused.stats.rows).toBe(3 * 6 + 1);
        expect(reused.stats.reusedPrefixTokens).toBe(3 * 40 * (6 - 1));
        expect(reused.stats.paddedTokens).toBeLessThan(plain.stats.paddedTokens / 2);
        reused.results.forEach((result, index) => {
          expect(Math.abs(result.loglik - (plain.results[index]?.loglik ?? Number.NaN)), `request ${index}`).toBeLessThan(1e-4);
          expect(result.isGreedy).toBe(plain.results[index]?.isGreedy);
        });
        await expectReferenceLogliks(modelPath, inputs, reused.results);
      } finally {
        model.dispose();
      }
    });
  }

  it("passes in flight at once share each group's prefix and stay exact", async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'concurrent'), { pastConvention: 'optimum', maxPositions: 128 });
    const inputs = fewShotInputs(4, 5, 36, 64, 41);
    const model = await loadModel({ model: modelPath, threads: 1 });
    try {
      const { results, stats } = await scoreModelInputs(model, inputs, { batchSize: 2, concurrentBatches: 3 });
      expect(stats.prefixGroups).toBe(4);
      await expectReferenceLogliks(modelPath, inputs, results);
    } finally {
      model.dispose();
    }
  });

  it('models without KV inputs score as before', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'no-past'));
    const model = await loadModel({ model: modelPath });
    try {
      expect(model.supportsPrefix).toBe(false);
      const { stats } = await scoreModelInputs(model, fewShotInputs(1, 3, 40, 64, 3));
      expect(stats.prefixGroups).toBe(0);
      await expect(model.computePrefix([5, 6])).rejects.toMatchObject({ code: 'BAD_MODEL' });
    } finally {
      model.dispose();
    }
  });

  it.skipIf(!hasShared)('tiny-random-gpt2-past (contrib Attention with past) reuses exactly', async () => {
    const inputs = fewShotInputs(2, 5, 48, 1000, 29);
    const model = await loadModel({ model: sharedPaths.gpt2Past, threads: 2 });
    try {
      const reused = await scoreModelInputs(model, inputs, { batchSize: 3 });
      expect(reused.stats.prefixGroups).toBe(2);
      await expectReferenceLogliks(sharedPaths.gpt2Past, inputs, reused.results);
    } finally {
      model.dispose();
    }
  });
});
