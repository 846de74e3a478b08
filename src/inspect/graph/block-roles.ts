/**
 * Roles inside one residual block, from how values flow, not from names. Projections are MatMul-like nodes
 * with a matrix initializer on one side and activations on the other. Readers take the normalized stream
 * (no projection upstream in the block); writers feed the residual Add (no projection downstream). A
 * reader whose output reaches the attention scores is q (left operand) or k (right); one reaching the
 * value side of probabilities @ V is v; one reaching both is a fused qkv; other readers are the MLP's up
 * (or gate, the one an activation reads). A writer computed from the attention probabilities is o, the
 * others are down. Norm weights are the vectors multiplied or added on the way from the stream to the
 * readers (a decomposed LayerNorm's epsilon and exponent are scalars, never weights).
 */
import type { NativeNodeInfo } from '../../native/binding.js';
import { readersOf, weightBehind, type GraphFlow } from './flow.js';
import { SKIP_NORMS, type StreamBlock } from './stream.js';
import type { GraphProjection, ProjectionRole } from './structure-types.js';

export interface BlockRoles {
  readonly attention: boolean;
  readonly projections: ReadonlyMap<ProjectionRole, GraphProjection>;
  readonly norms: readonly string[];
}

const PROJECTION_OPS = new Set(['MatMul', 'Gemm', 'MatMulInteger', 'FusedMatMul']);
// ORT's contrib Attention holds the fused qkv weight (input 1, [hidden, 3·width]) and bias (input 2) itself.
const WEIGHTED_ATTENTION = 'Attention';
export const FUSED_ATTENTION = new Set(['GroupQueryAttention', 'MultiHeadAttention', 'PackedMultiHeadAttention', 'SparseAttention', WEIGHTED_ATTENTION]);
// Activations that take the preceding projection's bias as input 1.
const BIASED_ACTIVATIONS = new Set(['FastGelu', 'BiasGelu']);
const ACTIVATIONS = new Set(['Sigmoid', 'Silu', 'Gelu', 'FastGelu', 'BiasGelu', 'QuickGelu', 'Relu', 'Tanh', 'Erf', 'Softplus', 'HardSigmoid']);
const BIAS_PATH = new Set(['Cast', 'Mul']); // a quantized MatMulInteger's int32 output is cast and scaled before its bias

const isVector = (flow: GraphFlow, name: string): boolean => {
  const tensor = flow.graph.tensorByName.get(name);
  return tensor !== undefined && tensor.dims.length === 1 && tensor.elementCount > 1 && (tensor.category === 'float' || tensor.category === 'low-precision');
};

/** The projection a node is, when it multiplies activations (in `data`) by a matrix initializer. */
export function projectionAt(flow: GraphFlow, index: number, data: ReadonlySet<string>): GraphProjection | null {
  const node = flow.nodes[index]!;
  if (node.opType === WEIGHTED_ATTENTION && node.domain === 'com.microsoft') return attentionProjection(flow, index, data);
  if (!PROJECTION_OPS.has(node.opType) || node.outputs[0] === undefined) return null;
  for (const weightIndex of [1, 0]) {
    const dataInput = node.inputs[1 - weightIndex];
    const weight = weightBehind(flow, node.inputs[weightIndex] ?? '');
    const tensor = weight === null ? undefined : flow.graph.tensorByName.get(weight.name);
    if (!tensor || tensor.dims.length !== 2 || dataInput === undefined || !data.has(dataInput)) continue;
    const transB = node.opType === 'Gemm' && (node.intAttributes.transB ?? 0) === 1;
    // x @ W reads W as [in, out]; W @ x (weight on the left) reads it as [out, in].
    const outFirst = (weightIndex === 0) !== (weight!.transposed !== transB);
    const gemmBias = node.opType === 'Gemm' && node.inputs[2] && isVector(flow, node.inputs[2]) ? node.inputs[2] : null;
    const { output, bias } = gemmBias ? { output: node.outputs[0], bias: gemmBias } : biasAfter(flow, node.outputs[0]);
    return { node: index, weight: tensor.name, outFirst, dataInput, output, bias };
  }
  return null;
}

function attentionProjection(flow: GraphFlow, index: number, data: ReadonlySet<string>): GraphProjection | null {
  const node = flow.nodes[index]!;
  const [dataInput, weightName, biasName] = node.inputs;
  const weight = flow.graph.tensorByName.get(weightName ?? '');
  if (!dataInput || !data.has(dataInput) || weight?.dims.length !== 2 || !node.outputs[0]) return null;
  return {
    node: index,
    weight: weight.name,
    outFirst: false,
    dataInput,
    output: node.outputs[0],
    bias: biasName && isVector(flow, biasName) ? biasName : null,
  };
}

function biasAfter(flow: GraphFlow, value: string): { output: string; bias: string | null } {
  let current = value;
  for (let step = 0; step < 4; step++) {
    const readers = readersOf(flow, current);
    if (readers.length !== 1) break;
    const { node, inputIndex } = readers[0]!;
    // ORT fuses the bias of the projection feeding a residual into SkipLayerNormalization's 5th input.
    if (SKIP_NORMS.has(node.opType) && inputIndex <= 1)
      return { output: value, bias: node.inputs[4] && isVector(flow, node.inputs[4]) ? node.inputs[4] : null };
    if (BIASED_ACTIVATIONS.has(node.opType) && inputIndex === 0)
      return { output: value, bias: node.inputs[1] && isVector(flow, node.inputs[1]) ? node.inputs[1] : null };
    if (node.opType === 'Add' && node.inputs.length === 2) {
      const other = weightBehind(flow, node.inputs[1 - inputIndex]!);
      if (other !== null && isVector(flow, other.name)) return { output: node.outputs[0]!, bias: other.name };
      break;
    }
    if (!BIAS_PATH.has(node.opType) || inputIndex !== 0) break;
    current = node.outputs[0]!;
  }
  return { output: value, bias: null };
}

/** Values reached from `start` inside the block, not passing through another projection. */
function reachForward(flow: GraphFlow, block: StreamBlock, start: string, stops: ReadonlySet<number>): Set<string> {
  const seen = new Set<string>([start]);
  const pending = [start];
  while (pending.length > 0) {
    for (const { node, index } of readersOf(flow, pending.pop()!)) {
      if (!block.nodes.has(index) || stops.has(index)) continue;
      for (const output of node.outputs)
        if (output !== '' && !seen.has(output)) {
          seen.add(output);
          pending.push(output);
        }
    }
  }
  return seen;
}

/** Node indices behind `value` inside the block, not passing through another projection. */
function reachBackward(flow: GraphFlow, block: StreamBlock, value: string, stops: ReadonlySet<number>): Set<number> {
  const found = new Set<number>();
  const pending = [value];
  while (pending.length > 0) {
    const index = flow.producer.get(pending.pop()!);
    if (index === undefined || !block.nodes.has(index) || found.has(index)) continue;
    found.add(index);
    if (stops.has(index)) continue;
    for (const input of flow.nodes[index]!.inputs) if (input !== '') pending.push(input);
  }
  return found;
}

interface AttentionCore {
  readonly softmax: readonly number[];
  /** [left operand, right operand] values of the score MatMuls; left is q, right is k (transposed). */
  readonly scoreSides: readonly (readonly [string, string])[];
  /** The value-side operand of probabilities @ V. */
  readonly valueSides: readonly string[];
  readonly fused: readonly NativeNodeInfo[];
}

function attentionCore(flow: GraphFlow, block: StreamBlock, projections: ReadonlySet<number>): AttentionCore {
  const softmax = [...block.nodes].filter((index) => flow.nodes[index]!.opType === 'Softmax');
  const scoreSides: [string, string][] = [];
  const valueSides: string[] = [];
  for (const index of softmax) {
    const probabilities = reachForward(flow, block, flow.nodes[index]!.outputs[0]!, projections);
    for (const before of reachBackward(flow, block, flow.nodes[index]!.inputs[0]!, projections)) {
      const node = flow.nodes[before]!;
      if (node.opType === 'MatMul' && !projections.has(before)) scoreSides.push([node.inputs[0]!, node.inputs[1]!]);
    }
    for (const candidate of block.nodes) {
      const node = flow.nodes[candidate]!;
      if (node.opType !== 'MatMul' || projections.has(candidate)) continue;
      if (probabilities.has(node.inputs[0]!)) valueSides.push(node.inputs[1]!);
      else if (probabilities.has(node.inputs[1]!)) valueSides.push(node.inputs[0]!);
    }
  }
  const fused = [...block.nodes].map((index) => flow.nodes[index]!).filter((node) => FUSED_ATTENTION.has(node.opType));
  return { softmax, scoreSides, valueSides, fused };
}

function readerRole(reached: ReadonlySet<string>, core: AttentionCore): ProjectionRole | null {
  const query = core.scoreSides.some(([left]) => reached.has(left)) || core.fused.some((node) => reached.has(node.inputs[0] ?? ''));
  const key = core.scoreSides.some(([, right]) => reached.has(right)) || core.fused.some((node) => reached.has(node.inputs[1] ?? ''));
  const value = core.valueSides.some((side) => reached.has(side)) || core.fused.some((node) => reached.has(node.inputs[2] ?? ''));
  const packed = core.fused.some((node) => reached.has(node.inputs[0] ?? '') && !node.inputs[1] && !node.inputs[2]);
  if (packed || (query && key && value)) return 'qkv';
  if (value && !query && !key) return 'v';
  if (query && !key) return 'q';
  if (key && !query) return 'k';
  return query || key ? 'qkv' : null;
}

export function blockRoles(flow: GraphFlow, block: StreamBlock, data: ReadonlySet<string>): BlockRoles {
  const found = [...block.nodes]
    .sort((a, b) => a - b)
    .map((index) => projectionAt(flow, index, data))
    .filter((p): p is GraphProjection => p !== null);
  const stops = new Set(found.map((projection) => projection.node));
  const core = attentionCore(flow, block, stops);
  const attention = core.softmax.length > 0 || core.fused.length > 0;
  const projections = new Map<ProjectionRole, GraphProjection>();
  const mlpReaders: GraphProjection[] = [];
  const readerInputs: string[] = [];
  for (const projection of found) {
    const upstream = reachBackward(flow, block, projection.dataInput, stops);
    const downstream = reachForward(flow, block, projection.output, stops);
    const reads = ![...upstream].some((index) => stops.has(index));
    const writes = ![...downstream].some((value) => found.some((other) => other !== projection && flow.nodes[other.node]!.inputs.includes(value)));
    if (reads) {
      readerInputs.push(projection.dataInput);
      const role = flow.nodes[projection.node]!.opType === WEIGHTED_ATTENTION ? 'qkv' : readerRole(downstream, core);
      if (role !== null && !projections.has(role)) projections.set(role, projection);
      else if (role === null) mlpReaders.push(projection);
    } else if (writes) {
      const fromAttention =
        core.softmax.some((index) => [...upstream].some((node) => flow.nodes[node]!.inputs.includes(flow.nodes[index]!.outputs[0]!))) ||
        core.fused.some((node) => [...upstream].some((index) => flow.nodes[index] === node));
      const role = fromAttention ? 'o' : 'down';
      if (!projections.has(role)) projections.set(role, projection);
    }
  }
  const activated = (projection: GraphProjection): boolean => readersOf(flow, projection.output).some(({ node }) => ACTIVATIONS.has(node.opType));
  const gate = mlpReaders.length > 1 ? (mlpReaders.find(activated) ?? mlpReaders[0]!) : null;
  const up = mlpReaders.find((projection) => projection !== gate);
  if (gate) projections.set('gate', gate);
  if (up) projections.set('up', up);
  return { attention, projections, norms: normsBefore(flow, block, readerInputs, stops) };
}

/** Vector initializers read on the way from the stream to the given values: the norm's scale and shift. */
export function normsBefore(flow: GraphFlow, block: StreamBlock, values: readonly string[], stops: ReadonlySet<number>): string[] {
  const norms = new Set<string>();
  for (const value of values) {
    for (const index of reachBackward(flow, block, value, stops)) {
      const node = flow.nodes[index]!;
      // A SkipLayerNormalization's norm is gamma and beta (its 5th input is the previous projection's bias);
      // an EmbedLayerNormalization's are inputs 5 and 6 (2 to 4 are embedding tables).
      const weights = SKIP_NORMS.has(node.opType) ? node.inputs.slice(2, 4) : node.opType === 'EmbedLayerNormalization' ? node.inputs.slice(5, 7) : node.inputs;
      for (const input of weights) {
        const weight = input === '' ? null : weightBehind(flow, input);
        if (weight !== null && isVector(flow, weight.name)) norms.add(weight.name);
      }
    }
  }
  return [...norms];
}
