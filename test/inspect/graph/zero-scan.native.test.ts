import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MlrbError } from '../../../src/errors.js';
import { mulberry32 } from '../../support/model-builders/tiny-causal-lm-weights.js';
import { loadBinding, type NativeZeroScanRequest } from '../../../src/native/binding.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('zero-scan');

interface Planted {
  bytes: Uint8Array;
  zeros: number;
  zeroRows: Uint8Array;
  zeroColumns: Uint8Array;
}

/** A [rows, cols] matrix of random nonzero words with planted zero rows, columns and scattered zeros; the
 *  expected flags are computed here element by element, independently of the native kernel. */
function plantedMatrix(rows: number, cols: number, width: 1 | 2 | 4 | 8, seed: number, negativeZero: boolean): Planted {
  const random = mulberry32(seed);
  const words = new BigUint64Array(rows * cols);
  const bits = BigInt(width * 8);
  for (let index = 0; index < words.length; index++) {
    const value = BigInt(Math.floor(random() * 2 ** 30) + 1) * 2654435761n;
    words[index] = BigInt.asUintN(Number(bits) - 1, value) | 1n; // nonzero, sign bit clear
  }
  const signBit = 1n << (bits - 1n);
  const zero = negativeZero ? signBit : 0n;
  for (let row = 0; row < rows; row += 7) for (let col = 0; col < cols; col++) words[row * cols + col] = zero;
  for (let col = 3; col < cols; col += 11) for (let row = 0; row < rows; row++) words[row * cols + col] = zero;
  for (let index = 5; index < words.length; index += 97) words[index] = 0n;
  const bytes = new Uint8Array(rows * cols * width);
  const view = new DataView(bytes.buffer);
  let zeros = 0;
  const rowNonzero = new Uint8Array(rows);
  const colNonzero = new Uint8Array(cols);
  words.forEach((word, index) => {
    for (let byte = 0; byte < width; byte++) view.setUint8(index * width + byte, Number((word >> BigInt(8 * byte)) & 0xffn));
    const isZero = (negativeZero ? word & ~signBit : word) === 0n;
    if (isZero) zeros += 1;
    else {
      rowNonzero[Math.floor(index / cols)] = 1;
      colNonzero[index % cols] = 1;
    }
  });
  return { bytes, zeros, zeroRows: rowNonzero.map((flag) => 1 - flag), zeroColumns: colNonzero.map((flag) => 1 - flag) };
}

function writeAt(name: string, prefix: number, data: Uint8Array): string {
  const directory = tempPath('data');
  mkdirSync(directory, { recursive: true });
  const file = join(directory, name);
  const padded = new Uint8Array(prefix + data.length);
  padded.set(data, prefix);
  writeFileSync(file, padded);
  return file;
}

describe('native zero scan', () => {
  it.each([1, 2, 4, 8] as const)('counts zeros and finds all-zero rows and columns exactly (%i-byte elements)', async (width) => {
    const planted = plantedMatrix(53, 41, width, width, false);
    const file = writeAt(`m${width}.bin`, 13, planted.bytes); // an unaligned offset, as inside a protobuf
    const [result] = await loadBinding().scanZeros([{ file, offset: 13, rows: 53, cols: 41, elementBytes: width, ignoreSign: false }]);
    expect(result!.zeroCount).toBe(planted.zeros);
    expect(result!.zeroRows).toEqual(planted.zeroRows);
    expect(result!.zeroColumns).toEqual(planted.zeroColumns);
  });

  it('treats -0.0 as zero for floating point and as a value for integers', async () => {
    const planted = plantedMatrix(20, 30, 2, 99, true);
    const file = writeAt('negative-zero.bin', 0, planted.bytes);
    const request: NativeZeroScanRequest = { file, offset: 0, rows: 20, cols: 30, elementBytes: 2, ignoreSign: true };
    const [asFloat, asInteger] = await loadBinding().scanZeros([request, { ...request, ignoreSign: false }]);
    expect(asFloat!.zeroCount).toBe(planted.zeros);
    expect(asFloat!.zeroRows).toEqual(planted.zeroRows);
    expect(asInteger!.zeroRows.every((flag) => flag === 0)).toBe(true);
  });

  it('gives the same answer on one thread and many, mapped or copied, across 4 MiB chunk boundaries mid-row', async () => {
    const rows = 1531;
    const cols = 1999; // 12 MB of float32: rows straddle every chunk boundary
    const planted = plantedMatrix(rows, cols, 4, 7, true);
    // Offset 3 takes the copy path (misaligned words), offset 4100 the memory-mapped one (not page-aligned).
    const copied: NativeZeroScanRequest = { file: writeAt('large.bin', 3, planted.bytes), offset: 3, rows, cols, elementBytes: 4, ignoreSign: true };
    const mapped: NativeZeroScanRequest = { ...copied, file: writeAt('large-aligned.bin', 4100, planted.bytes), offset: 4100 };
    const [single] = await loadBinding().scanZeros([copied], { threads: 1 });
    const many = await loadBinding().scanZeros([copied, mapped, mapped], { threads: 4 });
    for (const result of [single!, ...many]) {
      expect(result.zeroCount).toBe(planted.zeros);
      expect(result.zeroRows).toEqual(planted.zeroRows);
      expect(result.zeroColumns).toEqual(planted.zeroColumns);
    }
  });

  it('EXPECTED FAILURE – a range past the end of the file is BAD_MODEL naming the file', async () => {
    const file = writeAt('short.bin', 0, new Uint8Array(100));
    const failure = await loadBinding()
      .scanZeros([{ file, offset: 0, rows: 10, cols: 10, elementBytes: 4, ignoreSign: true }])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MlrbError);
    expect((failure as MlrbError).code).toBe('BAD_MODEL');
    expect((failure as MlrbError).message).toContain(file);
  });

  it('BAD CALL – malformed requests throw TypeError / RangeError before any work', () => {
    const scan = loadBinding().scanZeros as (...args: unknown[]) => unknown;
    expect(() => scan('nope')).toThrow(TypeError);
    expect(() => scan([{ file: 'x', offset: -1, rows: 1, cols: 1, elementBytes: 4 }])).toThrow(RangeError);
    expect(() => scan([{ file: 'x', offset: 0, rows: 1, cols: 1, elementBytes: 3 }])).toThrow(RangeError);
    expect(() => scan([{ file: 7, offset: 0, rows: 1, cols: 1, elementBytes: 4 }])).toThrow(TypeError);
  });
});
