/**
 * The native protobuf reader (native/onnx/proto_wire) on hand-crafted bytes, through the model reader: what
 * protobuf allows and exporters write (unpacked and split repeated fields, any field order, unknown fields
 * of every wire type), payloads stepped over rather than read, and malformed messages refused as BAD_MODEL
 * naming the file, the fault and its byte offset.
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MlrbError } from '../../../src/errors.js';
import { encodeMessage, ProtoWriter } from '../../support/model-builders/protobuf-writer.js';
import { readModelGraph } from '../../../src/inspect/graph/model-graph.js';
import { bytesAt } from '../support/file-bytes.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('wire-reader');

// onnx.proto field numbers, as native/onnx/schema.h spells them.
const MODEL_IR_VERSION = 1,
  MODEL_GRAPH = 7,
  MODEL_OPSET = 8;
const GRAPH_NODE = 1,
  GRAPH_INITIALIZER = 5;
const NODE_OUTPUT = 2,
  NODE_OP_TYPE = 4,
  NODE_ATTRIBUTE = 5;
const TENSOR_DIMS = 1,
  TENSOR_DATA_TYPE = 2,
  TENSOR_NAME = 8,
  TENSOR_RAW_DATA = 9;
const FLOAT32 = 1;

const concat = (...parts: ArrayLike<number>[]): Uint8Array => {
  const joined = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
};

/** A varint's bytes (non-negative safe integers). */
function varint(value: number): number[] {
  const bytes: number[] = [];
  while (value >= 0x80) {
    bytes.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  bytes.push(value);
  return bytes;
}

const tag = (field: number, wire: number): number[] => varint(field * 8 + wire);

/** A ModelProto whose graph holds `graphBody` (encoded GraphProto fields), after an ir_version and before an opset. */
function modelAround(graphBody: Uint8Array): Uint8Array {
  return concat(
    new ProtoWriter().varintField(MODEL_IR_VERSION, 8).messageField(MODEL_GRAPH, graphBody).finish(),
    new ProtoWriter()
      .messageField(
        MODEL_OPSET,
        encodeMessage((opset) => opset.stringField(1, '').varintField(2, 17)),
      )
      .finish(),
  );
}

/** A ModelProto whose only initializer has `tensorBody` as its encoded fields; the graph ends with that tensor. */
const modelWithTensor = (tensorBody: Uint8Array): Uint8Array =>
  new ProtoWriter().varintField(MODEL_IR_VERSION, 8).messageField(MODEL_GRAPH, new ProtoWriter().messageField(GRAPH_INITIALIZER, tensorBody).finish()).finish();

function writeModel(name: string, bytes: Uint8Array): string {
  const directory = tempPath(name);
  mkdirSync(directory, { recursive: true });
  const modelPath = join(directory, 'model.onnx');
  writeFileSync(modelPath, bytes);
  return modelPath;
}

async function badModelMessage(modelPath: string): Promise<string> {
  const error = await readModelGraph(modelPath).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MlrbError);
  expect((error as MlrbError).code).toBe('BAD_MODEL');
  const { message } = error as MlrbError;
  expect(message).toContain(modelPath);
  expect(message).toContain('is truncated or not an ONNX model');
  return message;
}

describe('native protobuf reader on crafted bytes', () => {
  it('takes repeated dims unpacked, packed and split over several runs, fields in any order, and skips unknown fields of every wire type', async () => {
    const raw = new Uint8Array(96).map((_, index) => index + 1);
    const tensor = concat(
      new ProtoWriter().bytesField(TENSOR_RAW_DATA, raw).finish(), // the payload before the name and dims
      new ProtoWriter().stringField(TENSOR_NAME, 'w').varintField(TENSOR_DIMS, 2).finish(),
      new ProtoWriter()
        .doubleField(99, 1.5)
        .floatField(98, 2.5)
        .varintField(97, 7)
        .bytesField(96, Uint8Array.of(1, 2, 3))
        .finish(),
      new ProtoWriter().packedVarintField(TENSOR_DIMS, [3]).varintField(TENSOR_DIMS, 4).varintField(TENSOR_DATA_TYPE, FLOAT32).finish(),
    );
    const graph = concat(
      new ProtoWriter().doubleField(90, 0).messageField(GRAPH_INITIALIZER, tensor).finish(),
      new ProtoWriter()
        .messageField(
          GRAPH_NODE,
          encodeMessage((node) => node.stringField(NODE_OUTPUT, 'y').floatField(91, 1).stringField(NODE_OP_TYPE, 'Relu')),
        )
        .finish(),
    );
    const modelPath = writeModel('lenient', modelAround(graph));
    const read = await readModelGraph(modelPath);
    const weight = read.tensorByName.get('w')!;
    expect(weight).toMatchObject({ dims: [2, 3, 4], dtype: 'float32', location: 'raw', length: 96, elementCount: 24 });
    expect(bytesAt(modelPath, weight.offset, weight.length)).toEqual(raw);
    expect(read.info.nodes.map((node) => [node.opType, node.outputs])).toEqual([['Relu', ['y']]]);
    expect(read.info.opsets).toEqual([{ domain: '', version: 17 }]);
  });

  it('steps over a 4 GiB inline raw_data payload (a file hole) and reads the fields after it', async () => {
    const elements = 2 ** 30 + 4; // float32: 2^32 + 16 bytes, past any 32-bit length
    const payloadBytes = elements * 4;
    const tensorHead = concat(
      new ProtoWriter().packedVarintField(TENSOR_DIMS, [elements]).varintField(TENSOR_DATA_TYPE, FLOAT32).stringField(TENSOR_NAME, 'huge').finish(),
      tag(TENSOR_RAW_DATA, 2),
      varint(payloadBytes),
    );
    const tensorBytes = tensorHead.length + payloadBytes;
    const nodeAfter = new ProtoWriter()
      .messageField(
        GRAPH_NODE,
        encodeMessage((node) => node.stringField(NODE_OUTPUT, 'after').stringField(NODE_OP_TYPE, 'Identity')),
      )
      .finish();
    const graphHead = concat(tag(GRAPH_INITIALIZER, 2), varint(tensorBytes));
    const graphBytes = graphHead.length + tensorBytes + nodeAfter.length;
    const head = concat(new ProtoWriter().varintField(MODEL_IR_VERSION, 8).finish(), tag(MODEL_GRAPH, 2), varint(graphBytes), graphHead, tensorHead);

    const directory = tempPath('huge-inline');
    mkdirSync(directory, { recursive: true });
    const modelPath = join(directory, 'model.onnx');
    const descriptor = openSync(modelPath, 'w');
    try {
      writeSync(descriptor, head, 0, head.length, 0);
      writeSync(descriptor, nodeAfter, 0, nodeAfter.length, head.length + payloadBytes); // the payload stays a hole
    } finally {
      closeSync(descriptor);
    }
    const started = performance.now();
    const read = await readModelGraph(modelPath);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(read.tensorByName.get('huge')).toMatchObject({ location: 'raw', offset: head.length, length: payloadBytes, elementCount: elements });
    expect(read.info.nodes.map((node) => node.outputs)).toEqual([['after']]);
  });

  describe('malformed messages are BAD_MODEL naming the fault and its byte offset', () => {
    it('EXPECTED FAILURE – a length prefix longer than what its message has left', async () => {
      const bytes = concat([0x08, 0x08], tag(MODEL_GRAPH, 2), varint(1000), [1, 2, 3, 4, 5]);
      const message = await badModelMessage(writeModel('long-length', bytes));
      expect(message).toContain('a field of 1000 bytes that only has 5 bytes left at byte offset 3');
    });

    it('EXPECTED FAILURE – a varint longer than 10 bytes', async () => {
      const message = await badModelMessage(writeModel('long-varint', concat([0x08], new Array(10).fill(0xff), [0x01])));
      expect(message).toContain('a varint longer than 10 bytes at byte offset 1');
    });

    it('EXPECTED FAILURE – a group (wire type 3) and field number 0', async () => {
      expect(await badModelMessage(writeModel('group', concat([0x08, 0x08], tag(2, 3))))).toContain('field 2 has unsupported wire type 3 at byte offset 2');
      expect(await badModelMessage(writeModel('field-zero', Uint8Array.of(0x08, 0x08, 0x02, 0x00)))).toContain('field number 0 at byte offset 2');
    });

    it.each([
      ['TensorProto.name as a varint', concat(tag(TENSOR_NAME, 0), [1]), 'TensorProto.name is not a string'],
      ['TensorProto.data_type as bytes', concat(tag(TENSOR_DATA_TYPE, 2), [1, 1]), 'TensorProto.data_type is not a varint'],
      ['dims as fixed32', concat(tag(TENSOR_DIMS, 5), [1, 0, 0, 0]), 'a repeated int64 field with a fixed-width wire type'],
      ['raw_data as a varint', concat(tag(TENSOR_RAW_DATA, 0), [4]), 'TensorProto.raw_data is not bytes'],
    ])('EXPECTED FAILURE – %s', async (_, badField, fragment) => {
      const bytes = modelWithTensor(concat(new ProtoWriter().stringField(TENSOR_NAME, 'w').finish(), badField));
      const message = await badModelMessage(writeModel(fragment.replace(/\W+/g, '-'), bytes));
      expect(message).toContain(`${fragment} at byte offset ${bytes.length - badField.length}`);
    });

    it('EXPECTED FAILURE – packed dims cut inside a varint, and a node attribute that is not a message', async () => {
      const cut = modelWithTensor(concat(tag(TENSOR_DIMS, 2), [1, 0x80]));
      expect(await badModelMessage(writeModel('cut-dims', cut))).toContain(`a varint runs past the end of its message at byte offset ${cut.length - 1}`);
      const attribute = concat(tag(NODE_ATTRIBUTE, 0), [1]);
      const node = concat(new ProtoWriter().stringField(NODE_OP_TYPE, 'Relu').finish(), attribute);
      const bytes = new ProtoWriter()
        .varintField(MODEL_IR_VERSION, 8)
        .messageField(MODEL_GRAPH, new ProtoWriter().messageField(GRAPH_NODE, node).finish())
        .finish();
      expect(await badModelMessage(writeModel('attribute', bytes))).toContain(
        `NodeProto.attribute is not a message at byte offset ${bytes.length - attribute.length}`,
      );
    });
  });
});
