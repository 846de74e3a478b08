import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildEdgeBase,
  floatParameters,
  pruneFfnChannels,
  pruneHeads,
  removeLayer,
  sparsifyWeights,
  storedElements,
  writeEdgeModel,
  zeroFfnChannels,
  zeroHeads,
} from '../../support/model-builders/edge-fixtures.js';
import type { ModelProto } from '../../support/model-builders/onnx-builder.js';
import { tinyLmConfigJson } from '../../support/model-builders/tiny-causal-lm.js';
import { checkPruning } from '../../../src/inspect/pruning/pruning-check.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('pruning');
const base = buildEdgeBase(); // 3 layers, 4 heads of 8, FFN 64, hidden 32, vocab 64
const basePath = writeEdgeModel(tempPath('base'), base, base.model);
const configPath = tempPath('phi-style-config.json');
writeFileSync(configPath, JSON.stringify(tinyLmConfigJson(base.options)));

let counter = 0;
const write = (model: ModelProto, externalData = false): string => writeEdgeModel(tempPath(`variant-${counter++}`), base, model, { externalData });

describe('check-pruning on structurally pruned variants', () => {
  const headsPruned = pruneHeads(base, pruneHeads(base, base.model, 0, [0, 2]), 2, [1]);
  const ffnPruned = pruneFfnChannels(
    base.model,
    1,
    Array.from({ length: 40 }, (_, index) => (index < 20 ? index : index + 10)),
  );
  const layerRemoved = removeLayer(base.model, 1);
  const combined = removeLayer(pruneFfnChannels(pruneHeads(base, base.model, 2, [3]), 0, [1, 5, 9]), 1);

  it.each([
    ['heads', headsPruned, { 0: [2, 64], 1: [4, 64], 2: [1, 64] }, []],
    ['FFN channels', ffnPruned, { 0: [4, 64], 1: [4, 40], 2: [4, 64] }, []],
    ['a whole middle layer', layerRemoved, { 0: [4, 64], 2: [4, 64] }, [1]],
    ['heads, channels and a layer at once', combined, { 0: [4, 3], 2: [1, 64] }, [1]],
  ] as const)('passes with %s removed and reports what each layer kept', async (_, model, keptByLayer, removed) => {
    for (const [basePathOrConfig, externalData] of [
      [basePath, false],
      [configPath, true],
    ] as const) {
      const report = await checkPruning(write(model, externalData), { base: basePathOrConfig });
      expect(report.verdict.reasons).toEqual([]);
      expect(report.verdict.status).toBe('pass');
      expect(report.removedLayers).toEqual(removed);
      // An ONNX base lets norm weights match layers; a config has no weights, so names do.
      expect(report.layerMapping).toBe(basePathOrConfig === basePath ? 'by-weights' : 'by-name');
      for (const [layer, [heads, ffn]] of Object.entries(keptByLayer)) {
        const row = report.layers[Number(layer)]!;
        expect(row.status).toBe('kept');
        expect(row.heads).toEqual({ base: 4, kept: heads });
        expect(row.ffnChannels).toEqual({ base: 64, kept: ffn });
        expect(row.hidden).toEqual({ base: 32, kept: 32 });
      }
      // Counted from storage (every element the builder wrote); a config base is counted by its architecture's
      // formula, which knows only the float weights.
      const expectedParams = storedElements(model);
      const baseParams = basePathOrConfig === basePath ? storedElements(base.model) : floatParameters(base.model);
      expect(report.pruned.params).toBe(expectedParams);
      expect(report.base.totalParams).toBe(baseParams);
      expect(report.percentRemoved).toBeCloseTo((100 * (baseParams - expectedParams)) / baseParams, 10);
      expect(report.fakePruning.detected).toBe(false);
      expect(report.forwardPass?.ok).toBe(true);
    }
  });

  it('names the removed last layer by weights against an ONNX base, and flags the ambiguity against a config', async () => {
    const pruned = write(removeLayer(base.model, 2));
    const byWeights = await checkPruning(pruned, { base: basePath });
    expect(byWeights.layerMapping).toBe('by-weights');
    expect(byWeights.removedLayers).toEqual([2]);
    expect(byWeights.verdict.status).toBe('pass');
    expect(byWeights.verdict.warnings).toEqual([]);
    const byName = await checkPruning(pruned, { base: configPath, forwardPass: false });
    expect(byName.layerMapping).toBe('renumbered-or-tail');
    expect(byName.removedLayers).toEqual([2]);
    expect(byName.verdict.status).toBe('pass');
    expect(byName.verdict.warnings[0]).toContain('unless the export renumbered them');
  });

  it('EXPECTED FAILURE – inconsistent pruning (heads cut from q/k/v but not from o) fails consistency and the forward pass', async () => {
    const report = await checkPruning(write(pruneHeads(base, base.model, 1, [0, 1], false)), { base: basePath });
    expect(report.verdict.status).toBe('fail');
    expect(report.consistencyIssues).toContain('layer 1: attention output projection reads 32 channels but attention produces 16');
    expect(report.forwardPass?.ok).toBe(false);
    expect(report.forwardPass?.error?.code).toBe('ORT_RUN');
  });
});

describe('check-pruning on fake-pruned variants (zeros kept)', () => {
  it.each([
    [
      'zeroed heads',
      zeroHeads(base, base.model, 1, [0, 3]),
      (r: Awaited<ReturnType<typeof checkPruning>>) => expect(r.layers[1]!.zeros?.zeroHeads).toBe(2),
      'attention heads zeroed but kept: layer 1: 2',
    ],
    [
      'zeroed FFN channels',
      zeroFfnChannels(base.model, 2, [4, 8, 15, 16, 23]),
      (r: Awaited<ReturnType<typeof checkPruning>>) => expect(r.layers[2]!.zeros?.zeroFfnChannels).toBe(5),
      'FFN channels zeroed but kept: layer 2: 5',
    ],
    [
      '50% unstructured sparsity',
      sparsifyWeights(base.model, 0.5),
      (r: Awaited<ReturnType<typeof checkPruning>>) => expect(r.fakePruning.sparsity).toBeGreaterThan(0.4),
      'unstructured sparsity',
    ],
  ] as const)('EXPECTED FAILURE – %s: no parameters removed and fake pruning detected', async (_, model, inspectRow, reason) => {
    const report = await checkPruning(write(model, true), { base: basePath, forwardPass: false });
    expect(report.verdict.status).toBe('fail');
    expect(report.fakePruning.detected).toBe(true);
    expect(report.verdict.reasons.join('\n')).toContain(reason);
    expect(report.verdict.reasons.join('\n')).toContain('no parameters were removed');
    expect(report.percentRemoved).toBe(0);
    inspectRow(report);
  });

  it('EXPECTED FAILURE – real pruning with some heads merely zeroed is still fake pruning', async () => {
    const report = await checkPruning(write(zeroHeads(base, pruneFfnChannels(base.model, 0, [0, 1, 2]), 2, [1])), { base: basePath, forwardPass: false });
    expect(report.percentRemoved).toBeGreaterThan(0);
    expect(report.verdict.status).toBe('fail');
    expect(report.verdict.reasons).toEqual(['fake pruning: attention heads zeroed but kept: layer 2: 1']);
  });

  it('EXPECTED FAILURE – a pruned model with a changed vocabulary', async () => {
    const report = await checkPruning(write(buildEdgeBase({ ...base.options, vocabSize: 48 }).model), { base: configPath, forwardPass: false });
    expect(report.consistencyIssues).toContain('vocabulary changed: 48 tokens where the base has 64');
  });

  it('BAD CALL – a missing base is a TypeError; an ONNX base without config.json reads its heads off the graph unless --num-heads says', async () => {
    await expect(checkPruning(basePath, {} as never)).rejects.toThrow(TypeError);
    const headless = writeEdgeModel(tempPath('headless'), base, base.model);
    rmSync(join(dirname(headless), 'config.json'));
    // The query is reshaped to [.., 4, 8]: head_dim 8, so 4 heads of the 32-wide query (the builder's sizes).
    const fromGraph = await checkPruning(basePath, { base: headless, forwardPass: false });
    expect(fromGraph.base.heads).toBe(4);
    expect(fromGraph.base.headDim).toBe(8);
    const report = await checkPruning(basePath, { base: headless, numHeads: 2, forwardPass: false });
    expect(report.base.headDim).toBe(16);
  });
});
