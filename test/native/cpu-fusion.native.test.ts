/**
 * CPU graph fusion (the default on the CPU): attention blocks written the ways exporters write them run as
 * one fused ai.mlrb kernel (reading Q, K and V in place through absorbed transposes, repeat_kv and rotary
 * embeddings), and every loglik still matches the independent path (the unmodified graph in
 * onnxruntime-node, batch 1, float64 log-softmax) and the unfused product path. On stories260K (a real
 * Llama export) fused and unfused logliks are equal bit for bit where the kernel's path is the MLAS kernel
 * family this CPU runs (AVX-512 or AVX2), since it then rounds as ONNX Runtime's own kernels do; on the
 * generated GPT-style graphs ORT itself fuses a residual Add into the next LayerNorm once attention is one
 * node, so there they agree to float32 rounding. Padded batches, long rows, each mask style, torch sdpa's
 * scaling and NaN guard, grouped-query attention, rotary embeddings, a KV-cache graph and head_dim 64 are
 * covered (transformers' own exports: test/native/fusion-real-exports.native.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTensor, writeModelFiles } from '../support/model-builders/onnx-builder.js';
import { buildTinyCausalLm, writeTinyCausalLm, type WriteTinyCausalLmOptions } from '../support/model-builders/tiny-causal-lm.js';
import { scoreModelInputs } from '../../src/engine/score-requests.js';
import { buildModelInputs } from '../../src/eval/text-requests.js';
import { buildTaskRequests } from '../../src/eval/task-requests.js';
import { loadSuite } from '../../src/tasks/registry.js';
import type { ModelInput } from '../../src/engine/model-input.js';
import { loadModel, type LoadModelOptions } from '../../src/model/onnx-model.js';
import { fusedAgreementLabel, fusedRoundsAsOrt } from '../support/cpu-features.js';
import { expectReferenceLogliks, LOGLIK_TOLERANCE } from '../support/expect-reference.js';
import { writeNanLogitsModel } from '../support/odd-models.js';
import { randomModelInputs, seededRandom } from '../support/random-requests.js';
import { hasShared, sharedPaths } from '../support/shared-data.js';
import { isMultipleChoice } from '../../src/tasks/types.js';
import { FULL_TIER } from '../support/test-tier.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-fusion-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const FUSED_NOTE = /rewrite cpuFusion: applied \((\d+) of (\d+) Softmax attention blocks run as one ai\.mlrb node each/;

/** Random requests plus rows long enough to span several 16-query blocks, and rows sharing a prefix. */
function requestsFor(vocabSize: number, maxPositions: number, seed: number): ModelInput[] {
  const random = seededRandom(seed + 1);
  const id = (): number => 4 + Math.floor(random() * (vocabSize - 4));
  const long = (length: number): ModelInput => ({ inputTokens: Array.from({ length }, id), continuationTokens: [id(), id()] });
  const prefix = Array.from({ length: 24 }, id);
  const sharing = Array.from({ length: 6 }, (): ModelInput => ({ inputTokens: [...prefix, id(), id()], continuationTokens: [id()] }));
  return [...randomModelInputs(36, vocabSize, Math.min(40, maxPositions - 1), seed, 4), long(maxPositions - 1), long(33), long(17), ...sharing];
}

/** Loads a model only to see what loading decided: whether attention was fused, and the notes it logged. */
async function loadingNotes(options: LoadModelOptions): Promise<{ fused: boolean; notes: string }> {
  const logs: string[] = [];
  const model = await loadModel({ ...options, onLog: (message) => logs.push(message) });
  const fused = model.attentionFused;
  model.dispose();
  return { fused, notes: logs.join('\n') };
}

async function loadBoth(modelPath: string) {
  const logs: string[] = [];
  const fused = await loadModel({ model: modelPath, threads: 1, onLog: (message) => logs.push(message) });
  const plain = await loadModel({ model: modelPath, threads: 1, cpuFusion: false });
  return { fused, plain, logs };
}

/** [what the graph has, fixture options, whether the rotary embedding should be folded into the kernel] */
const variants: [string, WriteTinyCausalLmOptions, boolean?][] = [
  ['Where(mask, scores, fill) with a Mul scale', {}],
  ['Where(Not(mask), fill, scores) with a Div scale', { maskStyle: 'where-inverted', scaleOp: 'div' }],
  ['an additive float mask of -1e9 (no key skipped)', { maskStyle: 'additive' }],
  ['an additive float-min mask (excluded keys skipped)', { maskStyle: 'additive', maskFill: -3.4028234663852886e38 }],
  [
    "torch sdpa's form: Q and Kᵀ scaled apart, a -inf additive mask, Where(IsNaN(p), 0, p) after the Softmax",
    { scaleOp: 'sdpa', maskStyle: 'additive', maskFill: -Infinity },
  ],
  ['grouped-query attention through repeat_kv (4 query heads, 2 key/value heads)', { hiddenSize: 32, numHeads: 4, kvRepeat: 2 }],
  ['head_dim 64 over 3 layers and 96 positions', { hiddenSize: 128, numHeads: 2, numLayers: 3, maxPositions: 96, mlpSize: 64 }],
  ['an optimum KV-cache graph with int32 ids (shared prefixes reuse their KV)', { idsType: 'int32', pastConvention: 'optimum' }],
  ["Llama's rotary embedding with grouped-query attention", { rotary: true, hiddenSize: 32, numHeads: 4, kvRepeat: 2 }, true],
  ['a rotary embedding at position_ids (tables broadcast as [batch, 1, seq, d])', { rotary: true, withPositionIds: true }, true],
  ['a rotary embedding under a KV cache (cached keys: the graph keeps the rotation)', { rotary: true, pastConvention: 'optimum' }, false],
];

const ROTARY_NOTE = /\((\d+) with the rotary embedding of Q and K folded in\)/;

describe('CPU graph fusion', () => {
  variants.forEach(([name, options, rotaryFolded = false], index) => {
    it(`fuses ${name} and matches the independent path`, async () => {
      const dir = mkdtempSync(path.join(workDir, 'variant-'));
      const lm = writeTinyCausalLm(dir, { ...options, seed: 100 + index });
      const inputs = requestsFor(lm.options.vocabSize, lm.options.maxPositions, 7 + index);
      const { fused, plain, logs } = await loadBoth(lm.modelPath);
      try {
        expect(fused.attentionFused).toBe(true);
        const note = logs.find((message) => FUSED_NOTE.test(message)) ?? '';
        const [, fusedBlocks, softmaxes] = FUSED_NOTE.exec(note) ?? [];
        expect(Number(fusedBlocks), note).toBe(lm.options.numLayers);
        expect(Number(softmaxes)).toBe(lm.options.numLayers);
        expect(ROTARY_NOTE.exec(note)?.[1], note).toBe(rotaryFolded ? String(lm.options.numLayers) : undefined);
        // The sliced head reads few positions, so the last block computes only those rows.
        expect(logs.join('\n')).toMatch(
          /rewrite pruneLastBlock: applied \(the last attention and the \d+ nodes after it run only on the scored positions \(1 residual/,
        );
        expect(plain.attentionFused).toBe(false);

        const { results } = await scoreModelInputs(fused, inputs);
        await expectReferenceLogliks(lm.modelPath, inputs, results);
        const unfused = await scoreModelInputs(plain, inputs);
        results.forEach((result, request) => {
          expect(Math.abs(result.loglik - (unfused.results[request]?.loglik ?? Number.NaN)), `request ${request}`).toBeLessThan(LOGLIK_TOLERANCE);
        });
      } finally {
        fused.dispose();
        plain.dispose();
      }
    });
  });

  it('keeps masked keys that still weigh: a mild fill (-4) gives every excluded key e^-4 of weight', async () => {
    // Unpadded batches (batch size 1), since with such a fill padding would leak into the rows.
    const dir = mkdtempSync(path.join(workDir, 'mild-'));
    const lm = writeTinyCausalLm(dir, { maskFill: -4, seed: 31 });
    const inputs = requestsFor(lm.options.vocabSize, lm.options.maxPositions, 31);
    const { fused, plain } = await loadBoth(lm.modelPath);
    try {
      expect(fused.attentionFused).toBe(true);
      const { results } = await scoreModelInputs(fused, inputs, { batchSize: 1 });
      await expectReferenceLogliks(lm.modelPath, inputs, results);
    } finally {
      fused.dispose();
      plain.dispose();
    }
  });

  it("leaves alone a block whose NaN guard is not sdpa's: Where(IsNaN(p), 1, p) gives NaN rows a weight the op cannot", async () => {
    const { model } = buildTinyCausalLm({ scaleOp: 'sdpa', maskStyle: 'additive', maskFill: -Infinity, seed: 53 });
    const initializers = model.graph.initializers.map((tensor) => (tensor.name === 'const_nan_weight' ? makeTensor(tensor.name, 'float32', [], [1]) : tensor));
    const modelPath = writeModelFiles(mkdtempSync(path.join(workDir, 'guard-')), { ...model, graph: { ...model.graph, initializers } });
    const loaded = await loadModel({ model: modelPath, threads: 1 });
    try {
      expect(loaded.attentionFused).toBe(false);
      expect(loaded.rewrites.find((outcome) => outcome.name === 'cpuFusion')).toEqual({
        name: 'cpuFusion',
        applied: false,
        reason: 'no Softmax sits in a MatMul / scale / mask / MatMul attention block',
      });
      const inputs = randomModelInputs(12, 64, 20, 53, 4);
      await expectReferenceLogliks(modelPath, inputs, (await scoreModelInputs(loaded, inputs)).results);
    } finally {
      loaded.dispose();
    }
  });

  it('is on by default, off when turned off, and says why a graph without attention is left alone', async () => {
    const lookup = await loadingNotes({ model: writeNanLogitsModel(mkdtempSync(path.join(workDir, 'plain-'))) });
    expect(lookup.notes).toMatch(/rewrite cpuFusion: not applied \(the graph has no Softmax\)/);

    const lm = writeTinyCausalLm(mkdtempSync(path.join(workDir, 'off-')));
    const off = await loadingNotes({ model: lm.modelPath, cpuFusion: false });
    expect(off.fused).toBe(false);
    expect(off.notes).toMatch(/rewrite cpuFusion: not applied \(turned off by the caller\)/);
  });

  it('prunes the last block only where the head is sliced: without slicing it is not attempted, and says so', async () => {
    const lm = writeTinyCausalLm(mkdtempSync(path.join(workDir, 'unsliced-')));
    const unsliced = await loadingNotes({ model: lm.modelPath, sliceLmHead: false });
    expect(unsliced.fused).toBe(true);
    expect(unsliced.notes).toMatch(/rewrite pruneLastBlock: not applied \(needs sliceLmHead, which did not apply\)/);
  });

  it.skipIf(!hasShared)('fuses stories260K: 5 attention blocks with GQA, rotary embedding and head transposes absorbed', async () => {
    const stories = await loadingNotes({ model: sharedPaths.stories });
    expect(stories.fused).toBe(true);
    expect(stories.notes).toMatch(/5 of 5 Softmax attention blocks run as one ai\.mlrb node each \(5 with the rotary embedding of Q and K folded in\)/);
    expect(stories.notes).toMatch(/rewrite pruneLastBlock: applied \(the last attention and the 22 nodes after it run only on the scored positions/);
  });

  it.runIf(FULL_TIER && hasShared)(`gives stories260K's unfused logliks on real MMLU and BLiMP rows ${fusedAgreementLabel}`, async () => {
    const suites = [await loadSuite('mmlu', { dataDir: sharedPaths.mmlu, limit: 2 }), await loadSuite('blimp', { dataDir: sharedPaths.blimp, limit: 4 })];
    const fused = await loadModel({ model: sharedPaths.stories });
    const plain = await loadModel({ model: sharedPaths.stories, cpuFusion: false });
    try {
      expect(fused.attentionFused).toBe(true);
      for (const suite of suites) {
        const inputs = buildModelInputs(
          fused,
          suite.tasks.filter(isMultipleChoice).flatMap((task) => buildTaskRequests(task)),
          (index) => `request ${index}`,
        );
        const fusedLogliks = (await scoreModelInputs(fused, inputs)).results.map((result) => result.loglik);
        const plainLogliks = (await scoreModelInputs(plain, inputs)).results.map((result) => result.loglik);
        if (fusedRoundsAsOrt) {
          expect(fusedLogliks).toEqual(plainLogliks);
        } else {
          fusedLogliks.forEach((loglik, request) => expect(Math.abs(loglik - (plainLogliks[request] as number))).toBeLessThan(LOGLIK_TOLERANCE));
        }
      }
    } finally {
      fused.dispose();
      plain.dispose();
    }
  });
});
