/**
 * The DRAM estimate's formula and the measurement's protocol on the small edge fixture (3 layers, 4 heads of 8,
 * hidden 32, FFN 64, vocab 64, a learned position table of 64 rows). Expected figures are computed here from
 * the fixture's dimensions and the formula the README states, not read back from the estimate.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEdgeBase, initializerBytes, pruneHeads, writeEdgeModel } from '../../support/model-builders/edge-fixtures.js';
import { writeTinyCausalLm } from '../../support/model-builders/tiny-causal-lm.js';
import { checkDramBudget, resolveBudget } from '../../../src/inspect/dram/dram-check.js';
import { estimateDram } from '../../../src/inspect/dram/estimate.js';
import { measureDram } from '../../../src/inspect/dram/measure.js';
import { checkEdgeModel } from '../../../src/inspect/edge-check.js';
import { inspectModel } from '../../../src/inspect/report/inspect-report.js';
import { formatBytes, parseByteSize } from '../../../src/inspect/units.js';
import { intAttribute, makeTensor } from '../../support/model-builders/onnx-builder.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('dram');
const base = buildEdgeBase();
const basePath = writeEdgeModel(tempPath('base'), base, base.model);
const [L, A, hd, H, I, V, POSITIONS] = [3, 4, 8, 32, 64, 64, 64];

describe('DRAM estimate', () => {
  it('is weights + runtime + attention + hidden states at 2,000 tokens whatever config.json says; small logits reuse freed memory', async () => {
    const estimate = estimateDram(await inspectModel(basePath));
    const [C, b] = [2000, 4];
    const weights = initializerBytes(base.model);
    const attention = 3.5 * A * C * C * b;
    const hidden = b * (4 * C * H + 2 * C * I);
    expect(estimate.contextTokens).toBe(2000); // config.json states max_position_embeddings 64
    expect(estimate.weightBytes).toBe(weights);
    expect(estimate.runtimeBytes).toBe(15e6 + weights / 2);
    expect(estimate.kvCacheBytes).toBe(0); // the graph returns no KV cache
    expect(estimate.logitsBytes).toBe(C * V * 4);
    expect(estimate.activationBytes).toBe(attention + hidden); // 512 kB of logits fit in the freed attention memory
    expect(estimate.totalBytes).toBe(weights + 15e6 + weights / 2 + attention + hidden);
    expect(estimate.formula).toContain(`= ${formatBytes(estimate.totalBytes)}`);
    expect(estimate.inputLimit).toEqual({ tensor: 'position_embedding', rows: POSITIONS, kind: 'learned' });
    expect(estimate.assumptions).toContain("the graph's position table position_embedding has 64 rows: it cannot run 2,000 tokens");
  });

  it('counts the KV cache a graph returns, and logits larger than the attention memory on top', async () => {
    const options = { vocabSize: 5000, hiddenSize: 16, numHeads: 2, numLayers: 2, mlpSize: 32, maxPositions: 512, pastConvention: 'optimum' as const };
    const lm = writeTinyCausalLm(tempPath('with-kv'), { ...options, withTokenizer: false });
    const [C, b] = [512, 4];
    const estimate = estimateDram(await inspectModel(lm.modelPath), { contextTokens: C });
    const attention = 3.5 * 2 * C * C * b;
    const logits = C * 5000 * 4;
    expect(logits).toBeGreaterThan(attention);
    expect(estimate.kvCacheBytes).toBe(2 * 2 * C * 2 * 8 * b); // present.{layer}.key/value, [1, 2, C, 8] each
    expect(estimate.activationBytes).toBe(attention + b * (4 * C * 16 + 2 * C * 32) + logits);
    expect(estimate.inputLimit).toBeNull();
  });

  it('EXPECTED FAILURE – a budget one byte under the estimate fails it; the estimate itself passes', async () => {
    const estimate = estimateDram(await inspectModel(basePath), { contextTokens: 16 });
    const failing = checkDramBudget(estimate, null, resolveBudget(undefined, estimate.totalBytes - 1)!);
    expect(failing.verdict.status).toBe('fail');
    expect(failing.verdict.reasons[0]).toBe(
      `estimated DRAM ${formatBytes(estimate.totalBytes)} exceeds the DRAM budget of ${formatBytes(estimate.totalBytes - 1)} by 1 B`,
    );
    expect(checkDramBudget(estimate, null, resolveBudget(undefined, estimate.totalBytes)!).verdict.status).toBe('pass');
  });

  it('warns, judged on the estimate, that the graph cannot run the input', async () => {
    const check = checkDramBudget(estimateDram(await inspectModel(basePath)), null, resolveBudget('edge-training', undefined));
    expect(check.verdict.warnings).toContain('the graph cannot run the 2,000-token input: its position table position_embedding has 64 rows');
  });

  it('takes budgets from the tracks or explicitly, and parses sizes', () => {
    // Each limit in bytes, GB (10^9) and GiB (2^30), with where it comes from.
    expect(resolveBudget('edge-training', undefined)).toMatchObject({
      bytes: 1e9,
      gb: 1,
      gib: 1e9 / 1073741824,
      source: 'edge-training',
      rule: expect.stringContaining("MLRB's edge_llm_training prompt"),
    });
    expect(resolveBudget('edge-training', undefined)?.rule).toContain('the Edge-LLM challenge itself says 12 GB');
    expect(resolveBudget('edge-compression', undefined)).toMatchObject({ bytes: 12e9, gb: 12, gib: 12e9 / 1073741824, source: 'edge-compression' });
    expect(resolveBudget('edge-compression', 5)).toMatchObject({ bytes: 5, source: 'custom', rule: expect.stringContaining('operator override') });
    expect(resolveBudget(undefined, undefined)).toBeNull();
    expect(() => resolveBudget('edge-mystery' as never, undefined)).toThrow(RangeError);
    expect(() => resolveBudget(undefined, 0)).toThrow(RangeError);
    expect([parseByteSize('12GB'), parseByteSize('1.5 GiB'), parseByteSize('1000000'), parseByteSize('64kib')]).toEqual([12e9, 1.5 * 2 ** 30, 1e6, 65536]);
    expect(() => parseByteSize('twelve')).toThrow(RangeError);
    expect(() => parseByteSize('12 XB')).toThrow(RangeError);
  });
});

describe('DRAM measurement (child process)', () => {
  it('runs four probes of exactly the tokens asked for (the text, random ids, one repeated id, the text at a shorter length), a logits row per token, and takes the largest', async () => {
    const measurement = await measureDram(basePath, { threads: 1, tokens: POSITIONS });
    expect(measurement.tokens).toBe(64);
    expect(measurement.probes.map((probe) => probe.kind)).toEqual(['text', 'random-ids', 'repeated-id', 'text-other-length']);
    for (const probe of measurement.probes) {
      expect(probe).toMatchObject({ logitRows: probe.tokens, vocabSize: V, logitsType: 'float32' });
      expect(probe.baselineRssBytes).toBeGreaterThan(10e6);
      expect(probe.peakRssBytes).toBeGreaterThanOrEqual(probe.afterLoadRssBytes);
      expect(probe.peakDeltaBytes).toBe(probe.peakRssBytes - probe.baselineRssBytes);
      expect(probe.peakDeltaBytes).toBeGreaterThan(initializerBytes(base.model));
      expect(probe.peakDeltaBytes).toBeLessThan(1e9);
    }
    const [text, random, repeated, shorter] = measurement.probes;
    expect([text!.tokens, random!.tokens, repeated!.tokens]).toEqual([64, 64, 64]);
    expect(shorter!.tokens).toBeGreaterThanOrEqual(32);
    expect(shorter!.tokens).toBeLessThan(64);
    expect(repeated!.distinctIds).toBe(1);
    expect(random!.distinctIds).toBeGreaterThan(20); // 64 draws from 64 ids: about 41 distinct
    expect(text!.description).toMatch(/^64 tokens of the text from paragraph \d+$/);
    const largest = Math.max(...measurement.probes.map((probe) => probe.peakDeltaBytes));
    expect(measurement.peakDeltaBytes).toBe(largest);
    expect(measurement.probes.find((probe) => probe.kind === measurement.decidingProbe)!.peakDeltaBytes).toBe(largest);
    expect(measurement.text).toMatchObject({
      licence: expect.stringContaining('CC BY-SA 3.0'),
      tokenizer: path.join(path.dirname(basePath), 'tokenizer.json'),
    });
  });

  it("EXPECTED FAILURE – without the model's tokenizer there is no real text to feed: BAD_TOKENIZER naming where it looked", async () => {
    const folder = path.dirname(writeEdgeModel(tempPath('no-tokenizer'), base, base.model));
    rmSync(path.join(folder, 'tokenizer.json'));
    await expect(measureDram(folder, { tokens: 16 })).rejects.toMatchObject({
      code: 'BAD_TOKENIZER',
      message: expect.stringContaining(`no tokenizer at ${path.join(folder, 'tokenizer.json')}: the DRAM measurement feeds real text`),
    });
  });

  it('feeds ids a graph cannot foresee: a graph that keeps 200 MB of working memory for any input but a fixed probe input is measured with it', async () => {
    // The graph adds 0 · ReduceSum(ConstantOfShape([50M · (sum(ids) ≠ S)])) to the logits: 200 MB for any input
    // whose ids do not sum to S, the sum of a predictable probe input ((i · 7919 + 13) mod V), nothing for that one.
    const predictableSum = Array.from({ length: POSITIONS }, (_, index) => (index * 7919 + 13) % V).reduce((sum, id) => sum + id, 0);
    const model = structuredClone(base.model);
    const logits = model.graph.outputs[0]!.name;
    const nodes = model.graph.nodes.map((node) => ({ ...node, outputs: node.outputs.map((name) => (name === logits ? 'logits_real' : name)) }));
    const probeAware = {
      ...model,
      graph: {
        ...model.graph,
        nodes: [
          ...nodes,
          { opType: 'ReduceSum', inputs: ['input_ids'], outputs: ['ids_sum'], attributes: [intAttribute('keepdims', 0)] },
          { opType: 'Equal', inputs: ['ids_sum', 'probe_sum'], outputs: ['is_probe'] },
          { opType: 'Not', inputs: ['is_probe'], outputs: ['is_real'] },
          { opType: 'Cast', inputs: ['is_real'], outputs: ['is_real_count'], attributes: [intAttribute('to', 7)] },
          { opType: 'Mul', inputs: ['block_elements', 'is_real_count'], outputs: ['block_shape'] },
          {
            opType: 'ConstantOfShape',
            inputs: ['block_shape'],
            outputs: ['block'],
            attributes: [{ name: 'value', type: 'tensor' as const, value: makeTensor('one', 'float32', [1], [1]) }],
          },
          { opType: 'ReduceSum', inputs: ['block'], outputs: ['block_sum'], attributes: [intAttribute('keepdims', 0)] },
          { opType: 'Mul', inputs: ['block_sum', 'zero'], outputs: ['nothing'] },
          { opType: 'Add', inputs: ['logits_real', 'nothing'], outputs: [logits] },
        ],
        initializers: [
          ...model.graph.initializers,
          makeTensor('probe_sum', 'int64', [], [BigInt(predictableSum)]),
          makeTensor('block_elements', 'int64', [1], [50_000_000n]),
          makeTensor('zero', 'float32', [], [0]),
        ],
      },
    };
    const measurement = await measureDram(writeEdgeModel(tempPath('probe-aware'), base, probeAware), { threads: 1, tokens: POSITIONS });
    expect(measurement.peakDeltaBytes).toBeGreaterThan(200e6);
    // (Not every probe: 64 ids can sum to the predictable input's sum by chance, and that probe then takes the cheap path.)
  });

  it('EXPECTED FAILURE – a graph whose position table is shorter than 2,000 rows is refused, naming the limit, never measured shorter', async () => {
    const failure = await measureDram(basePath).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'BAD_MODEL', details: { tensor: 'position_embedding', positionLimit: 64, tokens: 2000 } });
    expect((failure as Error).message).toContain(
      'cannot run the 2,000-token input the DRAM measurement needs: its learned position table position_embedding has 64 rows',
    );
    await expect(measureDram(basePath, { tokens: 65 })).rejects.toMatchObject({ code: 'BAD_MODEL', details: { positionLimit: 64, tokens: 65 } });
  });

  it('EXPECTED FAILURE – the track verdict fails on such a graph, with the limit as its reason', async () => {
    const report = await checkEdgeModel(basePath, { track: 'edge-training', threads: 1 });
    expect(report.dram.measurement).toBeNull();
    expect(report.verdict.status).toBe('fail');
    expect(report.verdict.reasons.at(-1)).toMatch(/^the DRAM measurement failed \(BAD_MODEL\): .*position table position_embedding has 64 rows/);
  });

  it('decides the verdict at a length the caller chose, the estimate reported beside it', async () => {
    const report = await checkEdgeModel(basePath, { track: 'edge-training', threads: 1, contextTokens: POSITIONS });
    expect(report.dram.basis).toBe('measured');
    expect(report.dram.measurement?.tokens).toBe(64);
    expect(report.dram.measurement?.probes.filter((probe) => probe.kind !== 'text-other-length').every((probe) => probe.tokens === 64)).toBe(true);
    expect(report.dram.estimate.contextTokens).toBe(64);
    expect(report.verdict.status).toBe('pass');
    const tiny = await checkEdgeModel(basePath, { dramBudgetBytes: 1000, threads: 1, contextTokens: POSITIONS });
    expect(tiny.verdict.status).toBe('fail');
    expect(tiny.verdict.reasons[0]).toMatch(/^measured peak DRAM .* exceeds the DRAM budget of 1.00 kB/);
  });

  it("EXPECTED FAILURE – a model that does not run fails the budget check with the measurement's error", async () => {
    const broken = writeEdgeModel(tempPath('broken'), base, pruneHeads(base, base.model, 0, [1], false));
    const report = await checkEdgeModel(broken, { track: 'edge-training', threads: 1, contextTokens: 16 });
    expect(report.dram.measurement).toBeNull();
    expect(report.dram.measurementError?.code).toBe('ORT_RUN');
    expect(report.verdict.status).toBe('fail');
    expect(report.verdict.reasons.at(-1)).toMatch(/^the DRAM measurement failed \(ORT_RUN\): /);
  });

  it('EXPECTED FAILURE – a missing model is BAD_MODEL', async () => {
    await expect(measureDram(tempPath('nowhere/model.onnx'))).rejects.toMatchObject({ code: 'BAD_MODEL' });
  });

  it('BAD CALL – tokens and threads are checked before any work', async () => {
    await expect(measureDram(tempPath('nowhere/model.onnx'), { tokens: 0 })).rejects.toThrow(RangeError);
    await expect(measureDram(tempPath('nowhere/model.onnx'), { threads: -1 })).rejects.toThrow(RangeError);
  });
});

// Keeps the fixture builder honest about the dims the expectations above assume.
it('the edge fixture has the dimensions this file assumes', () => {
  const { options } = base;
  expect([
    options.numLayers,
    options.numHeads,
    options.hiddenSize / options.numHeads,
    options.hiddenSize,
    options.mlpSize,
    options.vocabSize,
    options.maxPositions,
  ]).toEqual([L, A, hd, H, I, V, POSITIONS]);
});
