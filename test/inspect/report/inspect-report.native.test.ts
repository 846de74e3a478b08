import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEdgeBase, floatParameters, initializerBytes, storedElements, writeEdgeModel } from '../../support/model-builders/edge-fixtures.js';
import { writeModelFiles, type ModelProto } from '../../support/model-builders/onnx-builder.js';
import { inspectModel } from '../../../src/inspect/report/inspect-report.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('inspect');
const base = buildEdgeBase();

/** Embedding parameters straight from the builder's own tensor list: the token and position tables. */
function builderEmbedding(model: ModelProto): number {
  return model.graph.initializers
    .filter((tensor) => tensor.name === 'token_embedding' || tensor.name === 'position_embedding')
    .reduce((sum, tensor) => sum + tensor.dims.reduce((product, dim) => product * dim, 1), 0);
}

/** The model with its LM head holding the token embedding's values, transposed (as exporters fold a tied head). */
function withTransposedTiedHead(model: ModelProto): ModelProto {
  const embedding = model.graph.initializers.find((tensor) => tensor.name === 'token_embedding')!;
  const [rows, cols] = embedding.dims as [number, number];
  const source = new Float32Array(embedding.rawData!.slice().buffer);
  const transposed = new Float32Array(rows * cols);
  for (let row = 0; row < rows; row++) for (let col = 0; col < cols; col++) transposed[col * rows + row] = source[row * cols + col]!;
  const initializers = model.graph.initializers.map((tensor) =>
    tensor.name === 'lm_head.weight' ? { ...tensor, rawData: new Uint8Array(transposed.buffer) } : tensor,
  );
  return { ...model, graph: { ...model.graph, initializers } };
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
    // Counted from storage: every element the builder wrote (shape constants too); its float weights are the formula's.
    const total = storedElements(base.model);
    const embedding = builderEmbedding(base.model);
    expect(floatParameters(base.model)).toBe(formulaParameters(base.options));
    expect(report.parameters).toMatchObject({ total, embedding, nonEmbedding: total - embedding, tiedEmbeddings: 'untied', copies: [] });
    expect(Object.values(report.parameters.byDtype).reduce((sum, entry) => sum + entry.elements, 0)).toBe(total);
    expect(report.tensorBytes).toBe(initializerBytes(base.model));
    expect(report.bytesByDtype.float32?.bytes).toBe(
      4 * base.model.graph.initializers.filter((t) => t.elementType === 'float32').reduce((s, t) => s + t.dims.reduce((p, d) => p * d, 1), 0),
    );
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
    expect(report.tensors.find((tensor) => tensor.name === 'layers.2.mlp_down.weight')).toMatchObject({
      layer: 2,
      role: 'down',
      shape: [64, 32],
      dtype: 'float32',
    });
  });

  it('counts tied embeddings once: one tensor read by Gather and (through Transpose) by the LM head', async () => {
    const nodes = base.model.graph.nodes.map((node) => (node.inputs[1] === 'lm_head.weight' ? { ...node, inputs: [node.inputs[0]!, 'tied_head'] } : node));
    nodes.unshift({ opType: 'Transpose', inputs: ['token_embedding'], outputs: ['tied_head'], attributes: [{ name: 'perm', type: 'ints', value: [1, 0] }] });
    const tied: ModelProto = {
      ...base.model,
      graph: { ...base.model.graph, nodes, initializers: base.model.graph.initializers.filter((t) => t.name !== 'lm_head.weight') },
    };
    const report = await inspectModel(writeModelFiles(tempPath('tied'), tied));
    expect(report.parameters.tiedEmbeddings).toBe('shared');
    expect(report.parameters.total).toBe(storedElements(tied));
  });

  it('counts an LM head stored as the transposed token embedding once, and keeps its bytes', async () => {
    const tied = withTransposedTiedHead(base.model);
    const report = await inspectModel(writeEdgeModel(tempPath('duplicate'), base, tied));
    expect(report.parameters.tiedEmbeddings).toBe('duplicate');
    expect(report.parameters.total).toBe(storedElements(tied) - 32 * 64);
    expect(report.parameters.copies).toEqual([{ tensor: 'lm_head.weight', copies: 'token_embedding', elements: 32 * 64 }]);
    expect(report.tensorBytes).toBe(initializerBytes(tied)); // the copy still costs its bytes
  });

  it('EXPECTED FAILURE – config.json calling an LM head of other values tied does not take it out of the count', async () => {
    const directory = tempPath('claimed-tied');
    const modelPath = writeEdgeModel(directory, base, base.model);
    writeFileSync(
      join(directory, 'config.json'),
      JSON.stringify({ hidden_size: 32, num_hidden_layers: 3, num_attention_heads: 4, vocab_size: 64, tie_word_embeddings: true }),
    );
    const report = await inspectModel(modelPath);
    expect(report.parameters.tiedEmbeddings).toBe('untied');
    expect(report.parameters.total).toBe(storedElements(base.model));
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
