/**
 * Quantization ops by name, in every domain: the ONNX and com.microsoft ones, and the families their names
 * follow, so a newer contrib op (QOrderedLayerNormalization, GatherBlockQuantized …) is known before it is listed.
 */
const QUANTIZATION_OPS = new Set([
  'QuantizeLinear',
  'DequantizeLinear',
  'DynamicQuantizeLinear',
  'MatMulInteger',
  'QLinearMatMul',
  'MatMulNBits',
  'MatMulBnb4',
  'MatMulFpQ4',
  'GatherBlockQuantized',
  'QLinearConv',
  'ConvInteger',
  'QAttention',
  'QGemm',
  'DynamicQuantizeMatMul',
  'DynamicQuantizeLSTM',
  'MatMulIntegerToFloat',
  'MulInteger',
  'ReduceSumInteger',
  'QEmbedLayerNormalization',
  'QuantizeWithOrder',
  'DequantizeWithOrder',
  'QuantizeBFP',
  'DequantizeBFP',
  'QMoE',
]);
// Families named by convention: QLinear*, QOrdered*, *Quantize*, *Integer, *NBits, *BlockQuantized.
const QUANTIZATION_PATTERN = /^Q(Linear|Ordered)|Quantiz|Integer$|NBits$|BlockQuantized/;

export function isQuantizationOp(opType: string): boolean {
  return QUANTIZATION_OPS.has(opType) || QUANTIZATION_PATTERN.test(opType);
}
