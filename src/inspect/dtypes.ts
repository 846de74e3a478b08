/**
 * TensorProto.DataType codes as the inspection reports them. The native reader knows only their bit
 * widths (to size payloads); names and categories, which drive the verdicts, live here.
 */

/**
 * float: what the edge tracks accept as weights (bfloat16 and float64 are reported separately);
 * low-precision: the types quantized weights are stored in; integer / bool / string: shapes, ids, masks.
 */
export type DtypeCategory = 'float' | 'low-precision' | 'integer' | 'bool' | 'string' | 'complex' | 'unknown';

export interface DtypeFacts {
  readonly name: string;
  readonly bits: number;
  readonly category: DtypeCategory;
}

const DTYPES: readonly DtypeFacts[] = [
  { name: 'undefined', bits: 0, category: 'unknown' },
  { name: 'float32', bits: 32, category: 'float' },
  { name: 'uint8', bits: 8, category: 'low-precision' },
  { name: 'int8', bits: 8, category: 'low-precision' },
  { name: 'uint16', bits: 16, category: 'low-precision' },
  { name: 'int16', bits: 16, category: 'low-precision' },
  { name: 'int32', bits: 32, category: 'integer' },
  { name: 'int64', bits: 64, category: 'integer' },
  { name: 'string', bits: 0, category: 'string' },
  { name: 'bool', bits: 8, category: 'bool' },
  { name: 'float16', bits: 16, category: 'float' },
  { name: 'float64', bits: 64, category: 'float' },
  { name: 'uint32', bits: 32, category: 'integer' },
  { name: 'uint64', bits: 64, category: 'integer' },
  { name: 'complex64', bits: 64, category: 'complex' },
  { name: 'complex128', bits: 128, category: 'complex' },
  { name: 'bfloat16', bits: 16, category: 'float' },
  { name: 'float8e4m3fn', bits: 8, category: 'low-precision' },
  { name: 'float8e4m3fnuz', bits: 8, category: 'low-precision' },
  { name: 'float8e5m2', bits: 8, category: 'low-precision' },
  { name: 'float8e5m2fnuz', bits: 8, category: 'low-precision' },
  { name: 'uint4', bits: 4, category: 'low-precision' },
  { name: 'int4', bits: 4, category: 'low-precision' },
  { name: 'float4e2m1', bits: 4, category: 'low-precision' },
  { name: 'float8e8m0', bits: 8, category: 'low-precision' },
  { name: 'uint2', bits: 2, category: 'low-precision' },
  { name: 'int2', bits: 2, category: 'low-precision' },
  { name: 'float6e2m3', bits: 6, category: 'low-precision' },
  { name: 'float6e3m2', bits: 6, category: 'low-precision' },
];

export function dtypeFacts(code: number): DtypeFacts {
  return DTYPES[code] ?? { name: `dtype${code}`, bits: 0, category: 'unknown' };
}

/**
 * Types that only ever hold quantized values: a tensor of one of these is a violation wherever it is.
 * (int8 / uint8 / int16 / uint16 also hold masks and ids, so for those the graph use decides.)
 */
export function isAlwaysQuantized(dtype: string): boolean {
  return /^(float8|float6e|float4e|u?int4$|u?int2$)/.test(dtype); // float6e…, not float64
}

/** A Cast `to` code that yields fp16 / fp32 / bf16 / fp64 values. */
export function isFloatDtypeCode(code: number): boolean {
  return dtypeFacts(code).category === 'float';
}

/**
 * Storage a quantized weight can hide in: the low-precision types, the wider integers values are packed into, bool
 * bit-planes and strings (a string tensor casts to floats).
 */
export function isCodeStorage(category: DtypeCategory): boolean {
  return category === 'low-precision' || category === 'integer' || category === 'bool' || category === 'string';
}
