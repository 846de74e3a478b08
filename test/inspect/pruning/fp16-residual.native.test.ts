/**
 * An fp16 Phi exported by TorchScript at opset 14 with the attention mask as an input: the exporter casts the
 * residual stream before each residual Add, and the first block's nodes come before that Cast in the graph.
 * Every layer must still be found, and the figures must be transformers' (scripts/edge/phi2_width_model.py
 * --tiny wrote the fixture and its facts) for the base, and the stored elements (scripts/edge/stored_elements.py:
 * transformers' count plus the export's constants) for the model.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PHI2_CONFIG_PATH } from '../../../src/inspect/config/phi2-config.js';
import { checkPruning } from '../../../src/inspect/pruning/pruning-check.js';

const folder = path.resolve(import.meta.dirname, '../../fixtures/edge/phi-fp16-mask');
const facts = JSON.parse(readFileSync(path.join(folder, 'facts.json'), 'utf8')) as {
  layers: number;
  heads: number;
  ffn: number;
  parameters: number;
  stored_elements: number;
  phi2_parameters: number;
};

describe('check-pruning on an fp16 TorchScript export whose residual stream is cast', () => {
  it('finds every layer and counts what transformers counts, against Phi-2', async () => {
    const report = await checkPruning(path.join(folder, 'model.onnx'), { base: PHI2_CONFIG_PATH });
    expect(report.base.totalParams).toBe(facts.phi2_parameters);
    expect(report.pruned.layerCount).toBe(facts.layers);
    expect(report.pruned.params).toBe(facts.stored_elements);
    expect(report.percentRemoved).toBeCloseTo((100 * (facts.phi2_parameters - facts.stored_elements)) / facts.phi2_parameters, 9);
    const kept = report.layers.filter((layer) => layer.status === 'kept');
    expect(kept.map((layer) => layer.ffnChannels.kept)).toEqual(Array.from({ length: facts.layers }, () => facts.ffn));
    expect(report.forwardPass?.ok).toBe(true);
  });
});
