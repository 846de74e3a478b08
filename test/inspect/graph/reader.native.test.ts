import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MlrbError } from '../../../src/errors.js';
import { buildEdgeBase, writeEdgeModel, writeLyingDims, writeMissingExternalData, writeTruncatedModel } from '../../support/model-builders/edge-fixtures.js';
import { makeTensor, writeModelFiles, type ModelProto } from '../../support/model-builders/onnx-builder.js';
import { writeTinyCausalLm } from '../../support/model-builders/tiny-causal-lm.js';
import { readModelGraph } from '../../../src/inspect/graph/model-graph.js';
import { bytesAt } from '../support/file-bytes.js';
import { encodeRawModel } from '../support/raw-model.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('reader');

async function expectBadModel(promise: Promise<unknown>, ...fragments: string[]): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MlrbError);
  expect((error as MlrbError).code).toBe('BAD_MODEL');
  for (const fragment of fragments) expect((error as MlrbError).message).toContain(fragment);
}

describe('streaming ONNX reader', () => {
  it.each([false, true])('finds every initializer of the tiny LM with its dtype, dims and payload bytes (external data: %s)', async (externalData) => {
    const lm = writeTinyCausalLm(tempPath(`tiny-${externalData}`), { externalData, withTokenizer: false });
    const graph = await readModelGraph(lm.modelPath);
    const built = lm.model.graph.initializers;
    expect(graph.tensors.map((tensor) => tensor.name)).toEqual(built.map((tensor) => tensor.name));
    for (const tensor of built) {
      const read = graph.tensorByName.get(tensor.name)!;
      expect(read.dims).toEqual(tensor.dims);
      expect(read.dtype).toBe(tensor.elementType);
      expect(read.length).toBe(tensor.rawData!.length);
      // The recorded offset really is where the payload lives, inline or in the external file.
      expect(bytesAt(read.file, read.offset, read.length)).toEqual(tensor.rawData);
      const big = tensor.rawData!.length >= 128;
      expect(read.location).toBe(externalData && big ? 'external' : 'raw');
    }
    expect(graph.info.externalFiles.length).toBe(externalData ? 1 : 0);
  });

  it('reads nodes, op types, opsets, inputs and outputs as the builder wrote them', async () => {
    const lm = writeTinyCausalLm(tempPath('tiny-nodes'), { withTokenizer: false });
    const graph = await readModelGraph(lm.modelPath);
    expect(graph.info.nodes.map((node) => [node.opType, node.inputs, node.outputs])).toEqual(
      lm.model.graph.nodes.map((node) => [node.opType, node.inputs, node.outputs]),
    );
    expect(graph.info.opsets).toEqual([{ domain: '', version: 17 }]);
    expect(graph.info.inputs.map((input) => input.name)).toEqual(['input_ids', 'attention_mask']);
    expect(graph.info.outputs[0]).toEqual({ name: 'logits', elemType: 1, shape: ['batch_size', 'sequence_length', 64] });
    expect(graph.info.nodes.find((node) => node.opType === 'Softmax')?.intAttributes).toEqual({ axis: -1 });
  });

  it('finds tensors in Constant nodes, nodes in subgraphs and in model-local functions', async () => {
    const directory = tempPath('nested');
    mkdirSync(directory, { recursive: true });
    const weight = { name: 'inner_weight', dataType: 1, dims: [2, 2], raw: new Uint8Array(16) };
    const bytes = encodeRawModel({
      tensors: [],
      nodes: [
        {
          opType: 'If',
          name: 'branch',
          inputs: ['flag'],
          outputs: ['y'],
          subgraph: {
            attribute: 'then_branch',
            initializers: [weight],
            nodes: [{ opType: 'MatMulNBits', domain: 'com.microsoft', inputs: ['x', 'inner_weight'], outputs: ['y'] }],
          },
        },
      ],
      functions: [{ name: 'helper', domain: 'custom', nodes: [{ opType: 'QuantizeLinear', inputs: ['a'], outputs: ['b'] }] }],
    });
    writeFileSync(join(directory, 'model.onnx'), bytes);
    const graph = await readModelGraph(join(directory, 'model.onnx'));
    expect(graph.tensorByName.get('inner_weight')?.graph).toBe('branch.then_branch');
    expect(graph.info.nodes.map((node) => [node.opType, node.domain, node.graph])).toEqual([
      ['MatMulNBits', 'com.microsoft', 'branch.then_branch'],
      ['If', '', ''],
      ['QuantizeLinear', '', 'function:custom.helper'],
    ]);

    const withConstant: ModelProto = {
      irVersion: 8,
      opsetImports: [{ domain: '', version: 17 }],
      graph: {
        name: 'constant',
        initializers: [],
        inputs: [],
        outputs: [],
        nodes: [
          {
            opType: 'Constant',
            inputs: [],
            outputs: ['folded_weight'],
            attributes: [{ name: 'value', type: 'tensor', value: makeTensor('', 'float32', [3, 2], [1, 2, 3, 4, 5, 6]) }],
          },
        ],
      },
    };
    const constantGraph = await readModelGraph(writeModelFiles(tempPath('constant'), withConstant));
    expect(constantGraph.tensorByName.get('folded_weight')).toMatchObject({ source: 'constant_node', dims: [3, 2], dtype: 'float32', length: 24 });
  });

  it('reads 4-bit tensors in int32_data, two elements packed to an entry as onnx.proto says, and refuses one value per entry', async () => {
    const directory = tempPath('int4-typed');
    mkdirSync(directory, { recursive: true });
    const INT4 = 22;
    const UINT4 = 21;
    writeFileSync(
      join(directory, 'model.onnx'),
      encodeRawModel({
        tensors: [
          { name: 'packed', dataType: INT4, dims: [3, 3], int32s: [0x21, 0x43, 0x65, 0x87, 0x09] }, // 9 elements: 5 bytes
          { name: 'packed_unsigned', dataType: UINT4, dims: [4], int32s: [0xf0, 0x1e] },
        ],
        nodes: [],
      }),
    );
    const graph = await readModelGraph(join(directory, 'model.onnx'));
    expect(graph.tensors.map((tensor) => [tensor.name, tensor.dtype, tensor.elementCount, tensor.length, tensor.location])).toEqual([
      ['packed', 'int4', 9, 5, 'typed'],
      ['packed_unsigned', 'uint4', 4, 2, 'typed'],
    ]);
    writeFileSync(
      join(directory, 'unpacked.onnx'),
      encodeRawModel({ tensors: [{ name: 'one_per_entry', dataType: INT4, dims: [4], int32s: [1, 2, 3, 4] }], nodes: [] }),
    );
    await expectBadModel(readModelGraph(join(directory, 'unpacked.onnx')), "tensor 'one_per_entry'", '4 elements (2 typed entries) but its typed data holds 4');
  });

  it('handles external data beyond 2 GB without reading it (sparse 3 GB weights file)', async () => {
    const directory = tempPath('huge');
    mkdirSync(directory, { recursive: true });
    const dataPath = join(directory, 'weights.bin');
    writeFileSync(dataPath, '');
    truncateSync(dataPath, 3 * 2 ** 30); // a hole: no disk blocks, reads as zeros
    const rows = 2 ** 14;
    const tensors = [0, 1, 2].map((index) => ({
      name: `w${index}`,
      dataType: 10,
      dims: [rows, 2 ** 14],
      external: { location: 'weights.bin', offset: index * 2 ** 29 * 2, length: 2 ** 29 },
    }));
    writeFileSync(join(directory, 'model.onnx'), encodeRawModel({ tensors, nodes: [] }));
    const started = performance.now();
    const graph = await readModelGraph(join(directory, 'model.onnx'));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(graph.tensors.map((tensor) => [tensor.offset, tensor.length, tensor.elementCount])).toEqual(
      [0, 1, 2].map((index) => [index * 2 ** 30, 2 ** 29, 2 ** 28]),
    );
    expect(graph.info.externalFiles).toEqual([{ path: dataPath, size: 3 * 2 ** 30 }]);
  });

  describe('bad inputs give BAD_MODEL errors naming the file and tensor', () => {
    const base = buildEdgeBase();

    it('EXPECTED FAILURE – a truncated protobuf', async () => {
      const modelPath = writeTruncatedModel(tempPath('truncated'), base, 0.6);
      await expectBadModel(readModelGraph(modelPath), modelPath, 'truncated');
    });

    it('EXPECTED FAILURE – a missing external-data file', async () => {
      const modelPath = writeMissingExternalData(tempPath('missing'), base);
      await expectBadModel(readModelGraph(modelPath), 'model.onnx_data', 'does not exist', "tensor '");
    });

    it('EXPECTED FAILURE – dims that lie about the byte count', async () => {
      const modelPath = writeLyingDims(tempPath('lying'), base, 'layers.1.mlp_up.weight');
      await expectBadModel(readModelGraph(modelPath), "tensor 'layers.1.mlp_up.weight'", modelPath, 'dims [33, 64]', '8448 bytes', 'raw_data holds 8192');
    });

    it('EXPECTED FAILURE – external data shorter than its tensors', async () => {
      const directory = tempPath('short-external');
      const modelPath = writeEdgeModel(directory, base, base.model, { externalData: true });
      truncateSync(join(directory, 'model.onnx_data'), 1000);
      await expectBadModel(readModelGraph(modelPath), join(directory, 'model.onnx_data'), 'which has only 1000 bytes');
    });

    it('EXPECTED FAILURE – not an ONNX file at all', async () => {
      const directory = tempPath('garbage');
      mkdirSync(directory, { recursive: true });
      writeFileSync(join(directory, 'empty.onnx'), '');
      writeFileSync(join(directory, 'text.onnx'), 'this is not a protobuf\n'.repeat(20));
      await expectBadModel(readModelGraph(join(directory, 'empty.onnx')), 'empty');
      await expectBadModel(readModelGraph(join(directory, 'text.onnx')), join(directory, 'text.onnx'));
      await expectBadModel(readModelGraph(join(directory, 'nothing-here.onnx')), 'does not exist');
    });

    it('BAD CALL – a non-string path is a TypeError', async () => {
      await expect(readModelGraph(42 as unknown as string)).rejects.toThrow(TypeError);
    });
  });
});
