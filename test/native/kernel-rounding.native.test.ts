/**
 * The fused CPU attention rounds its softmax as the MLAS kernels of its kernel path do (AVX-512F or
 * FMA3/AVX2; native/core/cpu_features.h). Each path is run on any CPU through attentionKernel with K = V =
 * identity, which makes the output the softmax probabilities themselves (every product but one is an exact
 * zero), and compared bit for bit with an independent scalar model of that family's order
 * (test/support/mlas-softmax-model.ts) on rows of awkward lengths. The model itself is held to ONNX
 * Runtime's own Softmax on this CPU's family, so on an AVX-512 machine the AVX-512 model is checked against
 * MLAS and on an AVX2 machine the AVX2 one.
 */
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { serializeModel } from '../support/model-builders/onnx-builder.js';
import { loadBinding, type KernelPath } from '../../src/native/binding.js';
import { mlasSoftmax, type MlasKernelFamily } from '../support/mlas-softmax-model.js';
import { seededRandom } from '../support/random-requests.js';

const LENGTHS = [1, 7, 8, 9, 15, 16, 17, 100, 1000];
const FAMILIES: readonly MlasKernelFamily[] = ['avx512', 'avx2'];
const cpu = loadBinding().buildInfo().cpu;

/** Rows of a length: small score gaps; gaps down to -120 (exp underflows: clamped, m = -127 and -126); ties. */
function rowsOf(length: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const row = (spread: number, offset: number): Float32Array => Float32Array.from({ length }, () => offset + (random() - 0.5) * spread);
  const steps = Float32Array.from({ length }, (_, j) => -0.75 * j); // exp arguments walk through every binade down to the clamp
  return [row(6, 0), row(240, 3), row(1, 1e4), steps, new Float32Array(length).fill(2.5)];
}

function identity(size: number): Float32Array {
  const matrix = new Float32Array(size * size);
  for (let i = 0; i < size; i++) matrix[i * size + i] = 1;
  return matrix;
}

/** The kernel's probabilities for each row, all rows as the query rows of one head. */
function kernelSoftmax(rows: readonly Float32Array[], path: KernelPath, keep?: Uint8Array, fill = 0): Float32Array[] {
  const length = rows[0]?.length ?? 0;
  const query = new Float32Array(rows.length * length);
  rows.forEach((row, r) => query.set(row, r * length));
  const eye = identity(length);
  const output = loadBinding().attentionKernel({
    query,
    key: eye,
    value: eye,
    keep: keep ?? new Uint8Array(rows.length * length).fill(1),
    fill,
    scale: 1,
    queries: rows.length,
    keys: length,
    keyDim: length,
    valueDim: length,
    kernelPath: path,
  });
  return rows.map((_, r) => output.slice(r * length, (r + 1) * length));
}

const bits = (values: Float32Array): number[] => Array.from(new Uint32Array(values.buffer, values.byteOffset, values.length));

async function ortSoftmax(rows: readonly Float32Array[]): Promise<Float32Array[]> {
  const length = rows[0]?.length ?? 0;
  const model = serializeModel({
    irVersion: 8,
    opsetImports: [{ domain: '', version: 13 }],
    graph: {
      name: 'softmax',
      nodes: [{ opType: 'Softmax', inputs: ['x'], outputs: ['y'], attributes: [{ name: 'axis', type: 'int', value: -1 }] }],
      initializers: [],
      inputs: [{ name: 'x', elementType: 'float32', shape: [rows.length, length] }],
      outputs: [{ name: 'y', elementType: 'float32', shape: [rows.length, length] }],
    },
  });
  const session = await ort.InferenceSession.create(model, { executionProviders: ['cpu'], intraOpNumThreads: 1 });
  try {
    const x = new Float32Array(rows.length * length);
    rows.forEach((row, r) => x.set(row, r * length));
    const { y } = await session.run({ x: new ort.Tensor('float32', x, [rows.length, length]) });
    const data = y?.data as Float32Array;
    return rows.map((_, r) => data.slice(r * length, (r + 1) * length));
  } finally {
    await session.release();
  }
}

describe('the fused kernel rounds its softmax as each MLAS kernel family does', () => {
  it("reports the CPU, MLAS's path on it and the path in use", () => {
    expect(['avx512', 'avx2', 'baseline']).toContain(cpu.mlasPath);
    expect(cpu.forced ? true : cpu.kernelPath === cpu.mlasPath).toBe(true);
    if (cpu.mlasPath === 'avx512') expect(cpu.features).toEqual(expect.arrayContaining(['avx', 'fma', 'avx2', 'avx512f']));
    if (cpu.mlasPath === 'avx2') expect(cpu.features).toEqual(expect.arrayContaining(['avx', 'fma', 'avx2']));
  });

  it.each(FAMILIES)('%s path: bit for bit the scalar model of that family, rows of 1 to 1000 keys', (family) => {
    for (const length of LENGTHS) {
      const rows = rowsOf(length, length);
      kernelSoftmax(rows, family).forEach((probabilities, r) => {
        expect(bits(probabilities), `length ${length}, row ${r}`).toEqual(bits(mlasSoftmax(rows[r] as Float32Array, family)));
      });
    }
  });

  it('the two families round differently (so the comparisons above can tell them apart)', () => {
    const differing = LENGTHS.filter((length) =>
      rowsOf(length, length).some((row) => bits(mlasSoftmax(row, 'avx512')).join() !== bits(mlasSoftmax(row, 'avx2')).join()),
    );
    expect(differing.length).toBeGreaterThan(LENGTHS.length / 2);
  });

  it.each(FAMILIES)("%s path: masked keys (fill -1e9) as the graph's Where then Softmax round them", (family) => {
    const length = 37;
    const rows = rowsOf(length, 7);
    const keep = new Uint8Array(rows.length * length);
    rows.forEach((_, r) => {
      for (let j = 0; j < length; j++) keep[r * length + j] = j <= 5 * r + 3 || j % 4 === 1 ? 1 : 0; // a causal limit and gaps before it
    });
    kernelSoftmax(rows, family, keep, -1e9).forEach((probabilities, r) => {
      const masked = Float32Array.from(rows[r] as Float32Array, (score, j) => (keep[r * length + j] === 1 ? score : -1e9));
      const expected = mlasSoftmax(masked, family);
      // AVX-512 gives excluded keys a subnormal weight (e^-88.4 · 2^-127 scaled once); the kernel skips them as 0,
      // which no sum notices. The AVX2 kernels make them exactly 0 as well.
      if (family === 'avx512') expected.forEach((value, j) => (keep[r * length + j] === 0 ? (expected[j] = 0) : value));
      expect(bits(probabilities), `row ${r}`).toEqual(bits(expected));
    });
  });

  it.each(FAMILIES)('%s path: a lone query row (a decoding step) computes as the 16-row blocks do, bit for bit', (family) => {
    // The block kernel is held to the graph above and in the fusion tests; a call with one query row takes the
    // kernel's single-row path, which must round every product, exp and sum alike. Head sizes of whole
    // vectors, half vectors and neither; masks with a causal limit, padding holes and fully masked rows.
    const random = seededRandom(11);
    const values = (count: number, spread: number) => Float32Array.from({ length: count }, () => (random() - 0.5) * spread);
    for (const [keyDim, valueDim] of [
      [8, 8],
      [16, 64],
      [5, 12],
      [64, 80],
      [24, 3],
    ] as const) {
      for (const keys of [1, 9, 16, 37, 150]) {
        const queries = Math.min(keys, 7);
        const query = values(queries * keyDim, 4);
        const key = values(keys * keyDim, 4);
        const value = values(keys * valueDim, 2);
        const keep = new Uint8Array(queries * keys);
        for (let t = 0; t < queries; t++) {
          for (let j = 0; j < keys; j++) keep[t * keys + j] = t === 3 ? 0 : j <= keys - queries + t && (j > 2 || t % 2 === 0) ? 1 : 0;
        }
        const request = { fill: -1e9, scale: 0.3, keyDim, valueDim, kernelPath: family };
        const all = loadBinding().attentionKernel({ ...request, query, key, value, keep, queries, keys });
        for (let t = 0; t < queries; t++) {
          const alone = loadBinding().attentionKernel({
            ...request,
            key,
            value,
            queries: 1,
            keys,
            query: query.slice(t * keyDim, (t + 1) * keyDim),
            keep: keep.slice(t * keys, (t + 1) * keys),
          });
          expect(bits(alone), `key dim ${keyDim}, value dim ${valueDim}, ${keys} keys, row ${t}`).toEqual(bits(all.slice(t * valueDim, (t + 1) * valueDim)));
        }
      }
    }
  });

  it('BAD CALL – attentionKernel checks its request before computing', () => {
    const one = new Float32Array([1]);
    const request = {
      query: one,
      key: one,
      value: one,
      keep: new Uint8Array([1]),
      fill: 0,
      scale: 1,
      queries: 1,
      keys: 1,
      keyDim: 1,
      valueDim: 1,
      kernelPath: 'avx2' as const,
    };
    expect(Array.from(loadBinding().attentionKernel(request))).toEqual([1]);
    expect(() => loadBinding().attentionKernel({ ...request, kernelPath: 'sse' as KernelPath })).toThrow(RangeError);
    expect(() => loadBinding().attentionKernel({ ...request, keys: 2 })).toThrow(/key has 1 elements, expected 2/);
    expect(() => loadBinding().attentionKernel({ ...request, keep: new Uint8Array([2]) })).toThrow(/keep holds only 0 and 1/);
    expect(() => loadBinding().attentionKernel({ ...request, query: new Float64Array([1]) as unknown as Float32Array })).toThrow(TypeError);
  });

  it.skipIf(cpu.mlasPath === 'baseline')(
    `ONNX Runtime's Softmax on this CPU is bit for bit the ${cpu.mlasPath} model (the family MLAS runs here)`,
    async () => {
      const family = cpu.mlasPath as MlasKernelFamily;
      for (const length of LENGTHS) {
        const rows = rowsOf(length, length);
        (await ortSoftmax(rows)).forEach((probabilities, r) => {
          expect(bits(probabilities), `length ${length}, row ${r}`).toEqual(bits(mlasSoftmax(rows[r] as Float32Array, family)));
        });
      }
    },
  );
});
