import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import {
  float32ToFloat16Bits,
  makeTensor,
  serializeModel,
  writeModelFiles,
  type ModelProto,
  type NodeProto,
  type TensorElementType,
  type TensorProto,
} from './onnx-builder.js';
import { ProtoWriter } from './protobuf-writer.js';

const workDirectory = mkdtempSync(join(tmpdir(), 'mlrb-onnx-builder-'));
afterAll(() => rmSync(workDirectory, { recursive: true, force: true }));

/** A graph whose outputs are Identity copies of the given initializers and Constant nodes. */
function identityModel(tensors: TensorProto[], extraNodes: NodeProto[] = [], extraOutputs: ModelProto['graph']['outputs'] = []): ModelProto {
  return {
    irVersion: 8,
    opsetImports: [{ domain: '', version: 17 }],
    graph: {
      name: 'identity',
      nodes: [...tensors.map((tensor) => ({ opType: 'Identity', inputs: [tensor.name], outputs: [`out_${tensor.name}`] })), ...extraNodes],
      initializers: tensors,
      inputs: [{ name: 'unused', elementType: 'float32', shape: ['batch_size', 3] }],
      outputs: [...tensors.map((tensor) => ({ name: `out_${tensor.name}`, elementType: tensor.elementType, shape: tensor.dims })), ...extraOutputs],
    },
  };
}

describe('protobuf writer', () => {
  it('encodes varints, negative int64 as 10 bytes, and packed fields', () => {
    expect(Array.from(new ProtoWriter().varintField(1, 300).finish())).toEqual([0x08, 0xac, 0x02]);
    expect(Array.from(new ProtoWriter().varintField(2, -1).finish())).toEqual([0x10, ...Array(9).fill(0xff), 0x01]);
    expect(Array.from(new ProtoWriter().varintField(1, 2n ** 40n).finish())).toEqual([0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
    expect(Array.from(new ProtoWriter().packedVarintField(4, [3, 270]).finish())).toEqual([0x22, 0x03, 0x03, 0x8e, 0x02]);
    expect(Array.from(new ProtoWriter().stringField(2, 'hi').finish())).toEqual([0x12, 0x02, 0x68, 0x69]);
  });

  it('BAD CALL – rejects unsafe numbers and invalid field numbers', () => {
    expect(() => new ProtoWriter().varintField(1, 2 ** 60)).toThrow(RangeError);
    expect(() => new ProtoWriter().varintField(0, 1)).toThrow(RangeError);
  });
});

describe('onnx builder', () => {
  it('converts float16 with round-to-nearest-even, subnormals and overflow', () => {
    const cases: [number, number][] = [
      [1, 0x3c00],
      [-2, 0xc000],
      [65504, 0x7bff],
      [70000, 0x7c00],
      [0.1, 0x2e66],
      [2 ** -24, 0x0001],
      [2 ** -14, 0x0400],
      [1e-9, 0],
      [1 + 2 ** -11, 0x3c00],
      [1 + 3 * 2 ** -11, 0x3c02],
      [-0, 0x8000],
    ];
    for (const [value, bits] of cases) expect([value, float32ToFloat16Bits(value)]).toEqual([value, bits]);
    expect(float32ToFloat16Bits(Number.NaN) & 0x7c00).toBe(0x7c00);
  });

  it('writes every supported tensor type so that ORT reads the same values back', async () => {
    const values: Record<Exclude<TensorElementType, 'bool'>, number[]> = {
      float32: [1.5, -2.25, 3e-5, 1e6],
      float16: [1, -0.5, 0.1, 65504],
      int64: [0, -1, 2 ** 40, -(2 ** 50)],
      int32: [0, -1, 2 ** 30, -(2 ** 31)],
      int8: [0, -1, 127, -128],
      uint8: [0, 1, 128, 255],
    };
    const tensors = Object.entries(values).map(([type, data]) => makeTensor(type, type as TensorElementType, [2, 2], data));
    const constant: NodeProto = {
      opType: 'Constant',
      inputs: [],
      outputs: ['out_constant'],
      attributes: [{ name: 'value', type: 'tensor', value: makeTensor('constant', 'int64', [3], [7, 8, 9]) }],
    };
    const constantFloats: NodeProto = {
      opType: 'Constant',
      inputs: [],
      outputs: ['out_floats'],
      attributes: [{ name: 'value_floats', type: 'floats', value: [0.5, -4] }],
    };
    const session = await ort.InferenceSession.create(
      serializeModel(
        identityModel(
          tensors,
          [constant, constantFloats],
          [
            { name: 'out_constant', elementType: 'int64', shape: [3] },
            { name: 'out_floats', elementType: 'float32', shape: [2] },
          ],
        ),
      ),
    );
    const results = await session.run({ unused: new ort.Tensor('float32', new Float32Array(3), [1, 3]) });
    for (const [type, data] of Object.entries(values)) {
      const output = results[`out_${type}`]!;
      expect(output.dims).toEqual([2, 2]);
      const read = Array.from(output.data as ArrayLike<number | bigint>, Number);
      const expected = type === 'float16' ? data.map(float32ToFloat16Bits) : type === 'float32' ? Array.from(Float32Array.from(data)) : data;
      expect([type, read]).toEqual([type, expected]);
    }
    expect(Array.from(results.out_constant!.data as BigInt64Array)).toEqual([7n, 8n, 9n]);
    expect(Array.from(results.out_floats!.data as Float32Array)).toEqual([0.5, -4]);
    const [input] = session.inputMetadata;
    expect(input?.isTensor && input.shape).toEqual(['batch_size', 3]);
    await session.release();
  });

  it('writes external data that ORT loads from the side file', async () => {
    const big = makeTensor(
      'big',
      'float32',
      [64],
      Array.from({ length: 64 }, (_, index) => index / 4),
    );
    const small = makeTensor('small', 'int64', [2], [5, 6]);
    const modelPath = writeModelFiles(join(workDirectory, 'external'), identityModel([big, small]), {
      externalData: { location: 'weights.bin', minBytes: 64 },
    });
    const session = await ort.InferenceSession.create(modelPath);
    const results = await session.run({ unused: new ort.Tensor('float32', new Float32Array(3), [1, 3]) });
    expect(Array.from(results.out_big!.data as Float32Array)).toEqual(Array.from({ length: 64 }, (_, index) => index / 4));
    expect(Array.from(results.out_small!.data as BigInt64Array)).toEqual([5n, 6n]);
    await session.release();
  });

  it('BAD CALL – rejects a value count that does not match the dims', () => {
    expect(() => makeTensor('wrong', 'float32', [2, 3], [1, 2, 3])).toThrow(RangeError);
  });
});
