/**
 * LM-head slicing: the rewritten graph computes logits only at scored positions, and every loglik still
 * matches the independent path (onnxruntime-node JS, batch 1, full logits, float64 log-softmax). Graphs
 * without the pattern load unchanged and say why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTensor, writeModelFiles, type ModelProto, type NodeProto, type TensorProto } from '../support/model-builders/onnx-builder.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import type { ModelInput } from '../../src/engine/model-input.js';
import { expectReferenceLogliks } from '../support/expect-reference.js';
import { randomModelInputs, seededRandom } from '../support/random-requests.js';
import { writeNanLogitsModel } from '../support/odd-models.js';
import { hasShared, sharedPaths } from '../support/shared-data.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-slicing-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const withSharedRows = (inputs: ModelInput[]): ModelInput[] => [
  ...inputs,
  { inputTokens: [5, 6, 7], continuationTokens: [8] },
  { inputTokens: [5, 6, 7], continuationTokens: [9] },
  { inputTokens: [5, 6, 7], continuationTokens: [6, 7, 10] },
];

async function scoreBothWays(modelPath: string, inputs: readonly ModelInput[]) {
  const sliced = await loadModel({ model: modelPath, threads: 2 });
  const full = await loadModel({ model: modelPath, threads: 2, sliceLmHead: false });
  try {
    return {
      slicedSignature: sliced.signature,
      fullSignature: full.signature,
      sliced: await scoreModelInputs(sliced, inputs, { batchSize: 8 }),
      full: await scoreModelInputs(full, inputs, { batchSize: 8 }),
    };
  } finally {
    sliced.dispose();
    full.dispose();
  }
}

/** A head the fixture does not have: logits = Tanh(MatMul(h, Transpose(E)) + bias) * 4, over a token lookup h. */
function writeBiasedTiedHeadModel(dir: string): string {
  const vocab = 24;
  const hidden = 6;
  const random = seededRandom(5);
  const values = (count: number): number[] => Array.from({ length: count }, () => random() * 2 - 1);
  const initializers: TensorProto[] = [
    makeTensor('embedding', 'float32', [vocab, hidden], values(vocab * hidden)),
    makeTensor('head_bias', 'float32', [vocab], values(vocab)),
    makeTensor('scale', 'float32', [], [4]),
  ];
  const nodes: NodeProto[] = [
    { opType: 'Gather', inputs: ['embedding', 'input_ids'], outputs: ['hidden'] },
    { opType: 'Transpose', inputs: ['embedding'], outputs: ['head_weight'], attributes: [{ name: 'perm', type: 'ints', value: [1, 0] }] },
    { opType: 'MatMul', inputs: ['hidden', 'head_weight'], outputs: ['projected'] },
    { opType: 'Add', inputs: ['projected', 'head_bias'], outputs: ['biased'] },
    { opType: 'Tanh', inputs: ['biased'], outputs: ['capped'] },
    { opType: 'Mul', inputs: ['capped', 'scale'], outputs: ['logits'] },
  ];
  const model: ModelProto = {
    irVersion: 8,
    opsetImports: [{ domain: '', version: 17 }],
    graph: {
      name: 'biased_tied_head',
      nodes,
      initializers,
      inputs: [{ name: 'input_ids', elementType: 'int64', shape: ['batch', 'sequence'] }],
      outputs: [{ name: 'logits', elementType: 'float32', shape: ['batch', 'sequence', vocab] }],
    },
  };
  return writeModelFiles(dir, model);
}

describe('LM-head slicing', () => {
  it('rewrites the tiny causal LM: logits are [positions, vocab] and match the independent path', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'tiny'));
    const inputs = withSharedRows(randomModelInputs(40, 64, 30, 21));
    const { slicedSignature, fullSignature, sliced, full } = await scoreBothWays(modelPath, inputs);
    expect(slicedSignature.logitsSliced).toBe(true);
    expect(slicedSignature.inputs.map((input) => input.role)).toContain('logit_positions');
    expect(fullSignature.logitsSliced).toBe(false);
    // Only scored positions come back: one per distinct (row, position), far fewer than rows × padded length.
    expect(sliced.stats.logitRows).toBeLessThan(full.stats.logitRows / 4);
    expect(full.stats.logitRows).toBe(full.stats.paddedTokens);
    sliced.results.forEach((result, index) => {
      expect(Math.abs(result.loglik - (full.results[index]?.loglik ?? Number.NaN)), `request ${index}`).toBeLessThan(1e-5);
      expect(result.isGreedy).toBe(full.results[index]?.isGreedy);
    });
    await expectReferenceLogliks(modelPath, inputs, sliced.results);
  });

  it('keeps external data: the rewritten graph is loaded from memory and finds model.onnx_data', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'external'), { externalData: true, pastConvention: 'optimum' });
    const model = await loadModel({ model: modelPath });
    const inputs = randomModelInputs(16, 64, 20, 4);
    try {
      expect(model.signature.logitsSliced).toBe(true);
      await expectReferenceLogliks(modelPath, inputs, (await scoreModelInputs(model, inputs, { batchSize: 4, prefixReuse: false })).results);
    } finally {
      model.dispose();
    }
  });

  it('follows bias, tanh and scale after a tied (transposed) head', async () => {
    const modelPath = writeBiasedTiedHeadModel(path.join(workDir, 'biased'));
    const inputs = withSharedRows(randomModelInputs(20, 24, 12, 8));
    const logs: string[] = [];
    const model = await loadModel({ model: modelPath, onLog: (line) => logs.push(line) });
    try {
      expect(model.signature.logitsSliced).toBe(true);
      expect(logs.join('\n')).toMatch(/rewrite sliceLmHead: applied \(MatMul\(hidden, head_weight\) and the 3 element-wise op/);
      await expectReferenceLogliks(modelPath, inputs, (await scoreModelInputs(model, inputs, { batchSize: 5 })).results);
    } finally {
      model.dispose();
    }
  });

  it('EXPECTED FALLBACK – logits that are not a MatMul head load unchanged and say why', async () => {
    const logs: string[] = [];
    const model = await loadModel({ model: writeNanLogitsModel(path.join(workDir, 'gather')), onLog: (line) => logs.push(line) });
    try {
      expect(model.signature.logitsSliced).toBe(false);
      expect(logs.join('\n')).toMatch(/rewrite sliceLmHead: not applied \(the logits output logits comes from Gather/);
    } finally {
      model.dispose();
    }
  });

  it('can be turned off', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'off'));
    const logs: string[] = [];
    const model = await loadModel({ model: modelPath, sliceLmHead: false, onLog: (line) => logs.push(line) });
    model.dispose();
    expect(model.signature.logitsSliced).toBe(false);
    expect(logs.join('\n')).toMatch(/rewrite sliceLmHead: not applied \(turned off by the caller\)/);
  });

  it.skipIf(!hasShared)('stories260K (tied embeddings through Transpose) is sliced and exact', async () => {
    const inputs = withSharedRows(randomModelInputs(24, 512, 60, 13, 3));
    const { slicedSignature, sliced } = await scoreBothWays(sharedPaths.stories, inputs);
    expect(slicedSignature.logitsSliced).toBe(true);
    await expectReferenceLogliks(sharedPaths.stories, inputs, sliced.results);
  });
});
