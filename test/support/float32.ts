/**
 * float32 arithmetic in JS doubles, rounded as x86 SIMD rounds it: Math.fround after each + and * is exact
 * (a double holds any float32 sum or product before its single rounding), but a fused multiply-add is not,
 * since a*b + c rounded first to double and then to float32 can land on a float32 tie that the exact value
 * is not on. fmaf32 corrects for that.
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The float32 with these bits. */
export function floatFromBits(bits: number): number {
  u32[0] = bits >>> 0;
  return f32[0] as number;
}

export function bitsOfFloat(value: number): number {
  f32[0] = value;
  return u32[0] as number;
}

/** The float32 neighbour of a finite float32 `value` towards +∞ (up) or -∞. */
function nextFloat(value: number, up: boolean): number {
  if (value === 0) return floatFromBits(up ? 1 : 0x80000001);
  const bits = bitsOfFloat(value);
  const awayFromZero = value > 0 === up;
  return floatFromBits(awayFromZero ? bits + 1 : bits - 1);
}

/** a·b + c for float32 a, b, c with one rounding to float32 (round to nearest even), as VFMADD does. */
export function fmaf32(a: number, b: number, c: number): number {
  const product = a * b; // exact: 24 + 24 significant bits fit a double's 53
  const sum = product + c;
  // TwoSum: sum + error is exactly product + c.
  const productPart = sum - c;
  const error = product - productPart + (c - (sum - productPart));
  const rounded = Math.fround(sum);
  if (error === 0 || rounded === sum) return rounded; // sum exact, or a float32 that product + c rounds to anyway
  // sum lies between `rounded` and its neighbour on sum's side; only a tie between them can go the wrong way.
  const neighbour = nextFloat(rounded, sum > rounded);
  const midpoint = (rounded + neighbour) / 2; // exact: 25 significant bits
  if (sum !== midpoint) return rounded;
  return error > 0 === neighbour > rounded ? neighbour : rounded;
}
