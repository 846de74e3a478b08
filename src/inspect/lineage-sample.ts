/**
 * A projection's units (output rows of a reader such as q or up, input columns of a writer such as o or down)
 * restricted to a few sampled hidden channels. Cosine similarity over evenly spaced hidden channels estimates the
 * full one closely for dense weights (an unrelated pair scatters about 0 with spread 1/sqrt(length), a fine-tuned
 * copy stays near 1), and it keeps a Phi-2 layer's 10,240 FFN channels at a few MB. The tensor is streamed once,
 * in chunks, whatever its layout.
 */
import type { Projection } from './architecture.js';
import { forEachValueChunk } from './graph-tensor-values.js';
import type { ModelTensor } from './model-graph.js';

/** Units × samples, row-major: the unit's weight at each sampled hidden channel. */
export interface SampledUnits {
  readonly count: number;
  readonly samples: number;
  readonly values: Float32Array;
}

/** Up to `wanted` hidden channels, evenly spread (all of them when the hidden size is smaller). */
export function sampleChannels(hidden: number, wanted: number): number[] {
  const count = Math.min(hidden, wanted);
  return Array.from({ length: count }, (_, index) => Math.floor((index * hidden) / count));
}

/**
 * `hiddenSide` says which side of the projection is the residual stream: 'in' for readers (q, k, v, up, gate),
 * 'out' for writers (o, down). The other side indexes the units.
 */
export function sampleUnits(tensor: ModelTensor, projection: Projection, hiddenSide: 'in' | 'out', channels: readonly number[]): SampledUnits {
  const [rows, cols] = tensor.dims as [number, number];
  // Stored [out, in] when outFirst: the hidden side is the columns for a reader, the rows for a writer.
  const hiddenIsColumns = (hiddenSide === 'in') === projection.outFirst;
  const slotOf = new Int32Array(hiddenIsColumns ? cols : rows).fill(-1);
  channels.forEach((channel, slot) => {
    if (channel < slotOf.length) slotOf[channel] = slot;
  });
  const samples = channels.length;
  const count = hiddenIsColumns ? rows : cols;
  const values = new Float32Array(count * samples);
  forEachValueChunk(tensor, (chunk, firstElement) => {
    // Row segments: only the sampled channels of a row are touched, so the cost is the read, not the copy.
    for (let index = 0; index < chunk.length;) {
      const element = firstElement + index;
      const row = Math.floor(element / cols);
      const col = element - row * cols;
      const span = Math.min(chunk.length - index, cols - col);
      if (hiddenIsColumns) {
        channels.forEach((channel, slot) => {
          if (channel >= col && channel < col + span) values[row * samples + slot] = chunk[index + channel - col]!;
        });
      } else if (slotOf[row]! >= 0) {
        for (let offset = 0; offset < span; offset++) values[(col + offset) * samples + slotOf[row]!] = chunk[index + offset]!;
      }
      index += span;
    }
  });
  return { count, samples, values };
}
