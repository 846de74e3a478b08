/**
 * A rotary cos/sin cache an export stored with fewer rows than the DRAM measurement runs tokens, rebuilt for the
 * measurement's copy of the graph. The kit runs the Hugging Face model, which computes rotary positions on the fly,
 * so a short cache is the export's artefact, not a limit of the model. The rebuilt table must be the stored one
 * continued: every stored row is first compared with cos (or sin) of position · θ^(-2i/d) at config.json's settings
 * (rotary-settings), in one of the layouts exporters write:
 *   halves       [rows, d]   each frequency twice, [f0 … f(d/2-1), f0 … f(d/2-1)] (Hugging Face's cat(freqs, freqs))
 *   interleaved  [rows, d]   [f0, f0, f1, f1 …] (GPT-J's repeat_interleave)
 *   half         [rows, d/2] each frequency once (ONNX Runtime's RotaryEmbedding cos_cache)
 * A table that matches none is refused: whatever it holds (a learned table used like a rotary one, other
 * frequencies), nobody knows its rows past the stored ones, so the graph cannot be measured at that length.
 */
import { MlrbError } from '../../errors.js';
import { hasReadableValues, readTensorValues } from './tensor-values.js';
import type { ModelTensor } from './model-graph.js';
import type { RotarySettings } from './rotary-settings.js';
import { formatCount } from '../units.js';

export type RotaryLayout = 'halves' | 'interleaved' | 'half';
const LAYOUTS: readonly RotaryLayout[] = ['halves', 'interleaved', 'half'];
/** ONNX TensorProto.DataType codes of the float types a cache may be stored in. */
const ELEMENT_TYPES = { float32: 1, float16: 10, bfloat16: 16 } as const;
type CacheDtype = keyof typeof ELEMENT_TYPES;

/** What the report says about a cache the measurement rebuilt. */
export interface RebuiltRotaryCache {
  readonly tensor: string;
  readonly storedRows: number;
  readonly rows: number;
  readonly function: 'cos' | 'sin';
  readonly layout: RotaryLayout;
  readonly dtype: CacheDtype;
  /** The largest difference between a stored value and the same value recomputed: how closely the settings match. */
  readonly maxStoredError: number;
  readonly settings: RotarySettings;
}

/** The table for one session: what replaces the stored initializer (NativeSessionOptions.initializerOverrides). */
export interface CacheOverride {
  readonly name: string;
  readonly elementType: number;
  readonly dims: readonly number[];
  readonly data: Uint8Array;
}

/** The frequency index each column of a `width`-wide table holds in `layout`, or null when the width does not fit it. */
function columnFrequencies(layout: RotaryLayout, width: number, rotaryDim: number): Int32Array | null {
  const half = rotaryDim / 2;
  if (width !== (layout === 'half' ? half : rotaryDim)) return null;
  return Int32Array.from({ length: width }, (_, column) => (layout === 'halves' ? column % half : layout === 'interleaved' ? Math.floor(column / 2) : column));
}

/** `rows` × columns of cos or sin of position · positionScale · θ^(-2i/d), computed in float64. */
function rotaryTable(fn: 'cos' | 'sin', rows: number, frequencyOfColumn: Int32Array, settings: RotarySettings): Float64Array {
  const width = frequencyOfColumn.length;
  const inverse = Array.from({ length: settings.rotaryDim / 2 }, (_, i) => settings.theta ** (-(2 * i) / settings.rotaryDim));
  const table = new Float64Array(rows * width);
  const apply = fn === 'cos' ? Math.cos : Math.sin;
  for (let row = 0; row < rows; row++) {
    const position = row * settings.positionScale;
    for (let column = 0; column < width; column++) table[row * width + column] = apply(position * inverse[frequencyOfColumn[column]!]!);
  }
  return table;
}

/** Stored values are rounded to their type, and exporters compute angles in float32 (an error of ~1e-5 at row 2,048). */
function tolerance(dtype: CacheDtype): number {
  return { float32: 1e-3, float16: 2e-3, bfloat16: 1e-2 }[dtype];
}

function maxDifference(stored: Float32Array | Float64Array, expected: Float64Array): number {
  let largest = 0;
  for (let index = 0; index < stored.length; index++) largest = Math.max(largest, Math.abs(stored[index]! - expected[index]!));
  return largest;
}

/**
 * The cache matched against the settings and ready to rebuild at `rows` rows; BAD_MODEL naming the tensor when its
 * stored values are no rotary table of those settings.
 */
export function matchRotaryCache(tensor: ModelTensor, settings: RotarySettings, rows: number): RebuiltRotaryCache {
  const [storedRows, width] = tensor.dims as [number, number];
  if (!(tensor.dtype in ELEMENT_TYPES)) {
    throw new MlrbError('BAD_MODEL', `rotary cache ${tensor.name} is stored as ${tensor.dtype}; only float32, float16 and bfloat16 caches are rebuilt`, {
      tensor: tensor.name,
    });
  }
  if (tensor.source !== 'initializer' || tensor.graph !== '' || !hasReadableValues(tensor)) {
    throw new MlrbError(
      'BAD_MODEL',
      `rotary cache ${tensor.name} is not a main-graph initializer with raw data (${tensor.source}, ${tensor.location}); only those are rebuilt`,
      { tensor: tensor.name },
    );
  }
  const dtype = tensor.dtype as CacheDtype;
  const stored = readTensorValues(tensor);
  let best: { fn: 'cos' | 'sin'; layout: RotaryLayout; error: number } | null = null;
  for (const layout of LAYOUTS) {
    const frequencies = columnFrequencies(layout, width, settings.rotaryDim);
    if (frequencies === null) continue;
    for (const fn of ['cos', 'sin'] as const) {
      const error = maxDifference(stored, rotaryTable(fn, storedRows, frequencies, settings));
      if (best === null || error < best.error) best = { fn, layout, error };
    }
  }
  if (best === null || best.error > tolerance(dtype)) {
    const why =
      best === null
        ? `its ${formatCount(width)} columns fit no rotary layout of rotary dim ${settings.rotaryDim}`
        : `its values differ from cos/sin of the positions at those frequencies by up to ${best.error.toPrecision(3)}`;
    throw new MlrbError(
      'BAD_MODEL',
      `rotary cache ${tensor.name} [${tensor.dims.join(', ')}] cannot be rebuilt from config.json's rotary settings (${settings.from.join(', ')}): ${why}`,
      {
        tensor: tensor.name,
      },
    );
  }
  return { tensor: tensor.name, storedRows, rows, function: best.fn, layout: best.layout, dtype, maxStoredError: best.error, settings };
}

function toFloat16Bits(value: number): number {
  const bits = new Uint32Array(Float32Array.of(value).buffer)[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  const mantissa = bits & 0x7fffff;
  if (exponent >= 0x1f) return sign | 0x7c00; // (rotary values lie in [-1, 1]: no infinities or NaNs to keep)
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    const shift = 14 - exponent;
    const full = mantissa | 0x800000;
    const rest = full & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    const rounded = (full >>> shift) + (rest > halfway || (rest === halfway && ((full >>> shift) & 1) === 1) ? 1 : 0);
    return sign | rounded;
  }
  const rest = mantissa & 0x1fff;
  const value16 = (exponent << 10) | (mantissa >>> 13);
  return sign | (value16 + (rest > 0x1000 || (rest === 0x1000 && (value16 & 1) === 1) ? 1 : 0));
}

function toBfloat16Bits(value: number): number {
  const bits = new Uint32Array(Float32Array.of(value).buffer)[0]!;
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

/** The rebuilt table, `cache.rows` rows in the stored layout and type, as the session's replacement initializer. */
export function rebuildRotaryCache(cache: RebuiltRotaryCache, width: number): CacheOverride {
  const table = rotaryTable(cache.function, cache.rows, columnFrequencies(cache.layout, width, cache.settings.rotaryDim)!, cache.settings);
  let data: Uint8Array;
  if (cache.dtype === 'float32') {
    data = new Uint8Array(Float32Array.from(table).buffer);
  } else {
    const encode = cache.dtype === 'float16' ? toFloat16Bits : toBfloat16Bits;
    data = new Uint8Array(Uint16Array.from(table, encode).buffer);
  }
  return { name: cache.tensor, elementType: ELEMENT_TYPES[cache.dtype], dims: [cache.rows, width], data };
}
