/**
 * A few tensors' values, read from their raw or external-data bytes on disk, for the checks that need
 * more than the zero scan: telling a tied LM head's constant-folded copy from a trained head, matching
 * layers by their norm weights, and measuring channel norms for near-zero (noise) fake pruning.
 * Floating-point tensors only; fp16 and bf16 are widened to fp32.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { MlrbError } from '../../errors.js';
import type { ModelTensor } from './model-graph.js';

const FLOAT16 = (() => {
  const table = new Float32Array(65536);
  for (let bits = 0; bits < 65536; bits++) {
    const sign = bits & 0x8000 ? -1 : 1;
    const exponent = (bits >> 10) & 0x1f;
    const fraction = bits & 0x3ff;
    table[bits] =
      exponent === 0
        ? sign * 2 ** -14 * (fraction / 1024)
        : exponent === 31
          ? fraction === 0
            ? sign * Infinity
            : Number.NaN
          : sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
  }
  return table;
})();

/** True when the tensor's values can be read here: plain float bytes, in a file that holds them (metadata-only
 * models made in tests point at files that do not exist). */
export function hasReadableValues(tensor: ModelTensor): boolean {
  if ((tensor.location !== 'raw' && tensor.location !== 'external') || !['float32', 'float16', 'bfloat16', 'float64'].includes(tensor.dtype)) return false;
  return storedInFile(tensor);
}

/** The tensor's bytes lie inside a regular file (metadata-only test models point at files that do not exist). */
function storedInFile(tensor: ModelTensor): boolean {
  const stats = statSync(tensor.realFile ?? tensor.file, { throwIfNoEntry: false });
  return stats !== undefined && stats.isFile() && stats.size >= tensor.offset + tensor.length;
}

/**
 * Opens without blocking and insists on a regular file: the native reader checked the file when it read the
 * model, but an agent's folder can change since, and a FIFO swapped in must fail, not hang the check.
 */
export function openTensorFile(tensor: ModelTensor): number {
  let descriptor: number;
  try {
    // The real path, not the name: a hub snapshot's files are links into its blobs/, which the reader
    // followed (and held to the repository folder) when it read the model.
    descriptor = openSync(tensor.realFile ?? tensor.file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new MlrbError('BAD_MODEL', `cannot open ${tensor.file} to read tensor ${tensor.name} (${reason})`, { file: tensor.file, tensor: tensor.name });
  }
  if (!fstatSync(descriptor).isFile()) {
    closeSync(descriptor);
    throw new MlrbError('BAD_MODEL', `${tensor.file}, which holds tensor ${tensor.name}, is not a regular file`, { file: tensor.file, tensor: tensor.name });
  }
  return descriptor;
}

function readExact(descriptor: number, tensor: ModelTensor, target: Uint8Array, position: number): void {
  let done = 0;
  while (done < target.length) {
    const read = readSync(descriptor, target, done, target.length - done, position + done);
    if (read === 0) throw new MlrbError('BAD_MODEL', `${tensor.file} ends inside tensor ${tensor.name}`, { file: tensor.file, tensor: tensor.name });
    done += read;
  }
}

/** The tensor's stored bytes, or the first `length` of them. */
function readBytes(tensor: ModelTensor, length = tensor.length): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  const descriptor = openTensorFile(tensor);
  try {
    readExact(descriptor, tensor, bytes, tensor.offset);
  } finally {
    closeSync(descriptor);
  }
  return bytes;
}

const CHUNK_ELEMENTS = 1 << 22;

/**
 * The tensor's values in storage order, chunk by chunk (4 Mi elements), widened to fp32 (fp64 stays fp64)
 * into one reused array, so a multi-gigabyte model is measured in bounded memory.
 */
export function forEachValueChunk(tensor: ModelTensor, visit: (values: Float32Array | Float64Array, firstElement: number) => void): void {
  if (!hasReadableValues(tensor)) {
    throw new MlrbError('BAD_MODEL', `tensor ${tensor.name} (${tensor.dtype}, ${tensor.location}) has no plain float bytes to read`, {
      file: tensor.file,
      tensor: tensor.name,
    });
  }
  const elementBytes = tensor.bits / 8;
  const chunk = Math.min(CHUNK_ELEMENTS, tensor.elementCount);
  const wide = tensor.dtype === 'float64' ? new Float64Array(chunk) : new Float32Array(chunk);
  const narrow = elementBytes === 2 ? new Uint16Array(chunk) : null;
  const widened = new Uint32Array(wide.buffer, 0, tensor.dtype === 'float64' ? 0 : chunk);
  const descriptor = openTensorFile(tensor);
  try {
    for (let first = 0; first < tensor.elementCount; first += chunk) {
      const count = Math.min(chunk, tensor.elementCount - first);
      const target = narrow ?? wide;
      readExact(descriptor, tensor, new Uint8Array(target.buffer, 0, count * elementBytes), tensor.offset + first * elementBytes);
      if (narrow && tensor.dtype === 'float16') for (let index = 0; index < count; index++) wide[index] = FLOAT16[narrow[index]!]!;
      else if (narrow) for (let index = 0; index < count; index++) widened[index] = narrow[index]! << 16; // bf16 is fp32's top half
      visit(count === chunk ? wide : wide.subarray(0, count), first);
    }
  } finally {
    closeSync(descriptor);
  }
}

/** The tensor's values in storage order, as fp32 (fp64 stays fp64). */
export function readTensorValues(tensor: ModelTensor): Float32Array | Float64Array {
  const values = tensor.dtype === 'float64' ? new Float64Array(tensor.elementCount) : new Float32Array(tensor.elementCount);
  forEachValueChunk(tensor, (chunk, first) => values.set(chunk, first));
  return values;
}

/** Same values, with `b` stored as the transpose of `a` when `transposed` (2-D tensors). A few sampled
 * elements are compared first, so two different matrices cost two small reads, not two whole ones. */
export function sameValues(a: ModelTensor, b: ModelTensor, transposed: boolean): boolean {
  if (!hasReadableValues(a) || !hasReadableValues(b) || a.elementCount !== b.elementCount || a.dims.length !== 2) return false;
  const [rows, cols] = a.dims as [number, number];
  const partner = (row: number, col: number): number => (transposed ? col * rows + row : row * cols + col);
  const samples = Array.from({ length: 16 }, (_, index) => [Math.floor((index * rows) / 16), (index * 7919) % cols] as const);
  const sampled = (tensor: ModelTensor, positions: readonly number[]): number[] => positions.map((position) => elementAt(tensor, position));
  const left = sampled(
    a,
    samples.map(([row, col]) => row * cols + col),
  );
  const right = sampled(
    b,
    samples.map(([row, col]) => partner(row, col)),
  );
  if (left.some((value, index) => value !== right[index])) return false;
  const full = readTensorValues(a);
  const other = readTensorValues(b);
  for (let row = 0; row < rows; row++) for (let col = 0; col < cols; col++) if (full[row * cols + col] !== other[partner(row, col)]) return false;
  return true;
}

function elementAt(tensor: ModelTensor, position: number): number {
  const elementBytes = tensor.bits / 8;
  const bytes = Buffer.alloc(elementBytes);
  const descriptor = openTensorFile(tensor);
  try {
    readExact(descriptor, tensor, bytes, tensor.offset + position * elementBytes);
  } finally {
    closeSync(descriptor);
  }
  if (tensor.dtype === 'float32') return bytes.readFloatLE(0);
  if (tensor.dtype === 'float64') return bytes.readDoubleLE(0);
  const word = bytes.readUInt16LE(0);
  return tensor.dtype === 'float16' ? FLOAT16[word]! : new Float32Array(new Uint32Array([word << 16]).buffer)[0]!;
}

/** An 8-bit integer tensor's stored values (quantized weights), or null when they are not plain bytes on disk. */
export function readByteValues(tensor: ModelTensor): Int8Array | Uint8Array | null {
  if ((tensor.location !== 'raw' && tensor.location !== 'external') || !['int8', 'uint8'].includes(tensor.dtype)) return null;
  if (!storedInFile(tensor)) return null;
  const bytes = readBytes(tensor);
  return tensor.dtype === 'int8'
    ? new Int8Array(bytes.buffer, bytes.byteOffset, tensor.elementCount)
    : new Uint8Array(bytes.buffer, bytes.byteOffset, tensor.elementCount);
}

const INTEGER_READERS: Readonly<Record<string, [number, (bytes: Buffer, offset: number) => number]>> = {
  bool: [1, (bytes, offset) => bytes.readUInt8(offset)],
  uint8: [1, (bytes, offset) => bytes.readUInt8(offset)],
  int8: [1, (bytes, offset) => bytes.readInt8(offset)],
  uint16: [2, (bytes, offset) => bytes.readUInt16LE(offset)],
  int16: [2, (bytes, offset) => bytes.readInt16LE(offset)],
  uint32: [4, (bytes, offset) => bytes.readUInt32LE(offset)],
  int32: [4, (bytes, offset) => bytes.readInt32LE(offset)],
  uint64: [8, (bytes, offset) => Number(bytes.readBigUInt64LE(offset))],
  int64: [8, (bytes, offset) => Number(bytes.readBigInt64LE(offset))],
};

/**
 * An integer or bool tensor's values (shape constants, position buffers, masks), or null when they are not plain
 * bytes on disk or there are more than `maxElements` of them; `firstElements` reads only the start.
 */
export function readIntegerValues(tensor: ModelTensor, maxElements = Number.MAX_SAFE_INTEGER, firstElements = tensor.elementCount): number[] | null {
  const reader = INTEGER_READERS[tensor.dtype];
  if ((tensor.location !== 'raw' && tensor.location !== 'external') || reader === undefined || tensor.elementCount > maxElements) return null;
  if (!storedInFile(tensor)) return null;
  const [width, read] = reader;
  const count = Math.min(firstElements, tensor.elementCount);
  const bytes = readBytes(tensor, count * width);
  const values: number[] = [];
  for (let index = 0; index < count; index++) values.push(read(bytes, index * width));
  return values;
}
