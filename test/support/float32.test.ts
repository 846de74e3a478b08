/** The tests' float32 fused multiply-add (test/support/float32.ts) rounds once, even where double rounding would not. */
import { describe, expect, it } from 'vitest';
import { fmaf32 } from './float32.js';

describe('fmaf32', () => {
  it('rounds a·b + c once: an exact product on a float32 tie, nudged up by a c the double sum drops', () => {
    const a = Math.fround(1 + 2 ** -12);
    // a² = 1 + 2^-11 + 2^-24: a tie between two float32s; + 2^-60 is above it, lost in a double.
    expect(Math.fround(a * a + 2 ** -60)).toBe(1 + 2 ** -11); // double rounding: the tie goes to even
    expect(fmaf32(a, a, 2 ** -60)).toBe(1 + 2 ** -11 + 2 ** -23);
    expect(fmaf32(a, a, -(2 ** -60))).toBe(1 + 2 ** -11);
    expect(fmaf32(a, a, 0)).toBe(1 + 2 ** -11); // an exact tie rounds to even
  });

  it('equals the plain product and sum where no tie is involved, subnormal results included', () => {
    expect(fmaf32(3, 0.25, 1)).toBe(1.75);
    expect(fmaf32(Math.fround(1.1), Math.fround(2 ** -130), 0)).toBe(Math.fround(Math.fround(1.1) * 2 ** -130));
    expect(fmaf32(-2, 2, 4)).toBe(0);
  });
});
