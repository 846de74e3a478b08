/**
 * An independent float64 forward pass of the tiny causal LM fixture, written from the architecture
 * description (not from the graph), so a wrong ONNX wiring shows up as a logits mismatch.
 * One unpadded sequence at positions 0..n-1.
 */
import type { TinyLmDimensions, TinyLmWeights } from './model-builders/tiny-causal-lm-weights.js';

const NORM_EPSILON = 1e-5;

/** Returns logits row-major [tokens.length, vocab]. */
export function referenceTinyLmLogits(weights: TinyLmWeights, dimensions: TinyLmDimensions, tokens: readonly number[]): Float64Array {
  const { vocabSize: vocab, hiddenSize: hidden, numHeads: heads } = dimensions;
  const headDim = hidden / heads;
  let states: Float64Array[] = tokens.map((token, position) => {
    const row = new Float64Array(hidden);
    for (let h = 0; h < hidden; h++) {
      row[h] = weights.tokenEmbedding[token * hidden + h]! + weights.positionEmbedding[position * hidden + h]!;
    }
    return row;
  });

  for (const layer of weights.layers) {
    const normed = states.map((row) => layerNorm(row, layer.attentionNormScale, layer.attentionNormBias));
    const queries = normed.map((row) => affine(row, layer.query, layer.queryBias));
    const keys = normed.map((row) => affine(row, layer.key, layer.keyBias));
    const values = normed.map((row) => affine(row, layer.value, layer.valueBias));
    states = states.map((row, position) => {
      const context = new Float64Array(hidden);
      for (let head = 0; head < heads; head++) {
        const offset = head * headDim;
        const scores: number[] = [];
        for (let past = 0; past <= position; past++) {
          let dot = 0;
          for (let d = 0; d < headDim; d++) dot += queries[position]![offset + d]! * keys[past]![offset + d]!;
          scores.push(dot / Math.sqrt(headDim));
        }
        const maximum = Math.max(...scores);
        const exponentials = scores.map((score) => Math.exp(score - maximum));
        const total = exponentials.reduce((sum, value) => sum + value, 0);
        exponentials.forEach((weight, past) => {
          for (let d = 0; d < headDim; d++) context[offset + d]! += (weight / total) * values[past]![offset + d]!;
        });
      }
      return add(row, affine(context, layer.output, layer.outputBias));
    });
    states = states.map((row) => {
      const up = affine(layerNorm(row, layer.mlpNormScale, layer.mlpNormBias), layer.mlpUp, layer.mlpUpBias).map(Math.tanh);
      return add(row, affine(up, layer.mlpDown, layer.mlpDownBias));
    });
  }

  const logits = new Float64Array(tokens.length * vocab);
  states.forEach((row, position) => {
    const normed = layerNorm(row, weights.finalNormScale, weights.finalNormBias);
    logits.set(affine(normed, weights.lmHead, new Float32Array(vocab)), position * vocab);
  });
  return logits;
}

function layerNorm(row: Float64Array, scale: Float32Array, bias: Float32Array): Float64Array {
  const mean = row.reduce((sum, value) => sum + value, 0) / row.length;
  const variance = row.reduce((sum, value) => sum + (value - mean) ** 2, 0) / row.length;
  const inverse = 1 / Math.sqrt(variance + NORM_EPSILON);
  return row.map((value, index) => (value - mean) * inverse * scale[index]! + bias[index]!);
}

/** row [in] @ matrix [in, out] + bias [out]. */
function affine(row: Float64Array, matrix: Float32Array, bias: Float32Array): Float64Array {
  const out = Float64Array.from(bias);
  for (let i = 0; i < row.length; i++) {
    for (let o = 0; o < out.length; o++) out[o]! += row[i]! * matrix[i * out.length + o]!;
  }
  return out;
}

function add(left: Float64Array, right: Float64Array): Float64Array {
  return left.map((value, index) => value + right[index]!);
}
