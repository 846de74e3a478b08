/**
 * Near-zero channels: fake pruning that scales a head or channel down to noise (1e-12) instead of zeroing it
 * escapes an exact-zero scan but still keeps the weights. A row or column counts as negligible when its L2
 * norm is below NEGLIGIBLE_RATIO of the tensor's RMS row (or column) norm, a ratio that trained weights
 * never show between channels while noise-scaled ones sit orders of magnitude below it.
 */
import { forEachValueChunk, hasReadableValues } from './tensor-values.js';
import type { ModelTensor } from './model-graph.js';

export const NEGLIGIBLE_RATIO = 1e-6;

export interface NegligibleChannels {
  /** 1 where the row ([dims[0]] side) is negligible. */
  readonly rows: Uint8Array;
  /** 1 where the column (product of the other dims) is negligible. */
  readonly columns: Uint8Array;
}

function flagsBelow(squares: Float64Array): Uint8Array {
  const meanSquare = squares.reduce((sum, value) => sum + value, 0) / Math.max(1, squares.length);
  const limit = NEGLIGIBLE_RATIO * NEGLIGIBLE_RATIO * meanSquare; // compared as squares: no sqrt per channel
  return Uint8Array.from(squares, (value) => (value < limit ? 1 : 0));
}

/** Negligible rows and columns of a float tensor viewed as [dims[0], rest], or null when its values are not on disk. */
export function negligibleChannels(tensor: ModelTensor): NegligibleChannels | null {
  if (tensor.dims.length < 2 || !hasReadableValues(tensor)) return null;
  const rows = tensor.dims[0]!;
  const cols = rows === 0 ? 0 : tensor.elementCount / rows;
  const rowSquares = new Float64Array(rows);
  const columnSquares = new Float64Array(cols);
  forEachValueChunk(tensor, (values, firstElement) => {
    let row = Math.floor(firstElement / cols);
    let col = firstElement % cols;
    // Row segments: one tight loop per (part of a) row, so the column sums stream through memory.
    for (let index = 0; index < values.length; ) {
      const span = Math.min(values.length - index, cols - col);
      let sum = 0;
      for (let offset = 0; offset < span; offset++) {
        const value = values[index + offset]!;
        const square = value * value;
        sum += square;
        columnSquares[col + offset] = columnSquares[col + offset]! + square;
      }
      rowSquares[row] = rowSquares[row]! + sum;
      index += span;
      col += span;
      if (col === cols) {
        col = 0;
        row++;
      }
    }
  });
  return { rows: flagsBelow(rowSquares), columns: flagsBelow(columnSquares) };
}
