/**
 * A few tensors' values, read from their raw or external-data bytes on disk, for the checks that need
 * more than the zero scan: telling a tied LM head's constant-folded copy from a trained head, matching
 * layers by their norm weights, and measuring channel norms for near-zero (noise) fake pruning.
 * Floating-point tensors only; fp16 and bf16 are widened to fp32.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { MlrbError } from '../errors.js';
import type { ModelTensor } from './model-graph.js';

const FLOAT16 = (() => {
  const table = new Float32Array(65536);
  for (let bits = 0; bits < 65536; bits++) {
    const sign = bits & 0x8000 ? -1 : 1;
    const exponent = (bits >> 10) & 0x1f;
    const fraction = bits & 0x3ff;
    table[bits] = exponent === 0 ? sign * 2 ** -14 * (fraction / 1024)
      : exponent === 31 ? (fraction === 0 ? sign * Infinity : Number.NaN)
        : sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
  }
  return table;
})();

/** True when the tensor's values can be read here: plain float bytes, in a file that holds them (metadata-only
 * models made in tests point at files that do not exist). */
export function hasReadableValues(tensor: ModelTensor): boolean {
  if ((tensor.location !== 'raw' && tensor.location !== 'external') || !['float32', 'float16', 'bfloat16', 'float64'].includes(tensor.dtype)) return false;
  const size = statSync(tensor.file, { throwIfNoEntry: false })?.size;
  return size !== undefined && size >= tensor.offset + tensor.length;
}

function readBytes(tensor: ModelTensor): Buffer {
  const bytes = Buffer.allocUnsafe(tensor.length);
  let descriptor: number;
  try {
    descriptor = openSync(tensor.file, 'r');
  } catch (error) {
    throw new MlrbError('BAD_MODEL', `cannot open ${tensor.file} to read tensor ${tensor.name}: ${(error as Error).message}`, { file: tensor.file, tensor: tensor.name });
  }
  try {
    let done = 0;
    while (done < tensor.length) {
      const read = readSync(descriptor, bytes, done, tensor.length - done, tensor.offset + done);
      if (read === 0) throw new MlrbError('BAD_MODEL', `${tensor.file} ends inside tensor ${tensor.name}`, { file: tensor.file, tensor: tensor.name });
      done += read;
    }
  } finally {
    closeSync(descriptor);
  }
  return bytes;
}

/** The tensor's values in storage order, as fp32 (fp64 stays fp64). */
export function readTensorValues(tensor: ModelTensor): Float32Array | Float64Array {
  if (!hasReadableValues(tensor)) {
    throw new MlrbError('BAD_MODEL', `tensor ${tensor.name} (${tensor.dtype}, ${tensor.location}) has no plain float bytes to read`, { file: tensor.file, tensor: tensor.name });
  }
  const bytes = readBytes(tensor);
  const count = tensor.elementCount;
  if (tensor.dtype === 'float32') return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + count * 4));
  if (tensor.dtype === 'float64') return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + count * 8));
  const values = new Float32Array(count);
  const words = new Uint16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + count * 2));
  const widened = new Uint32Array(values.buffer);
  if (tensor.dtype === 'float16') for (let index = 0; index < count; index++) values[index] = FLOAT16[words[index]!]!;
  else for (let index = 0; index < count; index++) widened[index] = words[index]! << 16; // bf16 is fp32's top half
  return values;
}

/** Same values, with `b` stored as the transpose of `a` when `transposed` (2-D tensors). */
export function sameValues(a: ModelTensor, b: ModelTensor, transposed: boolean): boolean {
  if (!hasReadableValues(a) || !hasReadableValues(b) || a.elementCount !== b.elementCount) return false;
  const left = readTensorValues(a);
  const right = readTensorValues(b);
  if (!transposed) return left.every((value, index) => value === right[index]);
  const [rows, cols] = a.dims as [number, number];
  for (let row = 0; row < rows; row++) for (let col = 0; col < cols; col++) if (left[row * cols + col] !== right[col * rows + row]) return false;
  return true;
}

/** A small int64 / int32 tensor's values (shape constants), or null when they are not plain bytes on disk. */
export function readIntegerValues(tensor: ModelTensor): number[] | null {
  if ((tensor.location !== 'raw' && tensor.location !== 'external') || !['int64', 'int32'].includes(tensor.dtype)) return null;
  const size = statSync(tensor.file, { throwIfNoEntry: false })?.size;
  if (size === undefined || size < tensor.offset + tensor.length) return null;
  const bytes = readBytes(tensor);
  const values: number[] = [];
  for (let index = 0; index < tensor.elementCount; index++) {
    values.push(tensor.dtype === 'int64' ? Number(bytes.readBigInt64LE(index * 8)) : bytes.readInt32LE(index * 4));
  }
  return values;
}
