/**
 * Is the LM head a copy of the token embedding? Exporters constant-fold a tied head's transpose into a second
 * tensor (TorchScript's onnx::MatMul_889, dynamo's val_286), and a quantizer then stores that copy as int8.
 * transformers counts a tied pair once, so the copy must not count again. A float copy holds the same
 * values; a quantized one holds them rounded to a scale and zero point, which a Pearson correlation of
 * at least QUANTIZED_COPY_CORRELATION with the embedding shows whatever the scale (an untrained or an
 * untied head correlates near zero).
 */
import { hasReadableValues, readByteValues, readTensorValues, sameValues } from './tensor-values.js';
import type { ModelTensor } from './model-graph.js';

export const QUANTIZED_COPY_CORRELATION = 0.999;

function correlation(embedding: ModelTensor, head: ModelTensor, transposed: boolean): number {
  const quantized = readByteValues(head);
  if (quantized === null || !hasReadableValues(embedding)) return 0;
  const values = readTensorValues(embedding);
  const [rows, cols] = embedding.dims as [number, number];
  let sumX = 0;
  let sumY = 0;
  let sumXX = 0;
  let sumYY = 0;
  let sumXY = 0;
  for (let row = 0; row < rows; row++) {
    for (let col = 0; col < cols; col++) {
      const x = values[row * cols + col]!;
      const y = quantized[transposed ? col * rows + row : row * cols + col]!;
      sumX += x;
      sumY += y;
      sumXX += x * x;
      sumYY += y * y;
      sumXY += x * y;
    }
  }
  const n = rows * cols;
  const spread = Math.sqrt((n * sumXX - sumX * sumX) * (n * sumYY - sumY * sumY));
  return spread > 0 ? (n * sumXY - sumX * sumY) / spread : 0;
}

export function headCopiesEmbedding(embedding: ModelTensor | undefined, head: ModelTensor | undefined): boolean {
  if (!embedding || !head || embedding === head || head.dims.length !== 2 || embedding.dims.length !== 2) return false;
  const [rows, cols] = embedding.dims as [number, number];
  const same = head.dims[0] === rows && head.dims[1] === cols;
  const transposed = head.dims[0] === cols && head.dims[1] === rows;
  if (!same && !transposed) return false;
  if (head.category === 'low-precision' && embedding.category === 'float')
    return correlation(embedding, head, transposed && !same) >= QUANTIZED_COPY_CORRELATION;
  return (same && sameValues(embedding, head, false)) || (transposed && sameValues(embedding, head, true));
}
