/**
 * Rotary caches rebuilt for the DRAM measurement: config.json's rotary settings as transformers reads them, the
 * layouts exporters store (each frequency twice, interleaved, or once), float16 and float32 storage, and refusals.
 * The expected tables are computed here, from the definition cos/sin(position · scale · θ^(-2i/d)), not by the code
 * under test.
 */
import { describe, expect, it } from 'vitest';
import type { MlrbError } from '../../../src/errors.js';
import { resolveHfConfig } from '../../../src/model/hf-config.js';
import { readModelGraph } from '../../../src/inspect/graph/model-graph.js';
import { matchRotaryCache, rebuildRotaryCache } from '../../../src/inspect/graph/rotary-cache.js';
import { rotarySettingsOf, type RotarySettings } from '../../../src/inspect/graph/rotary-settings.js';
import { makeTensor, writeModelFiles, type TensorElementType } from '../../support/model-builders/onnx-builder.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('rotary-cache');
const ROWS = 32;

/** The reference table: column c holds frequency index `frequency(c)`. */
function table(fn: 'cos' | 'sin', rows: number, width: number, frequency: (column: number) => number, theta: number, dim: number, scale: number): number[] {
  return Array.from({ length: rows * width }, (_, index) => {
    const [row, column] = [Math.floor(index / width), index % width];
    const angle = row * scale * theta ** (-(2 * frequency(column)) / dim);
    return fn === 'cos' ? Math.cos(angle) : Math.sin(angle);
  });
}

async function cachesIn(name: string, caches: readonly { name: string; type: TensorElementType; width: number; values: number[] }[]) {
  const model = {
    irVersion: 8,
    opsetImports: [{ domain: '', version: 17 }],
    graph: {
      name,
      nodes: [{ opType: 'Identity', inputs: ['x'], outputs: ['y'] }],
      initializers: caches.map((cache) => makeTensor(cache.name, cache.type, [ROWS, cache.width], cache.values)),
      inputs: [{ name: 'x', elementType: 'float32' as const, shape: [1] }],
      outputs: [{ name: 'y', elementType: 'float32' as const, shape: [1] }],
    },
  };
  const graph = await readModelGraph(writeModelFiles(tempPath(name), model));
  return (tensor: string) => graph.tensorByName.get(tensor)!;
}

const settings = (theta: number, rotaryDim: number, positionScale = 1): RotarySettings => ({
  theta,
  rotaryDim,
  positionScale,
  ropeType: 'default',
  from: [`rope_theta ${theta}`],
});
const decode = (bytes: Uint8Array, type: 'float32' | 'float16'): number[] => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return type === 'float32'
    ? Array.from({ length: bytes.length / 4 }, (_, index) => view.getFloat32(index * 4, true))
    : Array.from({ length: bytes.length / 2 }, (_, index) => {
        const bits = view.getUint16(index * 2, true);
        const exponent = (bits >> 10) & 0x1f;
        const value = exponent === 0 ? (bits & 0x3ff) * 2 ** -24 : (1 + (bits & 0x3ff) / 1024) * 2 ** (exponent - 15);
        return bits & 0x8000 ? -value : value;
      });
};

describe('rotary caches, matched and rebuilt', () => {
  it('recognises each layout and function, and continues the table exactly past the stored rows', async () => {
    const [theta, dim, scale] = [10_000, 8, 0.5]; // linear scaling, factor 2
    const tensor = await cachesIn('layouts', [
      { name: 'halves', type: 'float32', width: dim, values: table('cos', ROWS, dim, (c) => c % (dim / 2), theta, dim, scale) },
      { name: 'interleaved', type: 'float32', width: dim, values: table('sin', ROWS, dim, (c) => Math.floor(c / 2), theta, dim, scale) },
      { name: 'half', type: 'float16', width: dim / 2, values: table('cos', ROWS, dim / 2, (c) => c, theta, dim, scale) },
    ]);
    const cases = [
      ['halves', 'cos', 'float32', dim, (c: number) => c % (dim / 2)],
      ['interleaved', 'sin', 'float32', dim, (c: number) => Math.floor(c / 2)],
      ['half', 'cos', 'float16', dim / 2, (c: number) => c],
    ] as const;
    for (const [layout, fn, type, width, frequency] of cases) {
      const matched = matchRotaryCache(tensor(layout), settings(theta, dim, scale), 100);
      expect(matched).toMatchObject({ layout, function: fn, dtype: type, storedRows: ROWS, rows: 100 });
      const rebuilt = rebuildRotaryCache(matched, width);
      expect(rebuilt).toMatchObject({ name: layout, elementType: type === 'float32' ? 1 : 10, dims: [100, width] });
      const expected = table(fn, 100, width, frequency, theta, dim, scale);
      const values = decode(rebuilt.data, type);
      for (let index = 0; index < expected.length; index++) expect(Math.abs(values[index]! - expected[index]!)).toBeLessThan(type === 'float16' ? 1e-3 : 1e-6);
    }
  });

  it('EXPECTED FAILURE – a table the settings do not reproduce, or one of no rotary width, is BAD_MODEL naming it', async () => {
    const tensor = await cachesIn('wrong', [
      { name: 'cos', type: 'float32', width: 8, values: table('cos', ROWS, 8, (c) => c % 4, 10_000, 8, 1) },
      { name: 'learned', type: 'float32', width: 6, values: Array.from({ length: ROWS * 6 }, (_, index) => Math.sin(index * 7.1)) },
    ]);
    expect(() => matchRotaryCache(tensor('cos'), settings(500_000, 8), 100)).toThrow(
      /rotary cache cos \[32, 8\] cannot be rebuilt .*: its values differ from cos\/sin of the positions at those frequencies by up to/,
    );
    expect(() => matchRotaryCache(tensor('learned'), settings(10_000, 8), 100)).toThrow(/its 6 columns fit no rotary layout of rotary dim 8/);
    expect(() => matchRotaryCache(tensor('cos'), settings(10_000, 8), 100)).not.toThrow();
  });
});

describe('rotary settings from config.json', () => {
  const read = (json: Record<string, unknown>) => rotarySettingsOf(json, resolveHfConfig(json, 'config.json'));
  const phi = { model_type: 'phi', hidden_size: 64, num_attention_heads: 4 };

  it("reads rope_theta at the top level or in transformers 5's rope_parameters, and Phi's partial rotary factor", () => {
    expect(read({ ...phi, rope_theta: 25_000, partial_rotary_factor: 0.4 })).toMatchObject({ theta: 25_000, rotaryDim: 6, positionScale: 1 }); // floor(16 * 0.4)
    expect(read({ ...phi, rope_parameters: { rope_theta: 5_000, rope_type: 'default', partial_rotary_factor: 0.5 } })).toMatchObject({
      theta: 5_000,
      rotaryDim: 8,
    });
    expect(read({ ...phi })).toMatchObject({ theta: 10_000, rotaryDim: 8 }); // PhiConfig's defaults: 10,000 and 0.5
    expect(read({ ...phi }).from[0]).toContain("not stated: transformers' default");
    expect(read({ model_type: 'llama', hidden_size: 64, num_attention_heads: 4, rope_scaling: { rope_type: 'linear', factor: 4 } })).toMatchObject({
      rotaryDim: 16,
      positionScale: 0.25,
      ropeType: 'linear',
    });
  });

  it('EXPECTED FAILURE – frequencies that depend on the input length, or settings out of range, are refused naming the field', () => {
    const failure = (json: Record<string, unknown>) => {
      try {
        read(json);
      } catch (error) {
        return error as MlrbError;
      }
      throw new Error('no refusal');
    };
    expect(failure({ ...phi, rope_scaling: { type: 'dynamic', factor: 2 } })).toMatchObject({
      code: 'BAD_MODEL',
      message: expect.stringContaining("rope type 'dynamic'"),
    });
    expect(failure({ ...phi, rope_parameters: { rope_type: 'yarn', factor: 4 } }).message).toContain("rope type 'yarn'");
    expect(failure({ ...phi, rope_theta: -1 }).message).toContain('rope_theta must be a positive number');
    expect(failure({ ...phi, rope_scaling: { rope_type: 'linear' } }).message).toContain('rope_scaling.factor must be a positive number');
  });
});
