/**
 * The rewritten graph references its weights in the model file instead of carrying copies
 * (native/graph/external_weights.h): ORT reads them from the file as it reads any external-data model. The
 * logliks must be those of the file loaded as it is, for weights inline and in an external-data file alike,
 * and for a model reached through a symlink into another folder (Hugging Face's cache layout), where ORT
 * refuses names that resolve outside the folder it is given.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { loadModel } from '../../src/model/onnx-model.js';
import { expectReferenceLogliks } from '../support/expect-reference.js';
import { randomModelInputs } from '../support/random-requests.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-weights-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

// Every weight matrix is at least 64 x 64 floats (16 kB), above the 4 kB under which weights stay inline.
const SIZES = { vocabSize: 96, hiddenSize: 64, numHeads: 2, mlpSize: 128, numLayers: 2 } as const;

/** Logliks with only LM-head slicing (a rewritten graph, bit-exact by construction) and with no rewrite at all. */
async function slicedAndPlain(modelPath: string) {
  const inputs = randomModelInputs(24, SIZES.vocabSize, 30, 11, 4);
  const sliced = await loadModel({ model: modelPath, threads: 1, rewrites: { cpuFusion: false } });
  const plain = await loadModel({ model: modelPath, threads: 1, rewrites: { cpuFusion: false, sliceLmHead: false } });
  try {
    expect(sliced.rewrites.find((outcome) => outcome.name === 'sliceLmHead')?.applied).toBe(true);
    expect(plain.rewrites.every((outcome) => !outcome.applied)).toBe(true);
    return { inputs, sliced: (await scoreModelInputs(sliced, inputs)).results, plain: (await scoreModelInputs(plain, inputs)).results };
  } finally {
    sliced.dispose();
    plain.dispose();
  }
}

describe('rewritten graphs read their weights from the model file', () => {
  it.each([
    ['inline weights', false],
    ['an external-data file', true],
  ])('%s: the rewritten graph scores as the file loaded plainly, and the default path matches the independent one', async (_, externalData) => {
    const lm = writeTinyCausalLm(mkdtempSync(path.join(workDir, 'model-')), { ...SIZES, externalData, seed: 3 });
    const { inputs, sliced, plain } = await slicedAndPlain(lm.modelPath);
    expect(sliced.map((result) => result.loglik)).toEqual(plain.map((result) => result.loglik));
    const model = await loadModel({ model: lm.modelPath, threads: 1 });
    try {
      // The scoring rewrites (decodeCache is generation's).
      expect(model.rewrites.filter((outcome) => outcome.name !== 'decodeCache').map((outcome) => [outcome.name, outcome.applied])).toEqual([
        ['cpuFusion', true],
        ['sliceLmHead', true],
        ['pruneLastBlock', true],
      ]);
      await expectReferenceLogliks(lm.modelPath, inputs, (await scoreModelInputs(model, inputs)).results);
    } finally {
      model.dispose();
    }
  });

  it('a model file linked from another folder (snapshots/ -> blobs/) is rewritten and scores as loaded plainly', async () => {
    const lm = writeTinyCausalLm(mkdtempSync(path.join(workDir, 'linked-')), { ...SIZES, seed: 4 });
    const blobs = path.join(workDir, 'hub', 'blobs');
    const snapshot = path.join(workDir, 'hub', 'snapshots', 'rev');
    mkdirSync(blobs, { recursive: true });
    mkdirSync(snapshot, { recursive: true });
    renameSync(lm.modelPath, path.join(blobs, 'a1b2c3'));
    symlinkSync(path.join('..', '..', 'blobs', 'a1b2c3'), path.join(snapshot, 'model.onnx'));
    for (const side of ['config.json', 'tokenizer.json', 'tokenizer_config.json'])
      copyFileSync(path.join(path.dirname(lm.modelPath), side), path.join(snapshot, side));
    const { sliced, plain } = await slicedAndPlain(path.join(snapshot, 'model.onnx'));
    expect(sliced.map((result) => result.loglik)).toEqual(plain.map((result) => result.loglik));
  });
});
