/**
 * What each input slot of an op does with the values that enter it, for the data-flow part of the
 * no-quantization check: a weight slot (the values become a layer's parameters), a control slot (the values
 * are read as a shape, axes, indices, counts or a condition, so they never become weights), or a value slot
 * (the values flow on to the outputs), or the end of the values (the op's outputs carry none of them: a Shape,
 * a comparison, a Softmax). Ops not listed pass every input on: an unknown op is assumed to carry what it
 * reads, which can only make the check stricter.
 */
import type { NativeNodeInfo } from '../../native/binding.js';
import { isFloatDtypeCode } from '../graph/dtypes.js';
import { isQuantizationOp } from './ops.js';

export type SlotRole = 'weight' | 'control' | 'value' | 'ends';

/**
 * Slots holding a layer's parameters, by op type in any domain (fused ops keep their names across domains);
 * `domain:opType` entries refine one domain. Both MatMul operands count: W·x is as good a layer as x·W.
 */
const WEIGHT_SLOTS: ReadonlyMap<string, readonly number[]> = new Map([
  ['MatMul', [0, 1]],
  ['Gemm', [0, 1, 2]],
  ['Conv', [1, 2]],
  ['ConvTranspose', [1, 2]],
  ['Gather', [0]],
  ['GatherElements', [0]],
  ['GatherND', [0]],
  ['LSTM', [1, 2, 3]],
  ['GRU', [1, 2, 3]],
  ['RNN', [1, 2, 3]],
  ['LayerNormalization', [1, 2]],
  ['SimplifiedLayerNormalization', [1]],
  ['SkipLayerNormalization', [2, 3, 4]],
  ['SkipSimplifiedLayerNormalization', [2]],
  ['FusedMatMul', [0, 1]],
  ['FusedGemm', [0, 1, 2]],
  ['FusedConv', [1, 2]],
  ['EmbedLayerNormalization', [2, 3, 4, 5, 6]],
  ['MoE', [2, 3, 4, 5, 6, 7]],
  ['BiasGelu', [1]],
  ['FastGelu', [1]],
  // com.microsoft Attention takes the packed QKV weights and bias; ai.onnx Attention (opset 23) reads only activations.
  ['com.microsoft:Attention', [1, 2]],
  [':Attention', []],
]);

/** Slots read as shapes, axes, indices, counts or conditions. */
const CONTROL_SLOTS: ReadonlyMap<string, readonly number[]> = new Map([
  ['Reshape', [1]],
  ['Expand', [1]],
  ['Tile', [1]],
  ['Unsqueeze', [1]],
  ['Squeeze', [1]],
  ['Slice', [1, 2, 3, 4]],
  ['Pad', [1, 3]],
  ['Split', [1]],
  ['Resize', [1, 2, 3]],
  ['Upsample', [1]],
  ['Gather', [1]],
  ['GatherElements', [1]],
  ['GatherND', [1]],
  ['ScatterND', [1]],
  ['ScatterElements', [1]],
  ['Scatter', [1]],
  ['Compress', [1]],
  ['CenterCropPad', [1]],
  ['TopK', [1]],
  ['CumSum', [1]],
  ['Trilu', [1]],
  ['OneHot', [0, 1]],
  ['Dropout', [1, 2]],
  ['Where', [0]],
  ['ReduceSum', [1]],
  ['ReduceMean', [1]],
  ['ReduceMax', [1]],
  ['ReduceMin', [1]],
  ['ReduceProd', [1]],
  ['ReduceL1', [1]],
  ['ReduceL2', [1]],
  ['ReduceLogSum', [1]],
  ['ReduceLogSumExp', [1]],
  ['ReduceSumSquare', [1]],
  // com.microsoft: position ids, sequence lengths and mask indices of the fused attention ops.
  ['RotaryEmbedding', [1]],
  ['GroupQueryAttention', [5, 6]],
  ['com.microsoft:Attention', [3]],
]);

/**
 * Ops whose outputs carry none of the input values: shapes and sizes, index generators, predicates (the bool
 * masks they make are conditions), and normalizations of scores (an additive mask ends in a Softmax; a weight
 * never passes through one).
 */
const NON_CARRYING_OPS = new Set([
  'Shape',
  'Size',
  'Range',
  'ConstantOfShape',
  'NonZero',
  'ArgMax',
  'ArgMin',
  'EyeLike',
  'RandomNormalLike',
  'RandomUniformLike',
  'Bernoulli',
  'Multinomial',
  'Equal',
  'Less',
  'Greater',
  'LessOrEqual',
  'GreaterOrEqual',
  'IsNaN',
  'IsInf',
  'Not',
  'And',
  'Or',
  'Xor',
  'Softmax',
  'LogSoftmax',
  'Hardmax',
]);

/**
 * Ops that make integer codes of float values, or read the bits of a value as another type: what unpacking integer
 * codes stored as floats takes (three int8 in an integer-valued fp32, split by Div → Floor → Mod), or two int8 in an
 * fp16 read back by BitCast and bit ops. Float weights on their way to a layer pass through none of them.
 */
const CODING_OPS = new Set(['Floor', 'Ceil', 'Round', 'Mod', 'BitShift', 'BitwiseAnd', 'BitwiseOr', 'BitwiseXor', 'BitwiseNot', 'BitCast']);

export function makesIntegerCodes(node: NativeNodeInfo): boolean {
  if (!isStandardDomain(node.domain)) return false;
  if (node.opType === 'Cast') return !isFloatDtypeCode(node.intAttributes.to ?? 0);
  return CODING_OPS.has(node.opType);
}

/** ai.onnx may be named '' or spelled out. */
export function isStandardDomain(domain: string): boolean {
  return domain === '' || domain === 'ai.onnx';
}

function lookup(table: ReadonlyMap<string, readonly number[]>, node: NativeNodeInfo): readonly number[] | undefined {
  const domain = isStandardDomain(node.domain) ? '' : node.domain;
  return table.get(`${domain}:${node.opType}`) ?? table.get(node.opType);
}

/** A quantization op reads quantized data in every slot it has; the check reports those ops on their own too. */
export function slotRole(node: NativeNodeInfo, inputIndex: number): SlotRole {
  if (isQuantizationOp(node.opType)) return 'weight';
  if (lookup(WEIGHT_SLOTS, node)?.includes(inputIndex)) return 'weight';
  if (lookup(CONTROL_SLOTS, node)?.includes(inputIndex)) return 'control';
  return NON_CARRYING_OPS.has(node.opType) ? 'ends' : 'value';
}

/** Gather-like weight slots also index integer tables (id remapping); those are weights only once they turn float. */
export function isLookupOp(node: NativeNodeInfo): boolean {
  return ['Gather', 'GatherElements', 'GatherND'].includes(node.opType);
}

/** The slot of a table read that holds the indices (Gather's, OneHot's): what selects the values handed on. */
export function isLookupIndex(node: NativeNodeInfo, inputIndex: number): boolean {
  return (isLookupOp(node) && inputIndex === 1) || (node.opType === 'OneHot' && inputIndex === 0);
}

/**
 * Whether the node's outputs are floating point given its value input was `inputIsFloat`. ai.onnx ops keep
 * their input type except Cast and BitCast (their `to`) and CastLike (the type of a second tensor, taken as float); ops of
 * other domains are taken as producing floats, the strict reading.
 */
export function outputIsFloat(node: NativeNodeInfo, inputIsFloat: boolean): boolean {
  const standard = isStandardDomain(node.domain);
  if ((node.opType === 'Cast' || node.opType === 'BitCast') && standard) return isFloatDtypeCode(node.intAttributes.to ?? 0);
  if (node.opType === 'CastLike' || !standard || isQuantizationOp(node.opType)) return true;
  return inputIsFloat;
}
