import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEdgeBase, initializerBytes, writeEdgeModel } from '../support/model-builders/edge-fixtures.js';
import { writeModelFiles, type ModelProto } from '../support/model-builders/onnx-builder.js';
import { inspectModel } from '../../src/inspect/inspect-report.js';
import { useTempDirectory } from './support/tmp-dir.js';

const tempPath = useTempDirectory('inspect');
const base = buildEdgeBase();

/** Parameters straight from the builder's own tensor list: float tensors of rank >= 1. */
function builderParameters(model: ModelProto): { total: number; embedding: number } {
  let total = 0;
  let embedding = 0;
  for (const tensor of model.graph.initializers) {
    if (tensor.elementType !== 'float32' || tensor.dims.length === 0) continue;
    const count = tensor.dims.reduce((product, dim) => product * dim, 1);
    total += count;
    if (tensor.name === 'token_embedding' || tensor.name === 'position_embedding') embedding += count;
  }
  return { total, embedding };
}

/** The tiny LM's parameter count from its dimensions alone. */
function formulaParameters(o: typeof base.options): number {
  const { vocabSize: V, hiddenSize: H, mlpSize: I, numLayers: L, maxPositions: P } = o;
  const layer = 4 * (H * H + H) + (H * I + I) + (I * H + H) + 4 * H;
  return V * H + P * H + L * layer + 2 * H + H * V;
}

describe('inspectModel', () => {
  it.each([false, true])('counts parameters as the builder and the formula do (external data: %s)', async (externalData) => {
    const report = await inspectModel(writeEdgeModel(tempPath(`base-${externalData}`), base, base.model, { externalData }));
    const expected = builderParameters(base.model);
    expect(expected.total).toBe(formulaParameters(base.options));
    expect(report.parameters).toEqual({ total: expected.total, embedding: expected.embedding, nonEmbedding: expected.total - expected.embedding, tiedEmbeddings: 'untied' });
    expect(report.tensorBytes).toBe(initializerBytes(base.model));
    expect(report.bytesByDtype.float32?.bytes).toBe(4 * base.model.graph.initializers.filter((t) => t.elementType === 'float32').reduce((s, t) => s + t.dims.reduce((p, d) => p * d, 1), 0));
    expect(report.bytesByDtype.int64?.tensors).toBe(base.model.graph.initializers.filter((t) => t.elementType === 'int64').length);
    expect(report.externalFiles.length).toBe(externalData ? 1 : 0);
  });

  it('reports the op census, opsets, inputs, outputs and architecture', async () => {
    const report = await inspectModel(writeEdgeModel(tempPath('census'), base, base.model));
    const counts = new Map<string, number>();
    for (const node of base.model.graph.nodes) counts.set(node.opType, (counts.get(node.opType) ?? 0) + 1);
    expect(Object.fromEntries(report.ops.map((op) => [op.opType, op.count]))).toEqual(Object.fromEntries(counts));
    expect(report.nodeCount).toBe(base.model.graph.nodes.length);
    expect(report.opsets).toEqual([{ domain: '', version: 17 }]);
    expect(report.inputs.map((input) => `${input.name}:${input.dtype}`)).toEqual(['input_ids:int64', 'attention_mask:int64']);
    expect(report.outputs[0]?.shape).toEqual(['batch_size', 'sequence_length', 64]);
    expect(report.architecture).toMatchObject({ hidden: 32, layers: 3, heads: 4, kvHeads: 4, headDim: 8, intermediate: 64, vocab: 64, maxLength: 64 });
    expect(report.tensors.find((tensor) => tensor.name === 'layers.2.mlp_down.weight')).toMatchObject({ layer: 2, role: 'down', shape: [64, 32], dtype: 'float32' });
  });

  it('counts tied embeddings once: one tensor read by Gather and (through Transpose) by the LM head', async () => {
    const nodes = base.model.graph.nodes.map((node) => (node.inputs[1] === 'lm_head.weight' ? { ...node, inputs: [node.inputs[0]!, 'tied_head'] } : node));
    nodes.unshift({ opType: 'Transpose', inputs: ['token_embedding'], outputs: ['tied_head'], attributes: [{ name: 'perm', type: 'ints', value: [1, 0] }] });
    const tied: ModelProto = { ...base.model, graph: { ...base.model.graph, nodes, initializers: base.model.graph.initializers.filter((t) => t.name !== 'lm_head.weight') } };
    const report = await inspectModel(writeModelFiles(tempPath('tied'), tied));
    expect(report.parameters.tiedEmbeddings).toBe('shared');
    expect(report.parameters.total).toBe(formulaParameters(base.options) - 32 * 64);
  });

  it('counts a duplicated LM head once when config.json says the embeddings are tied', async () => {
    const directory = tempPath('duplicate');
    const modelPath = writeEdgeModel(directory, base, base.model);
    const untied = await inspectModel(modelPath);
    writeFileSync(join(directory, 'config.json'), JSON.stringify({ hidden_size: 32, num_hidden_layers: 3, num_attention_heads: 4, vocab_size: 64, tie_word_embeddings: true }));
    const tied = await inspectModel(modelPath);
    expect(tied.parameters.tiedEmbeddings).toBe('duplicate');
    expect(untied.parameters.total - tied.parameters.total).toBe(64 * 32);
    expect(tied.tensorBytes).toBe(untied.tensorBytes); // the copy still costs its bytes
  });

  it('notes an unusable config.json instead of failing', async () => {
    const directory = tempPath('bad-config');
    const modelPath = writeEdgeModel(directory, base, base.model);
    writeFileSync(join(directory, 'config.json'), '{ not json');
    const report = await inspectModel(modelPath);
    expect(report.architecture.assumptions.join(' ')).toContain('config.json beside the model ignored');
    expect(report.architecture.headDim).toBe(64);
  });
});
