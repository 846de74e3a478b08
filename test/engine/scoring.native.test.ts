/**
 * The native core against the independent path (onnxruntime-node JS, batch 1, full logits, log-softmax
 * in float64): padded batches, shared rows, truncation and every input convention the core detects.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTinyCausalLm, type TinyCausalLmOptions } from '../support/model-builders/tiny-causal-lm.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { modelInputFor } from '../../src/engine/model-input.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { expectReferenceLogliks } from '../support/expect-reference.js';
import { randomModelInputs } from '../support/random-requests.js';
import type { ModelInput } from '../../src/engine/model-input.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-native-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

async function expectMatchesReference(modelPath: string, inputs: readonly ModelInput[], batchSize: number | 'auto'): Promise<void> {
  const model = await loadModel({ model: modelPath, threads: 2 });
  try {
    const { results, stats } = await scoreModelInputs(model, inputs, { batchSize });
    expect(stats.requests).toBe(inputs.length);
    await expectReferenceLogliks(modelPath, inputs, results);
  } finally {
    model.dispose();
  }
}

const variants: [string, TinyCausalLmOptions][] = [
  ['int64 ids + attention_mask', {}],
  ['int32 ids + mask + position_ids', { idsType: 'int32', withPositionIds: true }],
  ['no attention_mask', { withAttentionMask: false }],
  ['token_type_ids', { withTokenTypeIds: true }],
  ['optimum past_key_values', { pastConvention: 'optimum' }],
  ['ORT GPT-2 stacked past', { pastConvention: 'gpt2', idsType: 'int32', withPositionIds: true }],
  ['rank-3 output not named logits', { logitsName: 'output_0' }],
];

describe('native scoring matches the independent path', () => {
  for (const [label, options] of variants) {
    it(`${label}: padded batches, shared rows`, async () => {
      const dir = path.join(workDir, label.replace(/[^a-z0-9]+/gi, '_'));
      const { modelPath } = writeTinyCausalLm(dir, options);
      const inputs = randomModelInputs(40, 64, 30, 7);
      // Two requests that share a row, as " A"/" B" of one MMLU question do.
      inputs.push({ inputTokens: [5, 6, 7], continuationTokens: [8] }, { inputTokens: [5, 6, 7], continuationTokens: [9] });
      await expectMatchesReference(modelPath, inputs, 8);
    });
  }

  it('external-data model', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'external'), { externalData: true });
    await expectMatchesReference(modelPath, randomModelInputs(12, 64, 20, 11), 'auto');
  });

  it('left truncation at max length', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'truncation'));
    const model = await loadModel({ model: modelPath, maxLength: 16 });
    const context = Array.from({ length: 40 }, (_, index) => 4 + (index % 50));
    const input = modelInputFor({ contextTokens: context, continuationTokens: [10, 11, 12] }, model.maxLength, () => 'r');
    model.dispose();
    expect(input.inputTokens).toHaveLength(16);
    await expectMatchesReference(modelPath, [input], 4);
  });

  it('batch composition does not change results', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'composition'));
    const model = await loadModel({ model: modelPath });
    const inputs = randomModelInputs(30, 64, 25, 3);
    const one = await scoreModelInputs(model, inputs, { batchSize: 1 });
    const many = await scoreModelInputs(model, inputs, { batchSize: 16 });
    model.dispose();
    one.results.forEach((result, index) => {
      expect(Math.abs(result.loglik - (many.results[index]?.loglik ?? NaN))).toBeLessThan(1e-4);
    });
  });
});
