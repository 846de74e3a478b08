/**
 * The compression track's "no quantization" rule: weights must be fp16 or fp32. Three views, each catching what
 * the others can miss:
 * - the graph's ops and stored types: quantization nodes in every domain (ai.onnx and com.microsoft alike,
 *   subgraphs and functions included) and low-precision matrices read as weights;
 * - data flow (quantization-dataflow.ts): integer tensors whose values reach a weight slot, however reshaped,
 *   unpacked or scaled on the way, reported with the path;
 * - storage (quantization-storage.ts): the share of stored bytes that is integer data carrying values.
 * bfloat16 is reported and, as configured, warns or fails.
 */
import { isAlwaysQuantized } from './dtypes.js';
import { isParameter } from './architecture.js';
import { effectiveConsumers, type ModelGraph, type ModelTensor } from './model-graph.js';
import { inputDependentValues, traceIntegerTensors, type IntegerTrace, type PathStep } from './quantization-dataflow.js';
import { isQuantizationOp } from './quantization-ops.js';
import { measureIntegerStorage, type IntegerStorage } from './quantization-storage.js';
import { subgraphOwners } from './subgraph-owners.js';
import { verdictOf, type Verdict } from './verdict.js';

export { isQuantizationOp } from './quantization-ops.js';
export type { PathStep } from './quantization-dataflow.js';
export type { IntegerStorage } from './quantization-storage.js';

export interface QuantizationOptions {
  /** What bfloat16 weights do to the verdict. Default 'warn'. */
  readonly bf16?: 'warn' | 'fail';
}

export interface QuantizedTensor {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** "OpType node-name" of each reader. */
  readonly usedBy: readonly string[];
}

export interface QuantizationNode {
  readonly name: string;
  readonly opType: string;
  readonly domain: string;
  readonly graph: string;
}

/** A stored integer tensor (or integer codes stored as floats) whose values become a weight without depending on any input. */
export interface IntegerWeight {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** The node that reads the values as a weight (MatMul, Gemm, Gather's table, a quantization op …). */
  readonly reader: PathStep;
  /** The nodes from the tensor to the reader (for an integer lookup table, on to the node that made it float). */
  readonly path: readonly PathStep[];
  /** "tensor → OpType node → … → MatMul node". */
  readonly route: string;
  /** Weight slots its values reach (the first of them is `reader`). */
  readonly weightSlots: number;
}

export interface QuantizationCheck {
  readonly verdict: Verdict;
  /** Low-precision matrices read as weights (by type and rank; integerWeights follows the values instead). */
  readonly quantizedTensors: readonly QuantizedTensor[];
  readonly quantizationNodes: readonly QuantizationNode[];
  /** Integer tensors of any rank and width whose values reach a weight slot: found by data flow. */
  readonly integerWeights: readonly IntegerWeight[];
  /** The share of stored bytes held as integers that carry values, against its limit. */
  readonly integerStorage: IntegerStorage;
  readonly bf16Tensors: readonly string[];
  /** Float weights that are neither fp16 nor fp32 nor bf16 (float64): allowed, but worth knowing. */
  readonly otherFloatTensors: readonly string[];
}

/**
 * fp8 / int4 / int2 … tensors are quantized whatever they are. int8 / uint8 / int16 / uint16 matrices are
 * weights when their values reach a weight slot; a table read as indices, a shape, a Where condition or an
 * additive mask (it ends in a Softmax) is not. Vectors and scalars of those types are zero points and ids: the
 * quantization nodes that read them are reported on their own, and integerWeights follows any rank.
 */
function isQuantizedWeight(tensor: ModelTensor, trace: IntegerTrace | undefined): boolean {
  if (tensor.category !== 'low-precision') return false;
  if (isAlwaysQuantized(tensor.dtype)) return true;
  return tensor.dims.length >= 2 && trace !== undefined && trace.uses.length > 0;
}

/** Only constant uses count: integers that feed a weight slot through an input (positions, masks) are not weights. */
function integerWeightOf({ tensor, uses }: IntegerTrace): IntegerWeight[] {
  const weightUses = uses.filter((use) => use.constant);
  const first = weightUses[0];
  if (first === undefined) return [];
  const route = [tensor.name, ...first.path.map((step) => `${step.opType} ${step.node}`)].join(' → ');
  return [{ name: tensor.name, dtype: tensor.dtype, shape: tensor.dims, reader: first.reader, path: first.path, route, weightSlots: weightUses.length }];
}

export function checkQuantization(graph: ModelGraph, options: QuantizationOptions = {}): QuantizationCheck {
  const bf16Mode = options.bf16 ?? 'warn';
  if (bf16Mode !== 'warn' && bf16Mode !== 'fail') throw new TypeError(`bf16 must be 'warn' or 'fail', got ${String(bf16Mode)}`);
  // Which values depend on the input decides both where stored codes go and which stored bytes count.
  const ownersOf = subgraphOwners(graph);
  const dependent = inputDependentValues(graph, ownersOf);
  const traces = traceIntegerTensors(graph, dependent, ownersOf);
  const traceByName = new Map(traces.map((trace) => [trace.tensor.name, trace]));
  const quantizedTensors = graph.tensors.filter((tensor) => isQuantizedWeight(tensor, traceByName.get(tensor.name))).map((tensor) => ({
    name: tensor.name,
    dtype: tensor.dtype,
    shape: tensor.dims,
    usedBy: effectiveConsumers(graph, tensor.name).map(({ consumer }) => `${consumer.node.opType} ${consumer.node.name}`.trim()),
  }));
  const quantizationNodes = graph.info.nodes
    .filter((node) => isQuantizationOp(node.opType))
    .map((node) => ({ name: node.name, opType: node.opType, domain: node.domain, graph: node.graph }));
  const integerWeights = traces.flatMap(integerWeightOf);
  const integerStorage = measureIntegerStorage(graph, traces, dependent);
  const bf16Tensors = graph.tensors.filter((tensor) => tensor.dtype === 'bfloat16' && isParameter(tensor)).map((tensor) => tensor.name);
  const otherFloatTensors = graph.tensors.filter((tensor) => tensor.dtype === 'float64' && isParameter(tensor)).map((tensor) => tensor.name);

  const reasons: string[] = [];
  const warnings: string[] = [];
  const listed = (names: readonly string[]): string => names.slice(0, 8).join(', ') + (names.length > 8 ? `, … (${names.length} in all)` : '');
  if (quantizedTensors.length > 0) {
    reasons.push(`${quantizedTensors.length} quantized weight tensor(s): ${listed(quantizedTensors.map((t) => `${t.name} (${t.dtype})`))}`);
  }
  if (quantizationNodes.length > 0) {
    reasons.push(`${quantizationNodes.length} quantization node(s): ${listed(quantizationNodes.map((n) => `${n.opType}${n.domain ? `@${n.domain}` : ''} ${n.name}`.trim()))}`);
  }
  if (integerWeights.length > 0) {
    reasons.push(`${integerWeights.length} integer tensor(s) become weights through the graph: ${listed(integerWeights.map((w) => `${w.name} (${w.dtype}) → … → ${w.reader.opType} ${w.reader.node}`))}`);
  }
  if (integerStorage.exceeded) {
    const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
    reasons.push(`${percent(integerStorage.share)} of the stored tensor bytes are integers whose values enter float computation (limit ${percent(integerStorage.limit)}): ${listed(integerStorage.tensors)}`);
  }
  if (bf16Tensors.length > 0) {
    (bf16Mode === 'fail' ? reasons : warnings).push(`${bf16Tensors.length} bfloat16 weight tensor(s) (weights must be fp16 or fp32): ${listed(bf16Tensors)}`);
  }
  if (otherFloatTensors.length > 0) warnings.push(`${otherFloatTensors.length} float64 weight tensor(s): ${listed(otherFloatTensors)}`);
  return { verdict: verdictOf(reasons, warnings), quantizedTensors, quantizationNodes, integerWeights, integerStorage, bf16Tensors, otherFloatTensors };
}
