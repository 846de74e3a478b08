/**
 * A model's metadata from the native streaming reader, indexed for the checks: tensors with their dtype
 * facts, and for each value name the nodes that consume it. Weights never enter JS.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { MlrbError } from '../../errors.js';
import { modelExternalDataRoot } from '../../io/hub-snapshot.js';
import { loadBinding, type NativeModelInfo, type NativeNodeInfo, type NativeTensorInfo } from '../../native/binding.js';
import { dtypeFacts, type DtypeCategory } from './dtypes.js';

export interface ModelTensor extends NativeTensorInfo {
  readonly dtype: string;
  readonly bits: number;
  readonly category: DtypeCategory;
}

export interface Consumer {
  readonly node: NativeNodeInfo;
  readonly inputIndex: number;
}

export interface ModelGraph {
  readonly info: NativeModelInfo;
  readonly tensors: readonly ModelTensor[];
  readonly tensorByName: ReadonlyMap<string, ModelTensor>;
  /** Value name → the nodes reading it, in graph order. */
  readonly consumers: ReadonlyMap<string, readonly Consumer[]>;
  readonly readMs: number;
}

/** Indexes already-read metadata (also the entry point for synthetic models in tests). */
export function buildModelGraph(info: NativeModelInfo, readMs = 0): ModelGraph {
  const tensors = info.tensors.map((tensor): ModelTensor => ({ ...tensor, ...pickFacts(tensor.dataType) }));
  const consumers = new Map<string, Consumer[]>();
  for (const node of info.nodes) {
    node.inputs.forEach((input, inputIndex) => {
      if (input === '') return; // an omitted optional input
      const list = consumers.get(input) ?? [];
      list.push({ node, inputIndex });
      consumers.set(input, list);
    });
  }
  return { info, tensors, tensorByName: new Map(tensors.map((tensor) => [tensor.name, tensor])), consumers, readMs };
}

function pickFacts(code: number): Pick<ModelTensor, 'dtype' | 'bits' | 'category'> {
  const facts = dtypeFacts(code);
  return { dtype: facts.name, bits: facts.bits, category: facts.category };
}

/** Streams `modelPath` (and checks its external-data files) without reading any weight bytes. */
export async function readModelGraph(modelPath: string): Promise<ModelGraph> {
  if (typeof modelPath !== 'string' || modelPath === '') throw new TypeError('modelPath must be a non-empty string');
  const resolved = path.resolve(modelPath);
  if (!existsSync(resolved) || !statSync(resolved).isFile()) {
    throw new MlrbError('BAD_MODEL', `model file ${resolved} does not exist`, { file: resolved });
  }
  const started = performance.now();
  const info = await loadBinding().readOnnxModel(resolved, modelExternalDataRoot(resolved));
  return buildModelGraph(info, performance.now() - started);
}

/** Consumers of a value, looking through Transpose / Cast / Identity nodes that only re-present a weight. */
export function effectiveConsumers(graph: ModelGraph, name: string, depth = 0): { consumer: Consumer; transposed: boolean }[] {
  const direct = graph.consumers.get(name) ?? [];
  return direct.flatMap((consumer) => {
    const passThrough = ['Transpose', 'Cast', 'Identity'].includes(consumer.node.opType) && consumer.node.domain === '';
    const output = consumer.node.outputs[0];
    if (!passThrough || output === undefined || depth >= 3) return [{ consumer, transposed: false }];
    const transposed = consumer.node.opType === 'Transpose';
    return effectiveConsumers(graph, output, depth + 1).map((found) => ({ ...found, transposed: found.transposed !== transposed }));
  });
}
