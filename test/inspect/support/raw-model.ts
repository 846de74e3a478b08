/**
 * Hand-encoded ONNX models for what the fixture builder cannot express: any TensorProto data type code
 * (bfloat16, uint4, float8 …), subgraphs in node attributes and model-local functions. Field numbers from
 * onnx.proto; encoded with the project's protobuf writer.
 */
import { encodeMessage, type ProtoWriter } from '../../support/model-builders/protobuf-writer.js';

export interface RawTensor {
  name: string;
  dataType: number;
  dims: number[];
  raw?: Uint8Array;
  external?: { location: string; offset: number; length?: number };
  /** string_data entries (a string tensor: one per element). */
  strings?: string[];
  /** int32_data entries (int8 … int32, bool, float16 bits; a 4-bit type packs two elements into each entry's low byte). */
  int32s?: number[];
}

export interface RawNode {
  opType: string;
  inputs: string[];
  outputs: string[];
  name?: string;
  domain?: string;
  /** INT attributes (Cast's `to` …). */
  ints?: Record<string, number>;
  /** A GRAPH attribute (If / Loop body). */
  subgraph?: { attribute: string; nodes: RawNode[]; initializers?: RawTensor[] };
  /** A Constant's value in one of its list or sparse forms (a dense `value` tensor is an initializer's twin). */
  constant?:
    | { attribute: 'value_ints'; values: number[] }
    | { attribute: 'value_floats'; values: number[] }
    | ({ attribute: 'sparse_value' } & RawSparseTensor)
    | { attribute: 'value_int'; value: number }
    | { attribute: 'value_float'; value: number }
    | { attribute: 'value_string'; text: string }
    | { attribute: 'value_strings'; texts: string[] }
    | { attribute: 'value'; tensor: RawTensor };
}

export interface RawSparseTensor {
  values: RawTensor;
  indices: RawTensor;
  dims: number[];
}

export interface RawModel {
  tensors: RawTensor[];
  /** The main graph's sparse_initializer entries. */
  sparseTensors?: RawSparseTensor[];
  nodes: RawNode[];
  /** Names of the main graph's inputs (what data flow calls input-dependent); no types. */
  inputs?: string[];
  opsets?: { domain: string; version: number }[];
  functions?: { name: string; domain: string; nodes: RawNode[] }[];
}

function writeTensor(writer: ProtoWriter, tensor: RawTensor): void {
  writer.packedVarintField(1, tensor.dims).varintField(2, tensor.dataType).stringField(8, tensor.name);
  if (tensor.raw) writer.bytesField(9, tensor.raw);
  for (const text of tensor.strings ?? []) writer.stringField(6, text);
  if (tensor.int32s) writer.packedVarintField(5, tensor.int32s);
  if (tensor.external) {
    const entries: [string, string][] = [
      ['location', tensor.external.location],
      ['offset', String(tensor.external.offset)],
    ];
    if (tensor.external.length !== undefined) entries.push(['length', String(tensor.external.length)]);
    for (const [key, value] of entries)
      writer.messageField(
        13,
        encodeMessage((entry) => entry.stringField(1, key).stringField(2, value)),
      );
    writer.varintField(14, 1);
  }
}

// SparseTensorProto: 1 values, 2 indices, 3 dims.
function encodeSparse({ values, indices, dims }: RawSparseTensor): Uint8Array {
  return encodeMessage((writer) => {
    writer.messageField(
      1,
      encodeMessage((tensor) => writeTensor(tensor, values)),
    );
    writer.messageField(
      2,
      encodeMessage((tensor) => writeTensor(tensor, indices)),
    );
    writer.packedVarintField(3, dims);
  });
}

function encodeGraph(nodes: RawNode[], tensors: RawTensor[], name: string, inputs: string[] = [], sparseTensors: RawSparseTensor[] = []): Uint8Array {
  return encodeMessage((graph) => {
    for (const node of nodes) graph.messageField(1, encodeNode(node));
    graph.stringField(2, name);
    for (const tensor of tensors)
      graph.messageField(
        5,
        encodeMessage((writer) => writeTensor(writer, tensor)),
      );
    for (const input of inputs)
      graph.messageField(
        11,
        encodeMessage((value) => value.stringField(1, input)),
      );
    for (const sparse of sparseTensors) graph.messageField(15, encodeSparse(sparse));
  });
}

function encodeNode(node: RawNode): Uint8Array {
  return encodeMessage((writer) => {
    for (const input of node.inputs) writer.stringField(1, input);
    for (const output of node.outputs) writer.stringField(2, output);
    if (node.name) writer.stringField(3, node.name);
    writer.stringField(4, node.opType);
    if (node.subgraph) {
      const body = encodeGraph(node.subgraph.nodes, node.subgraph.initializers ?? [], `${node.name ?? node.opType}_body`);
      writer.messageField(
        5,
        encodeMessage((attribute) => attribute.stringField(1, node.subgraph!.attribute).messageField(6, body).varintField(20, 5)),
      );
    }
    for (const [name, value] of Object.entries(node.ints ?? {})) {
      writer.messageField(
        5,
        encodeMessage((attribute) => attribute.stringField(1, name).varintField(3, value).varintField(20, 2)),
      );
    }
    if (node.constant) writer.messageField(5, encodeConstantValue(node.constant));
    if (node.domain) writer.stringField(7, node.domain);
  });
}

// AttributeProto fields: 7 floats (type 6), 8 ints (type 7), 22 sparse_tensor (type 11).
function encodeConstantValue(constant: NonNullable<RawNode['constant']>): Uint8Array {
  return encodeMessage((attribute) => {
    attribute.stringField(1, constant.attribute);
    if (constant.attribute === 'value_ints') attribute.packedVarintField(8, constant.values).varintField(20, 7);
    else if (constant.attribute === 'value_floats') attribute.packedFloatField(7, constant.values).varintField(20, 6);
    else if (constant.attribute === 'value_int') attribute.varintField(3, constant.value).varintField(20, 2);
    else if (constant.attribute === 'value_float') attribute.floatField(2, constant.value).varintField(20, 1);
    else if (constant.attribute === 'value_string') attribute.stringField(4, constant.text).varintField(20, 3);
    else if (constant.attribute === 'value_strings') {
      for (const text of constant.texts) attribute.stringField(9, text);
      attribute.varintField(20, 8);
    } else if (constant.attribute === 'value') {
      const { tensor } = constant;
      attribute
        .messageField(
          5,
          encodeMessage((writer) => writeTensor(writer, tensor)),
        )
        .varintField(20, 4);
    } else {
      attribute.messageField(22, encodeSparse(constant)).varintField(20, 11);
    }
  });
}

export function encodeRawModel(model: RawModel): Uint8Array {
  return encodeMessage((writer) => {
    writer.varintField(1, 8);
    writer.messageField(7, encodeGraph(model.nodes, model.tensors, 'raw', model.inputs, model.sparseTensors));
    for (const opset of model.opsets ?? [{ domain: '', version: 17 }]) {
      writer.messageField(
        8,
        encodeMessage((entry) => entry.stringField(1, opset.domain).varintField(2, opset.version)),
      );
    }
    for (const fn of model.functions ?? []) {
      writer.messageField(
        25,
        encodeMessage((entry) => {
          entry.stringField(1, fn.name);
          for (const node of fn.nodes) entry.messageField(7, encodeNode(node));
          entry.stringField(10, fn.domain);
        }),
      );
    }
  });
}
