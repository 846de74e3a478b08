import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEdgeBase, quantizeWeightsInt8, writeEdgeModel } from '../../support/model-builders/edge-fixtures.js';
import { intAttribute, makeTensor, writeModelFiles, type NodeProto, type TensorProto } from '../../support/model-builders/onnx-builder.js';
import { readModelGraph } from '../../../src/inspect/graph/model-graph.js';
import { checkQuantization, checkWeights, isQuantizationOp } from '../../../src/inspect/quantization/quantization-check.js';
import { encodeRawModel, type RawModel, type RawNode } from '../support/raw-model.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('quantization');
const base = buildEdgeBase();

async function checkRawWeights(name: string, model: RawModel, bf16: 'warn' | 'fail' = 'warn') {
  const directory = tempPath(name);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'model.onnx'), encodeRawModel(model));
  return checkWeights(await readModelGraph(join(directory, 'model.onnx')), { bf16 });
}
const checkRaw = async (name: string, model: RawModel) => (await checkRawWeights(name, model)).quantization;

const tensor = (name: string, dataType: number, dims: number[], bytesPerElement = 1) => ({
  name,
  dataType,
  dims,
  raw: new Uint8Array(Math.ceil(dims.reduce((p, d) => p * d, 1) * bytesPerElement)),
});

describe('no-quantization check', () => {
  it('passes the fp32 tiny LM', async () => {
    const check = checkQuantization(await readModelGraph(writeEdgeModel(tempPath('fp32'), base, base.model)));
    expect(check.verdict).toEqual({ status: 'pass', reasons: [], warnings: [] });
  });

  it('warns, never fails, on fake quantization: a float matrix on a grid of at most 256 values, with the count', async () => {
    // Values snapped to a grid of `levels` steps: the distinct count is the test's own, from the values it wrote.
    const onGrid = (tensor: TensorProto, levels: number): TensorProto => {
      const values = Array.from({ length: tensor.dims.reduce((p, d) => p * d, 1) }, (_, index) => ((index * 7919) % levels) / levels - 0.5);
      expect(new Set(values).size).toBe(levels);
      return makeTensor(tensor.name, 'float32', tensor.dims, values);
    };
    const gridded = {
      ...base.model,
      graph: {
        ...base.model.graph,
        initializers: base.model.graph.initializers.map((tensor) =>
          tensor.name === 'layers.0.query.weight'
            ? onGrid(tensor, 16)
            : tensor.name === 'layers.0.mlp_up.weight'
              ? onGrid(tensor, 257)
              : tensor.name === 'layers.1.query.weight'
                ? onGrid(tensor, 256)
                : tensor,
        ),
      },
    };
    const check = checkQuantization(await readModelGraph(writeEdgeModel(tempPath('fake-quantized'), base, gridded)));
    expect(check.verdict.status).toBe('pass');
    expect(check.verdict.reasons).toEqual([]);
    expect(check.lowCardinalityWeights).toEqual([
      { tensor: 'layers.0.query.weight', dtype: 'float32', shape: [32, 32], distinctValues: 16 },
      { tensor: 'layers.1.query.weight', dtype: 'float32', shape: [32, 32], distinctValues: 256 },
    ]);
    expect(check.verdict.warnings).toEqual([
      expect.stringContaining(
        '2 float weight matrix(es) hold at most 256 distinct values (fake quantization: stored at full width, it saves no memory): layers.0.query.weight (16 values), layers.1.query.weight (256 values)',
      ),
    ]);
  });

  it('fails its int8 + DequantizeLinear variant, listing the tensors and the nodes', async () => {
    const check = checkQuantization(await readModelGraph(writeEdgeModel(tempPath('int8'), base, quantizeWeightsInt8(base.model))));
    expect(check.verdict.status).toBe('fail');
    expect(check.quantizedTensors.length).toBe(18); // 6 matrices x 3 layers; scalar zero points are not weights
    expect(check.quantizedTensors[0]).toEqual({
      name: 'layers.0.query.weight_quantized',
      dtype: 'int8',
      shape: [32, 32],
      usedBy: ['DequantizeLinear layers.0.query.weight_dequantize'],
    });
    expect(check.quantizationNodes.length).toBe(18);
    expect(check.quantizationNodes.every((node) => node.opType === 'DequantizeLinear')).toBe(true);
    expect(check.verdict.reasons.join('\n')).toMatch(/18 quantized weight tensor\(s\).*\n18 quantization node\(s\): DequantizeLinear/);
  });

  it('finds contrib-domain ops, 4-bit and fp8 tensors, also inside subgraphs', async () => {
    const check = await checkRaw('contrib', {
      tensors: [tensor('packed_b', 21, [64, 2, 16], 0.5), tensor('fp8_weight', 17, [8, 8]), tensor('scales', 1, [64, 2], 4)],
      nodes: [
        { opType: 'MatMulNBits', domain: 'com.microsoft', name: 'mm', inputs: ['x', 'packed_b', 'scales'], outputs: ['y'] },
        {
          opType: 'If',
          name: 'branch',
          inputs: ['c'],
          outputs: ['z'],
          subgraph: { attribute: 'then_branch', nodes: [{ opType: 'QLinearMatMul', name: 'inner', inputs: ['y'], outputs: ['z'] }] },
        },
      ],
    });
    expect(check.quantizedTensors.map((t) => `${t.name}:${t.dtype}`)).toEqual(['packed_b:uint4', 'fp8_weight:float8e4m3fn']);
    expect(check.quantizationNodes).toEqual([
      { name: 'mm', opType: 'MatMulNBits', domain: 'com.microsoft', graph: '' },
      { name: 'inner', opType: 'QLinearMatMul', domain: '', graph: 'branch.then_branch' },
    ]);
  });

  it('tables read by position: a causal triangle, a position buffer and an id map gathered by input_ids pass; bit-planes and computed ids fail', async () => {
    const bytes = (values: number[], width: 1 | 8): Uint8Array => {
      if (width === 1) return Uint8Array.from(values);
      const raw = new Uint8Array(values.length * 8);
      values.forEach((value, index) => new DataView(raw.buffer).setBigInt64(index * 8, BigInt(value), true));
      return raw;
    };
    const n = 32;
    const cells = Array.from({ length: n * n }, (_, index) => [Math.floor(index / n), index % n] as const);
    const ids = Array.from({ length: 128 }, (_, index) => (index * 37) % 128);
    // A float matrix as large as a small layer, so the tables are the small share of storage they are in a real model.
    const weight = { name: 'w', dataType: 1, dims: [256, 256], raw: Uint8Array.from({ length: 256 * 256 * 4 }, (_, index) => (index * 131) % 251) };
    const model = (table: { dataType: number; dims: number[]; raw: Uint8Array }, read: 'slice' | 'gather-ids' | 'gather-computed'): RawModel => ({
      tensors: [
        weight,
        { name: 'table', ...table },
        { name: 'zero', dataType: 7, dims: [1], raw: bytes([0], 8) },
        { name: 'one', dataType: 7, dims: [1], raw: bytes([1], 8) },
        { name: 'two', dataType: 7, dims: [1], raw: bytes([2], 8) },
      ],
      inputs: ['input_ids', 'x'],
      nodes: [
        { opType: 'MatMul', inputs: ['x', 'w'], outputs: ['y'] },
        ...(read === 'slice'
          ? [
              { opType: 'Shape', inputs: ['input_ids'], outputs: ['shape'] },
              { opType: 'Slice', inputs: ['shape', 'one', 'two'], outputs: ['length'] },
              { opType: 'Slice', name: 'select', inputs: ['table', 'zero', 'length', 'zero'], outputs: ['rows'] },
              { opType: 'Cast', inputs: ['rows'], outputs: ['rows_float'], ints: { to: 1 } },
            ]
          : [
              ...(read === 'gather-computed' ? [{ opType: 'Add', inputs: ['input_ids', 'one'], outputs: ['indices'] }] : []),
              { opType: 'Gather', name: 'select', inputs: ['table', read === 'gather-ids' ? 'input_ids' : 'indices'], outputs: ['rows'] },
            ]),
      ],
    });
    const BOOL = 9;
    const INT64 = 7;
    const causal = {
      dataType: BOOL,
      dims: [1, 1, n, n],
      raw: bytes(
        cells.map(([row, column]) => Number(column <= row)),
        1,
      ),
    };
    const window = {
      dataType: BOOL,
      dims: [n, n],
      raw: bytes(
        cells.map(([row, column]) => Number(column <= row && row - column < 4)),
        1,
      ),
    };
    const positions = {
      dataType: INT64,
      dims: [1, 256],
      raw: bytes(
        Array.from({ length: 256 }, (_, index) => index + 2),
        8,
      ),
    };
    const planes = {
      dataType: BOOL,
      dims: [n, n],
      raw: bytes(
        cells.map(([row, column]) => ((row * 7 + column * 13) >> 2) & 1),
        1,
      ),
    };
    const idMap = { dataType: INT64, dims: [128], raw: bytes(ids, 8) };
    for (const [name, table, read] of [
      ['causal', causal, 'slice'],
      ['window', window, 'slice'],
      ['positions', positions, 'slice'],
      ['id-map', idMap, 'gather-ids'],
    ] as const) {
      expect((await checkRaw(`table-${name}`, model(table, read))).verdict.reasons, name).toEqual([]);
    }
    const bitPlanes = await checkRaw('table-planes', model(planes, 'slice'));
    expect(bitPlanes.disallowedWeights.map((weight) => [weight.tensor, weight.reader.node, weight.violation])).toEqual([['table', 'select', 'bool-data']]);
    const computed = await checkRaw('table-computed-ids', model(idMap, 'gather-computed'));
    expect(computed.disallowedWeights.map((weight) => [weight.tensor, weight.reader.node, weight.violation])).toEqual([['table', 'select', 'integer-codes']]);
  });

  it('does not take a uint8 mask read only by mask logic for a weight', async () => {
    const check = await checkRaw('mask', {
      tensors: [tensor('causal_mask', 2, [16, 16]), tensor('w', 1, [4, 4], 4)],
      nodes: [
        { opType: 'Where', inputs: ['causal_mask', 'a', 'b'], outputs: ['c'] },
        { opType: 'MatMul', inputs: ['c', 'w'], outputs: ['d'] },
      ],
    });
    expect(check.verdict.status).toBe('pass');
  });

  it('reports bfloat16 weights by the dtype rule, as a warning or a failure when configured, never as quantization', async () => {
    const model: RawModel = {
      tensors: [tensor('w_bf16', 16, [4, 4], 2)],
      inputs: ['x'],
      nodes: [{ opType: 'MatMul', inputs: ['x', 'w_bf16'], outputs: ['y'] }],
    };
    const warned = await checkRawWeights('bf16-warn', model, 'warn');
    expect(warned.weightDtypes.verdict).toMatchObject({ status: 'pass', warnings: [expect.stringContaining('1 weight tensor(s) are not FP16/FP32')] });
    const failed = await checkRawWeights('bf16-fail', model, 'fail');
    expect(failed.weightDtypes.verdict.status).toBe('fail');
    expect(failed.weightDtypes.offType).toEqual([{ tensor: 'w_bf16', dtype: 'bfloat16', storedDtype: 'bfloat16' }]);
    for (const checked of [warned, failed]) {
      // bfloat16 is no quantization: listed, and left to the dtype rule.
      expect(checked.quantization.verdict).toEqual({ status: 'pass', reasons: [], warnings: [] });
      expect(checked.quantization.bf16Tensors).toEqual(['w_bf16']);
    }
  });

  it('EXPECTED FAILURE – a weight stored as bfloat16 and cast to float32 before its MatMul is not FP16/FP32: the stored type counts', async () => {
    const model: RawModel = {
      tensors: [tensor('w_bf16', 16, [4, 4], 2), tensor('v_fp16', 10, [4, 4], 2)],
      inputs: ['x'],
      nodes: [
        { opType: 'Cast', inputs: ['w_bf16'], outputs: ['w_fp32'], ints: { to: 1 } },
        { opType: 'MatMul', inputs: ['x', 'w_fp32'], outputs: ['y'] },
        { opType: 'Cast', inputs: ['v_fp16'], outputs: ['v_fp32'], ints: { to: 1 } }, // fp16 stored, fp32 read: both allowed
        { opType: 'MatMul', inputs: ['y', 'v_fp32'], outputs: ['z'] },
      ],
    };
    const checked = await checkRawWeights('stored-bf16', model, 'fail');
    expect(checked.weightDtypes.offType).toEqual([{ tensor: 'w_bf16', dtype: 'float32', storedDtype: 'bfloat16' }]);
    expect(checked.weightDtypes.verdict.reasons).toEqual([
      '1 weight tensor(s) are not FP16/FP32 (weights must be FP16 or FP32): w_bf16 (bfloat16 cast to float32)',
    ]);
    expect(checked.quantization.bf16Tensors).toEqual(['w_bf16']);
  });

  it('fails an fp32 weight cast to bfloat16 (or float64) on its way to the MatMul: what the reader gets is what counts', async () => {
    const model: RawModel = {
      tensors: [tensor('w', 1, [4, 4], 4), tensor('v', 10, [4, 4], 2)],
      inputs: ['x'],
      nodes: [
        { opType: 'Cast', inputs: ['w'], outputs: ['w_bf16'], ints: { to: 16 } },
        { opType: 'MatMul', inputs: ['x', 'w_bf16'], outputs: ['y'] },
        { opType: 'Cast', inputs: ['v'], outputs: ['v_f64'], ints: { to: 11 } },
        { opType: 'MatMul', inputs: ['y', 'v_f64'], outputs: ['z'] },
      ],
    };
    const checked = await checkRawWeights('cast-bf16', model, 'warn');
    expect(checked.weightDtypes.offType).toEqual([
      { tensor: 'w', dtype: 'bfloat16', storedDtype: 'float32' },
      { tensor: 'v', dtype: 'float64', storedDtype: 'float16' },
    ]);
    expect(checked.quantization).toMatchObject({ bf16Tensors: ['w'], otherFloatTensors: ['v'], disallowedWeights: [], verdict: { status: 'pass' } });
  });

  it('knows the quantization op families by name', () => {
    for (const op of [
      'QuantizeLinear',
      'DequantizeLinear',
      'DynamicQuantizeLinear',
      'MatMulInteger',
      'QLinearMatMul',
      'MatMulNBits',
      'GatherBlockQuantized',
      'QLinearConv',
      'ConvInteger',
      'QAttention',
      'QGemm',
      'QLinearAdd',
      'QOrderedMatMul',
      'DynamicQuantizeMatMul',
    ]) {
      expect(isQuantizationOp(op), op).toBe(true);
    }
    for (const op of ['MatMul', 'Gemm', 'Gather', 'Attention', 'LayerNormalization', 'Cast']) expect(isQuantizationOp(op), op).toBe(false);
  });
});

/**
 * Small graphs for the slot rules the exported fixtures (dataflow.native.test.ts) do not reach. Each
 * expectation is a fact of how the graph is wired: which integer tensor feeds which slot.
 */
describe('no-quantization check: integer data flow, slot by slot', () => {
  const FLOAT = 1;
  const UINT32 = 12;
  const vocab = 32;
  const hidden = 16;
  const floats = (name: string, dims: number[]) =>
    makeTensor(
      name,
      'float32',
      dims,
      Array.from({ length: dims.reduce((p, d) => p * d, 1) }, (_, i) => (i % 7) / 7),
    );
  const ints = (name: string, type: 'int64' | 'int32' | 'int8' | 'uint8', dims: number[], value: (index: number) => number) =>
    makeTensor(
      name,
      type,
      dims,
      Array.from({ length: dims.reduce((p, d) => p * d, 1) }, (_, i) => value(i)),
    );

  async function check(name: string, nodes: NodeProto[], initializers: TensorProto[]) {
    const modelPath = writeModelFiles(tempPath(`flow-${name}`), {
      irVersion: 8,
      opsetImports: [
        { domain: '', version: 17 },
        { domain: 'com.example', version: 1 },
      ],
      graph: {
        name,
        nodes,
        initializers,
        inputs: [{ name: 'input_ids', elementType: 'int64', shape: ['batch', 'sequence'] }],
        outputs: [{ name: 'logits', elementType: 'float32', shape: ['batch', 'sequence', vocab] }],
      },
    });
    return checkQuantization(await readModelGraph(modelPath));
  }
  const embedAndProject = (table: string, ids: string): NodeProto[] => [
    { opType: 'Gather', name: 'embed', inputs: [table, ids], outputs: ['hidden'] },
    { opType: 'MatMul', name: 'lm_head', inputs: ['hidden', 'lm_head.weight'], outputs: ['logits'] },
  ];

  it('passes an int64 id map read only as Gather indices (a pruned vocabulary)', async () => {
    const result = await check(
      'id-map',
      [{ opType: 'Gather', name: 'remap', inputs: ['vocab_map', 'input_ids'], outputs: ['kept_ids'] }, ...embedAndProject('embed.weight', 'kept_ids')],
      [ints('vocab_map', 'int64', [vocab], (i) => i % 8), floats('embed.weight', [8, hidden]), floats('lm_head.weight', [hidden, vocab])],
    );
    expect(result.verdict).toEqual({ status: 'pass', reasons: [], warnings: [] });
    expect(result.disallowedWeights).toEqual([]);
    // Its values choose embedding rows, so they count toward the storage share: 256 bytes, well under the limit.
    expect(result.integerStorage).toMatchObject({ tensors: ['vocab_map'], integerValueBytes: vocab * 8, exceeded: false });
  });

  it('fails an embedding packed four int8 to an int32 and unpacked after the Gather, naming the table and the Gather', async () => {
    const result = await check(
      'packed-embedding',
      [
        { opType: 'Gather', name: 'embed_packed', inputs: ['embed.packed', 'input_ids'], outputs: ['rows_packed'] },
        { opType: 'Cast', name: 'as_u32', inputs: ['rows_packed'], outputs: ['rows_u32'], attributes: [intAttribute('to', UINT32)] },
        { opType: 'Unsqueeze', name: 'column', inputs: ['rows_u32', 'last_axis'], outputs: ['rows_column'] },
        { opType: 'BitShift', name: 'shift', inputs: ['rows_column', 'shifts'], outputs: ['rows_shifted'] },
        { opType: 'Cast', name: 'to_float', inputs: ['rows_shifted'], outputs: ['rows_float'], attributes: [intAttribute('to', FLOAT)] },
        { opType: 'Reshape', name: 'rows', inputs: ['rows_float', 'hidden_shape'], outputs: ['hidden'] },
        { opType: 'MatMul', name: 'lm_head', inputs: ['hidden', 'lm_head.weight'], outputs: ['logits'] },
      ],
      [
        // Codes, not a progression: a table of 0, 1, 2 … would be a position buffer, which holds no weights.
        ints('embed.packed', 'int32', [vocab, hidden / 4], (i) => (i * 7919) % 65_521),
        ints('last_axis', 'int64', [1], () => -1),
        ints('shifts', 'int64', [4], (i) => i * 8),
        ints('hidden_shape', 'int64', [3], (i) => [0, -1, hidden][i]!),
        floats('lm_head.weight', [hidden, vocab]),
      ],
    );
    expect(result.verdict.status).toBe('fail');
    // A matrix of codes indexed by token ids is an embedding stored as integers: the Gather is where it meets the input.
    expect(result.disallowedWeights.map((w) => [w.tensor, w.reader.opType, w.reader.node, w.reader.inputIndex, w.violation])).toEqual([
      ['embed.packed', 'Gather', 'embed_packed', 0, 'integer-codes'],
    ]);
    expect(result.disallowedWeights[0]!.route).toBe('embed.packed → Gather embed_packed');
  });

  it('follows values through an op of an unknown domain: int8 read by com.example Dequantize then MatMul fails', async () => {
    const result = await check(
      'custom-op',
      [
        ...embedAndProject('embed.weight', 'input_ids').slice(0, 1),
        { opType: 'Dequantize', domain: 'com.example', name: 'custom', inputs: ['lm_head.q', 'lm_head.scale'], outputs: ['lm_head.weight'] },
        ...embedAndProject('embed.weight', 'input_ids').slice(1),
      ],
      [floats('embed.weight', [vocab, hidden]), ints('lm_head.q', 'int8', [hidden * vocab], (i) => (i % 255) - 127), floats('lm_head.scale', [1])],
    );
    expect(result.disallowedWeights.map((w) => w.path.map((step) => `${step.opType} ${step.node}`))).toEqual([['Dequantize custom', 'MatMul lm_head']]);
    expect(result.verdict.status).toBe('fail');
  });

  it('passes a uint8 causal table turned into an additive mask: it ends in the Softmax, not in the MatMul that follows', async () => {
    const result = await check(
      'additive-mask',
      [
        ...embedAndProject('embed.weight', 'input_ids').slice(0, 1),
        { opType: 'MatMul', name: 'scores', inputs: ['hidden', 'hidden_t'], outputs: ['scores'] },
        { opType: 'Transpose', name: 'key_t', inputs: ['hidden'], outputs: ['hidden_t'], attributes: [] },
        { opType: 'Cast', name: 'mask_float', inputs: ['causal'], outputs: ['causal_float'], attributes: [intAttribute('to', FLOAT)] },
        { opType: 'Sub', name: 'mask_invert', inputs: ['one', 'causal_float'], outputs: ['blocked'] },
        { opType: 'Mul', name: 'mask_scale', inputs: ['blocked', 'minus_big'], outputs: ['bias'] },
        { opType: 'Add', name: 'masked', inputs: ['scores', 'bias'], outputs: ['masked_scores'] },
        { opType: 'Softmax', name: 'probs', inputs: ['masked_scores'], outputs: ['probs'] },
        { opType: 'MatMul', name: 'mix', inputs: ['probs', 'hidden'], outputs: ['mixed'] },
        { opType: 'MatMul', name: 'lm_head', inputs: ['mixed', 'lm_head.weight'], outputs: ['logits'] },
      ],
      [
        floats('embed.weight', [vocab, hidden]),
        floats('lm_head.weight', [hidden, vocab]),
        floats('one', [1]),
        floats('minus_big', [1]),
        ints('causal', 'uint8', [8, 8], (i) => (i % 8 <= Math.floor(i / 8) ? 1 : 0)),
      ],
    );
    expect(result.disallowedWeights).toEqual([]);
    // Its values do enter float math (counted in the storage share), at 64 bytes of the model's 4,168.
    expect(result.integerStorage.tensors).toEqual(['causal']);
    expect(result.verdict.status).toBe('pass');
  });
});

describe('no-quantization check: stored data a model could hide weights in', () => {
  it('reads a Constant sparse_value as a stored tensor: int8 weights densified at load are quantized weights', async () => {
    const values = tensor('ignored', 3, [256]);
    const indices = { name: 'ignored_indices', dataType: 7, dims: [256], raw: new Uint8Array(new BigInt64Array(256).map((_, index) => BigInt(index)).buffer) };
    const check = await checkRaw('constant-sparse', {
      tensors: [],
      inputs: ['x'],
      nodes: [
        { opType: 'Constant', inputs: [], outputs: ['w_sparse'], constant: { attribute: 'sparse_value', values, indices, dims: [16, 16] } },
        { opType: 'Cast', inputs: ['w_sparse'], outputs: ['w'] },
        { opType: 'MatMul', name: 'proj', inputs: ['x', 'w'], outputs: ['y'] },
      ],
    });
    expect(check.quantizedTensors.map((t) => `${t.name}:${t.dtype}:${t.shape.join('x')}`)).toEqual(['w_sparse:int8:16x16']);
    expect(check.disallowedWeights.map((w) => w.route)).toEqual(['w_sparse → Cast w → MatMul proj']);
    expect(check.verdict.status).toBe('fail');
  });

  it('reads a Constant value_ints as a stored int64 vector that becomes a weight through Reshape and Cast', async () => {
    const check = await checkRaw('constant-ints', {
      tensors: [tensor('shape', 7, [2], 8)],
      inputs: ['x'],
      nodes: [
        {
          opType: 'Constant',
          inputs: [],
          outputs: ['w_ints'],
          constant: { attribute: 'value_ints', values: Array.from({ length: 256 }, (_, index) => (index % 255) - 127) },
        },
        { opType: 'Reshape', inputs: ['w_ints', 'shape'], outputs: ['w_square'] },
        { opType: 'Cast', inputs: ['w_square'], outputs: ['w'] },
        { opType: 'MatMul', name: 'proj', inputs: ['x', 'w'], outputs: ['y'] },
      ],
    });
    expect(check.disallowedWeights.map((w) => `${w.tensor}:${w.dtype}:${w.shape.join('x')} → ${w.reader.opType}`)).toEqual(['w_ints:int64:256 → MatMul']);
    expect(check.integerStorage).toMatchObject({ integerValueBytes: 2048, storedBytes: 2048 + 16 }); // the codes and the shape the Reshape reads
    expect(check.verdict.status).toBe('fail');
  });

  // int8 weights disguised as input-dependent (scale + 0 · f(Shape(x))), which only the storage share catches, padded
  // with an fp32 tensor 16× their size that ONNX Runtime drops at load: over all stored bytes the share would be 5.9 %.
  const paddingReaders: Record<string, RawNode[]> = {
    'nothing reads it': [],
    'only constant computation reads it (folded at load)': [
      { opType: 'ReduceSum', inputs: ['padding'], outputs: ['padding_sum'] },
      { opType: 'Mul', inputs: ['padding_sum', 'zero'], outputs: ['padding_nothing'] },
      { opType: 'Add', inputs: ['y', 'padding_nothing'], outputs: ['logits'] },
    ],
  };
  for (const [how, readers] of Object.entries(paddingReaders)) {
    it(`leaves fp32 padding out of the storage share when ${how}, so it cannot dilute the share`, async () => {
      const check = await checkRaw(`padding-${readers.length}`, {
        tensors: [tensor('w_flat', 3, [1024]), tensor('padding', 1, [4096], 4)],
        inputs: ['x'],
        nodes: [
          { opType: 'Shape', inputs: ['x'], outputs: ['x_shape'] },
          { opType: 'Cast', inputs: ['x_shape'], outputs: ['x_shape_float'] },
          { opType: 'ReduceSum', inputs: ['x_shape_float'], outputs: ['x_size'] },
          { opType: 'Mul', inputs: ['x_size', 'zero'], outputs: ['nothing'] },
          { opType: 'Add', inputs: ['nothing', 'scale'], outputs: ['input_scale'] },
          { opType: 'Reshape', inputs: ['w_flat', 'shape'], outputs: ['w_int8'] },
          { opType: 'Cast', inputs: ['w_int8'], outputs: ['w_float'] },
          { opType: 'Mul', inputs: ['w_float', 'input_scale'], outputs: ['w'] },
          { opType: 'MatMul', name: 'proj', inputs: ['x', 'w'], outputs: ['y'] },
          ...readers,
        ],
      });
      // The allow-list sees through the disguise too: the int8 weights meet the input in the Mul by the disguised scale.
      expect(check.disallowedWeights.filter((w) => w.tensor === 'w_flat').map((w) => `${w.route}: ${w.violation}`)).toEqual([
        'w_flat → Reshape w_int8 → Cast w_float → Mul w: integer-codes',
      ]);
      expect(check.integerStorage).toMatchObject({ integerValueBytes: 1024, storedBytes: 1024, droppedBytes: 16384, tensors: ['w_flat'], exceeded: true });
      expect(check.verdict.status).toBe('fail');
    });
  }

  it('keeps fp32 weights read with activations in the share, also through Transpose and Cast', async () => {
    const check = await checkRaw('held-weights', {
      tensors: [tensor('w_flat', 3, [1024]), tensor('head', 1, [4096], 4), tensor('up', 1, [4096], 4)],
      inputs: ['x'],
      nodes: [
        { opType: 'Reshape', inputs: ['w_flat', 'shape'], outputs: ['w_int8'] },
        { opType: 'Cast', inputs: ['w_int8'], outputs: ['w_float'] },
        { opType: 'MatMul', name: 'proj', inputs: ['x', 'w_float'], outputs: ['h'] },
        { opType: 'MatMul', name: 'up_proj', inputs: ['h', 'up'], outputs: ['u'] },
        { opType: 'Transpose', inputs: ['head'], outputs: ['head_t'] },
        { opType: 'Cast', inputs: ['head_t'], outputs: ['head_f'], ints: { to: 1 } },
        { opType: 'MatMul', name: 'lm_head', inputs: ['u', 'head_f'], outputs: ['logits'] },
      ],
    });
    expect(check.integerStorage).toMatchObject({ integerValueBytes: 1024, storedBytes: 1024 + 2 * 16384, droppedBytes: 0 });
  });
});

describe('no-quantization check: data flow through subgraphs', () => {
  it('follows int8 weights dequantized inside an If branch out through the If, whose input-dependent condition only picks the branch', async () => {
    // 256 int8 bytes against 4,096 of fp32 weights read with activations: 5.9 %, under the storage limit, so only data flow can tell.
    const check = await checkRaw('if-branch', {
      tensors: [tensor('w_flat', 3, [256]), tensor('embed', 1, [1024], 4), tensor('shape', 7, [2], 8)],
      inputs: ['x'],
      nodes: [
        { opType: 'MatMul', name: 'embed_proj', inputs: ['x', 'embed'], outputs: ['h'] },
        { opType: 'Shape', inputs: ['x'], outputs: ['x_shape'] },
        { opType: 'ReduceSum', inputs: ['x_shape'], outputs: ['x_size'] },
        { opType: 'Greater', inputs: ['x_size', 'zero'], outputs: ['always'] },
        {
          opType: 'If',
          name: 'pick',
          inputs: ['always'],
          outputs: ['w'],
          subgraph: {
            attribute: 'then_branch',
            nodes: [
              { opType: 'Reshape', inputs: ['w_flat', 'shape'], outputs: ['w_square'] },
              { opType: 'Cast', inputs: ['w_square'], outputs: ['w_branch'] },
            ],
          },
        },
        { opType: 'MatMul', name: 'proj', inputs: ['h', 'w'], outputs: ['y'] },
      ],
    });
    expect(check.integerStorage).toMatchObject({ integerValueBytes: 256, storedBytes: 256 + 4096, exceeded: false });
    expect(check.disallowedWeights.map((weight) => `${weight.route}: ${weight.violation}`)).toEqual(['w_flat → If pick → MatMul proj: subgraph']);
    expect(check.verdict.status).toBe('fail');
  });

  it('still takes what a branch computes from the input for an activation, not a weight', async () => {
    const check = await checkRaw('if-branch-activation', {
      tensors: [tensor('positions', 7, [64], 8), tensor('embed', 1, [4096], 4)],
      inputs: ['x'],
      nodes: [
        { opType: 'MatMul', name: 'embed_proj', inputs: ['x', 'embed'], outputs: ['h'] },
        {
          opType: 'If',
          name: 'pick',
          inputs: ['always'],
          outputs: ['scaled'],
          subgraph: {
            attribute: 'then_branch',
            nodes: [
              { opType: 'Cast', inputs: ['positions'], outputs: ['positions_float'] },
              { opType: 'Mul', inputs: ['positions_float', 'h'], outputs: ['scaled'] },
            ],
          },
        },
        { opType: 'MatMul', name: 'scores', inputs: ['h', 'scaled'], outputs: ['y'] },
      ],
    });
    expect(check.disallowedWeights).toEqual([]);
    expect(check.verdict.status).toBe('pass');
  });
});

describe('no-quantization check: integer codes stored as floats', () => {
  it('fails three uint8 codes packed into each integer-valued fp32 and split by Div → Floor → Mod', async () => {
    const check = await checkRaw('float-packed', {
      tensors: [tensor('packed', 1, [342], 4), tensor('embed', 1, [8192], 4)],
      inputs: ['x'],
      nodes: [
        { opType: 'MatMul', name: 'embed_proj', inputs: ['x', 'embed'], outputs: ['h'] },
        { opType: 'Div', inputs: ['packed', 'c65536'], outputs: ['high'] },
        { opType: 'Floor', inputs: ['high'], outputs: ['code_0'] },
        { opType: 'Div', inputs: ['packed', 'c256'], outputs: ['middle'] },
        { opType: 'Floor', inputs: ['middle'], outputs: ['middle_floor'] },
        { opType: 'Mod', inputs: ['middle_floor', 'c256'], outputs: ['code_1'] },
        { opType: 'Mod', inputs: ['packed', 'c256'], outputs: ['code_2'] },
        { opType: 'Concat', inputs: ['code_0', 'code_1', 'code_2'], outputs: ['codes'] },
        { opType: 'Sub', inputs: ['codes', 'c128'], outputs: ['centered'] },
        { opType: 'Reshape', inputs: ['centered', 'shape'], outputs: ['w_square'] },
        { opType: 'Mul', inputs: ['w_square', 'scale'], outputs: ['w'] },
        { opType: 'MatMul', name: 'proj', inputs: ['h', 'w'], outputs: ['y'] },
      ],
    });
    expect(check.disallowedWeights.map((weight) => weight.route)).toEqual([
      'packed → Div high → Floor code_0 → Concat codes → Sub centered → Reshape w_square → Mul w → MatMul proj',
    ]);
    expect(check.integerStorage.tensors).toEqual(['packed']);
    expect(check.verdict.status).toBe('fail');
  });

  it('fails int8 pairs stored as fp16 and read back by BitCast to int16 and bit ops', async () => {
    const check = await checkRaw('bitcast', {
      tensors: [tensor('packed', 10, [512], 2), tensor('embed', 1, [8192], 4)],
      inputs: ['x'],
      opsets: [{ domain: '', version: 26 }],
      nodes: [
        { opType: 'MatMul', name: 'embed_proj', inputs: ['x', 'embed'], outputs: ['h'] },
        { opType: 'BitCast', inputs: ['packed'], outputs: ['pairs'], ints: { to: 5 } },
        { opType: 'BitShift', inputs: ['pairs', 'eight'], outputs: ['high'] },
        { opType: 'Cast', inputs: ['high'], outputs: ['high_float'], ints: { to: 1 } },
        { opType: 'Reshape', inputs: ['high_float', 'shape'], outputs: ['w'] },
        { opType: 'MatMul', name: 'proj', inputs: ['h', 'w'], outputs: ['y'] },
      ],
    });
    expect(check.disallowedWeights.map((weight) => weight.route)).toEqual([
      'packed → BitCast pairs → BitShift high → Cast high_float → Reshape w → MatMul proj',
    ]);
    expect(check.verdict.status).toBe('fail');
  });

  it('passes fp16 weights cast to fp32, rounded activations and a float table Gathered by ids', async () => {
    const check = await checkRaw('float-weights', {
      tensors: [tensor('w_half', 10, [256], 2), tensor('embed', 1, [8192], 4), tensor('bias', 1, [64], 4)],
      inputs: ['ids', 'x'],
      nodes: [
        { opType: 'Gather', name: 'embedding', inputs: ['embed', 'ids'], outputs: ['h0'] },
        { opType: 'Add', inputs: ['h0', 'bias'], outputs: ['h1'] },
        { opType: 'Round', inputs: ['h1'], outputs: ['h'] },
        { opType: 'Cast', inputs: ['w_half'], outputs: ['w'], ints: { to: 1 } },
        { opType: 'MatMul', name: 'proj', inputs: ['h', 'w'], outputs: ['y'] },
      ],
    });
    expect(check.disallowedWeights).toEqual([]);
    // The bias reaches Round through the activations: its 256 bytes count toward the share, 0.7 % of the model.
    expect(check.integerStorage).toMatchObject({ tensors: ['bias'], integerValueBytes: 256, exceeded: false });
    expect(check.verdict.status).toBe('pass');
  });

  it('fails float-packed codes made input-dependent before they are unpacked: not a weight use, but storage counts them', async () => {
    const check = await checkRaw('float-packed-input-dependent', {
      tensors: [tensor('packed', 1, [342], 4), tensor('embed', 1, [1024], 4)],
      inputs: ['x'],
      nodes: [
        { opType: 'MatMul', name: 'embed_proj', inputs: ['x', 'embed'], outputs: ['h'] },
        { opType: 'Shape', inputs: ['x'], outputs: ['x_shape'] },
        { opType: 'Cast', inputs: ['x_shape'], outputs: ['x_shape_float'], ints: { to: 1 } },
        { opType: 'ReduceSum', inputs: ['x_shape_float'], outputs: ['x_size'] },
        { opType: 'Mul', inputs: ['x_size', 'zero'], outputs: ['nothing'] },
        { opType: 'Add', inputs: ['packed', 'nothing'], outputs: ['packed_disguised'] },
        { opType: 'Mod', inputs: ['packed_disguised', 'c256'], outputs: ['codes'] },
        { opType: 'Reshape', inputs: ['codes', 'shape'], outputs: ['w'] },
        { opType: 'MatMul', name: 'proj', inputs: ['h', 'w'], outputs: ['y'] },
      ],
    });
    expect(check.disallowedWeights).toEqual([]);
    expect(check.integerStorage).toMatchObject({ tensors: ['packed'], integerValueBytes: 1368, exceeded: true });
    expect(check.verdict.status).toBe('fail');
  });
});
