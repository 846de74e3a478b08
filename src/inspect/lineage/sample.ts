/**
 * A projection's units (output rows of a reader such as q or up, input columns of a writer such as o or down)
 * restricted to a few sampled hidden channels. Cosine similarity over evenly spaced hidden channels estimates the
 * full one closely for dense weights (an unrelated pair scatters about 0 with spread 1/sqrt(length), a fine-tuned
 * copy stays near 1), and it keeps a Phi-2 layer's 10,240 FFN channels at a few MB. The tensor is streamed once,
 * in chunks, whatever its layout.
 */
import type { Projection } from '../graph/architecture.js';
import { forEachValueChunk } from '../graph/tensor-values.js';
import type { ModelTensor } from '../graph/model-graph.js';

/** Units × samples, row-major: the unit's weight at each sampled hidden channel. */
export interface SampledUnits {
  readonly count: number;
  readonly samples: number;
  readonly values: Float32Array;
}

/** A 2-D tensor's values as segments of one stored row each: (row, first column, values), streamed once. */
export function forEachRowSegment(tensor: ModelTensor, cols: number, visit: (row: number, col: number, values: Float32Array | Float64Array) => void): void {
  forEachValueChunk(tensor, (chunk, firstElement) => {
    for (let index = 0; index < chunk.length; ) {
      const element = firstElement + index;
      const row = Math.floor(element / cols);
      const col = element - row * cols;
      const span = Math.min(chunk.length - index, cols - col);
      visit(row, col, chunk.subarray(index, index + span));
      index += span;
    }
  });
}

/** Up to `wanted` hidden channels, evenly spread (all of them when the hidden size is smaller). */
export function sampleChannels(hidden: number, wanted: number): number[] {
  const count = Math.min(hidden, wanted);
  return Array.from({ length: count }, (_, index) => Math.floor((index * hidden) / count));
}

/** Whether a projection stores its hidden side (the residual stream) as columns: [out, in] for a reader (q, k, v,
 * up, gate, hidden side 'in'), [in, out] for a writer (o, down, hidden side 'out'). */
export function hiddenIsColumns(projection: Projection, hiddenSide: 'in' | 'out'): boolean {
  return (hiddenSide === 'in') === projection.outFirst;
}

/**
 * The units of a 2-D tensor (its rows when `sampledIsColumns`, else its columns), each restricted to the
 * positions `channels` of the other axis.
 */
export function sampleUnits(tensor: ModelTensor, sampledIsColumns: boolean, channels: readonly number[]): SampledUnits {
  const [rows, cols] = tensor.dims as [number, number];
  const slotOf = new Int32Array(sampledIsColumns ? cols : rows).fill(-1);
  channels.forEach((channel, slot) => {
    if (channel < slotOf.length) slotOf[channel] = slot;
  });
  const samples = channels.length;
  const count = sampledIsColumns ? rows : cols;
  const values = new Float32Array(count * samples);
  // Row segments: only the sampled channels of a row are touched, so the cost is the read, not the copy.
  forEachRowSegment(tensor, cols, (row, col, segment) => {
    if (sampledIsColumns) {
      channels.forEach((channel, slot) => {
        if (channel >= col && channel < col + segment.length) values[row * samples + slot] = segment[channel - col]!;
      });
    } else if (slotOf[row]! >= 0) {
      for (let offset = 0; offset < segment.length; offset++) values[(col + offset) * samples + slotOf[row]!] = segment[offset]!;
    }
  });
  return { count, samples, values };
}
