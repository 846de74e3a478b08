import { describe, expect, it } from 'vitest';
import { describeShape } from '../../../src/inspect/graph/architecture.js';
import { checkDramBudget, resolveBudget } from '../../../src/inspect/dram/dram-check.js';
import { estimateDram } from '../../../src/inspect/dram/estimate.js';
import { readHfArchitecture } from '../../../src/model/hf-config.js';
import { buildInspectReport } from '../../../src/inspect/report/inspect-report.js';
import { buildModelGraph } from '../../../src/inspect/graph/model-graph.js';
import { countParameters } from '../../../src/inspect/graph/parameters.js';
import { loadPruningBase } from '../../../src/inspect/pruning/base.js';
import { compareLayers } from '../../../src/inspect/pruning/layers.js';
import { PHI2, PHI2_PARAMETERS, phi2ConfigFile, phi2Info } from '../support/synthetic-phi2.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('phi2');
const configFile = phi2ConfigFile(tempPath('phi2'));

/** Phi-2's count by hand, per layer: q/k/v/dense (with biases), fc1/fc2 (with biases), one LayerNorm. */
function phi2Parameters(heads: readonly number[], ffn: readonly number[]): number {
  const { hidden: H, vocab: V, headDim } = PHI2;
  const layers = heads.reduce((sum, kept, index) => {
    const width = kept * headDim;
    const I = ffn[index]!;
    return sum + 3 * (H * width + width) + (width * H + H) + (H * I + I) + (I * H + H) + 2 * H;
  }, 0);
  return V * H + layers + 2 * H + (H * V + V);
}

describe.each(['hf-gemm', 'optimum-matmul'] as const)('Phi-2 metadata (%s export)', (style) => {
  const graph = buildModelGraph(phi2Info({ style }));
  const shape = describeShape(graph);

  it('counts 2,779,683,840 parameters, the embedding apart, untied LM head', () => {
    expect(phi2Parameters(Array(32).fill(32), Array(32).fill(PHI2.intermediate))).toBe(PHI2_PARAMETERS);
    const totals = countParameters(graph, shape);
    expect(totals).toMatchObject({
      total: PHI2_PARAMETERS,
      embedding: PHI2.vocab * PHI2.hidden,
      nonEmbedding: PHI2_PARAMETERS - PHI2.vocab * PHI2.hidden,
      tiedEmbeddings: 'untied',
    });
  });

  it("reads every layer's projection widths in the right orientation", () => {
    expect(shape.hidden).toBe(PHI2.hidden);
    expect(shape.vocab).toBe(PHI2.vocab);
    expect(shape.layers.map((layer) => layer.index)).toEqual(Array.from({ length: 32 }, (_, index) => index));
    const first = shape.layers[0]!.projections;
    expect([first.q?.inDim, first.q?.outDim, first.q?.biasLength]).toEqual([2560, 2560, 2560]);
    expect([first.up?.inDim, first.up?.outDim, first.down?.inDim, first.down?.outDim]).toEqual([2560, 10240, 10240, 2560]);
    expect(first.o?.tensor).toMatch(style === 'hf-gemm' ? /^model\.layers\.0\.self_attn\.dense\.weight$/ : /^onnx::MatMul_\d+$/);
    expect([first.o?.inDim, first.o?.outDim, first.o?.biasLength]).toEqual([2560, 2560, 2560]);
  });

  it('is compared with its config.json: heads, FFN channels and removed layers per layer, % removed', async () => {
    const heads = (layer: number): number => (layer === 0 ? 24 : 32);
    const ffn = (layer: number): number => (layer === 1 ? 8192 : PHI2.intermediate);
    const pruned = buildModelGraph(phi2Info({ style, heads, ffn, removed: [5, 31] }));
    const prunedShape = describeShape(pruned);
    const base = await loadPruningBase(configFile);
    expect(base.totalParams).toBe(PHI2_PARAMETERS);
    expect([base.heads, base.headDim, base.intermediate, base.layerCount]).toEqual([32, 80, 10240, 32]);
    const comparison = compareLayers(base, prunedShape, []);
    expect(comparison.issues).toEqual([]);
    expect(comparison.removedLayers).toEqual([5, 31]);
    expect(comparison.mapping).toBe('by-name');
    expect(comparison.layers[0]!.heads).toEqual({ base: 32, kept: 24 });
    expect(comparison.layers[1]!.ffnChannels).toEqual({ base: 10240, kept: 8192 });
    const kept = Array.from({ length: 32 }, (_, index) => index).filter((index) => index !== 5 && index !== 31);
    const expected = phi2Parameters(kept.map(heads), kept.map(ffn));
    expect(countParameters(pruned, prunedShape).total).toBe(expected);
  });
});

describe('Phi-2 DRAM estimate against the compression track', () => {
  const config = readHfArchitecture(configFile);

  it("fp16 Phi-2 fits 12 GB by the estimate, with the formula's numbers", () => {
    const report = buildInspectReport(buildModelGraph(phi2Info({ dataType: 10 })), config);
    const estimate = estimateDram(report);
    expect(estimate.contextTokens).toBe(2000);
    expect(estimate.weightBytes).toBe(2 * PHI2_PARAMETERS);
    // The plain forward of the kit: the graph returns no KV cache, its attention is one fused op per layer
    // (one [32, C, C] fp16 buffer), and its full fp16 logits (plus their float32 copy) exceed that buffer,
    // so they count on top.
    expect(estimate.kvCacheBytes).toBe(0);
    const attention = 32 * 2000 ** 2 * 2;
    const hidden = 2 * (4 * 2000 * 2560 + 2 * 2000 * 10240);
    const logits = 2000 * 51200 * (2 + 4);
    expect(estimate.logitsBytes).toBe(logits);
    expect(estimate.activationBytes).toBe(attention + hidden + logits);
    expect(estimate.totalBytes).toBe(1.5 * 2 * PHI2_PARAMETERS + 15e6 + attention + hidden + logits);
    const check = checkDramBudget(estimate, null, resolveBudget('edge-compression', undefined));
    expect(check.verdict.status).toBe('pass');
    expect(check.basis).toBe('estimate');
  });

  it('fp32 Phi-2 does not', () => {
    const report = buildInspectReport(buildModelGraph(phi2Info({ dataType: 1 })), config);
    const estimate = estimateDram(report);
    expect(estimate.weightBytes).toBe(4 * PHI2_PARAMETERS);
    const check = checkDramBudget(estimate, null, resolveBudget('edge-compression', undefined));
    expect(check.verdict.status).toBe('fail');
    expect(check.verdict.reasons[0]).toContain('exceeds the edge-compression budget of 12.00 GB');
  });
});
