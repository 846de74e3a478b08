/**
 * Fake quantization: float weights whose values sit on a small grid (≤ FAKE_QUANTIZATION_MAX_DISTINCT distinct
 * values in a matrix). Stored at full width they save no memory, and neither the MLRB prompts nor the Edge-LLM
 * challenge forbid them (both forbid quantization for the memory it saves and ask for FP16/FP32 files), so it is a
 * warning with the count, never a failure. Distinct values are counted by bit pattern, in blocks, stopping as soon
 * as the grid is exceeded: a trained matrix is read for a few thousand elements, a fake-quantized one in full.
 */
import { closeSync, readSync } from 'node:fs';
import { hasReadableValues, openTensorFile } from '../graph/tensor-values.js';
import type { ModelTensor } from '../graph/model-graph.js';

export const FAKE_QUANTIZATION_MAX_DISTINCT = 256;
/** Matrices smaller than this are not looked at (a few thousand values say little about a grid). */
export const FAKE_QUANTIZATION_MIN_ELEMENTS = 1024;

const BLOCK_ELEMENTS = 1 << 16;

export interface LowCardinalityWeight {
  readonly tensor: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly distinctValues: number;
}

function readable(tensor: ModelTensor): boolean {
  return (
    (tensor.dtype === 'float32' || tensor.dtype === 'float16') &&
    tensor.dims.length >= 2 &&
    tensor.elementCount >= FAKE_QUANTIZATION_MIN_ELEMENTS &&
    hasReadableValues(tensor)
  );
}

/** Distinct values of the tensor, or null once there are more than FAKE_QUANTIZATION_MAX_DISTINCT (or its file cannot be read). */
export function smallValueGrid(tensor: ModelTensor): number | null {
  if (!readable(tensor)) return null;
  const descriptor = openTensorFile(tensor);
  const width = tensor.bits / 8;
  const seen = new Set<number>();
  const block = Buffer.allocUnsafe(BLOCK_ELEMENTS * width);
  try {
    for (let first = 0; first < tensor.elementCount; first += BLOCK_ELEMENTS) {
      const count = Math.min(BLOCK_ELEMENTS, tensor.elementCount - first);
      const bytes = readSync(descriptor, block, 0, count * width, tensor.offset + first * width);
      if (bytes < count * width) return null;
      for (let index = 0; index < count; index++) {
        seen.add(width === 4 ? block.readUInt32LE(index * 4) : block.readUInt16LE(index * 2));
        if (seen.size > FAKE_QUANTIZATION_MAX_DISTINCT) return null;
      }
    }
  } finally {
    closeSync(descriptor);
  }
  return seen.size;
}

export function lowCardinalityWeights(tensors: Iterable<ModelTensor>): LowCardinalityWeight[] {
  const found: LowCardinalityWeight[] = [];
  for (const tensor of new Set(tensors)) {
    const distinct = smallValueGrid(tensor);
    if (distinct !== null) found.push({ tensor: tensor.name, dtype: tensor.dtype, shape: tensor.dims, distinctValues: distinct });
  }
  return found;
}
