/**
 * The Python random.Random port against vectors produced by CPython 3.11.7 (any 3.x gives the same), e.g.:
 *
 *   import random
 *   r = random.Random(1234); [r.getrandbits(32) for _ in range(4)]
 *   r = random.Random(0); [r.getrandbits(32) for _ in range(3)]
 *   r = random.Random(2**40 + 5); [r.getrandbits(32) for _ in range(3)]
 *   r = random.Random(-7); [r.getrandbits(32) for _ in range(2)]
 *   r = random.Random(1234); [r.getrandbits(k) for k in (1, 7, 31, 33, 53)]
 *   r = random.Random(1234); [r._randbelow(n) for n in (1, 2, 3, 10, 1000, 2**31 + 1)]
 *   r = random.Random(1234); r.sample(range(20), 3), r.sample(range(20), 3)
 *   random.Random(seed).sample(range(n), k) for (n, k, seed) in
 *       (21, 5, 1234), (22, 5, 1234), (85, 6, 1236), (86, 6, 1236), (1000, 5, 1234), (5, 5, 1234)
 *   r = random.Random(1234); [r.sample(range(56), 3) for _ in range(4)]
 *
 * The (n, k) pairs straddle sample()'s switch from its pool to its set (n ≤ 21 for k ≤ 5, n ≤ 85 for k = 6),
 * chosen where the two methods give different draws.
 */
import { describe, expect, it } from 'vitest';
import { PythonRandom } from '../../../src/tasks/fewshot/python-random.js';

const words = (random: PythonRandom, count: number): number[] => Array.from({ length: count }, () => random.getrandbits(32));

describe('PythonRandom (CPython random.Random)', () => {
  it('seeds from an int like init_by_array, one word or several, and uses |seed|', () => {
    expect(words(new PythonRandom(1234), 4)).toEqual([4150886329, 3342196574, 1892932127, 501869158]);
    expect(words(new PythonRandom(0), 3)).toEqual([3626764237, 1654615998, 3255389356]);
    expect(words(new PythonRandom(2 ** 40 + 5), 3)).toEqual([2166296868, 2220160828, 1153647273]);
    expect(words(new PythonRandom(-7), 2)).toEqual([1390851128, 4071050724]);
  });

  it('getrandbits keeps the top bits of a word, and fills longer results low word first', () => {
    const random = new PythonRandom(1234);
    expect([1, 7, 31, 33, 53].map((bits) => random.getrandbits(bits))).toEqual([1, 99, 946466063, 501869158, 8205342134790981]);
  });

  it('_randbelow draws n.bit_length() bits and rejects values ≥ n', () => {
    const random = new PythonRandom(1234);
    expect([1, 2, 3, 10, 1000, 2 ** 31 + 1].map((n) => random.randbelow(n))).toEqual([0, 0, 0, 1, 932, 150006740]);
  });

  it('sample() switches between its pool and its set exactly where CPython does', () => {
    const sample = (n: number, k: number, seed: number): number[] => new PythonRandom(seed).sampleIndices(n, k);
    expect(sample(21, 5, 1234)).toEqual([14, 3, 0, 2, 1]); // pool
    expect(sample(22, 5, 1234)).toEqual([14, 3, 0, 2, 18]); // set
    expect(sample(85, 6, 1236)).toEqual([68, 61, 83, 33, 66, 42]); // pool (21 + 4 ** 3)
    expect(sample(86, 6, 1236)).toEqual([68, 61, 85, 33, 66, 42]); // set
    expect(sample(1000, 5, 1234)).toEqual([989, 796, 451, 119, 7]);
    expect(sample(5, 5, 1234)).toEqual([3, 0, 4, 2, 1]);
  });

  it('successive samples continue one stream (lm-eval draws once per document)', () => {
    const random = new PythonRandom(1234);
    expect([random.sampleIndices(20, 3), random.sampleIndices(20, 3)]).toEqual([
      [14, 3, 0],
      [2, 18, 1],
    ]);
    const perDocument = new PythonRandom(1234);
    expect(Array.from({ length: 4 }, () => perDocument.sampleIndices(56, 3))).toEqual([
      [49, 28, 7],
      [0, 5, 51],
      [37, 2, 42],
      [44, 5, 6],
    ]);
    expect(new PythonRandom(1234).sample(['a', 'b', 'c', 'd', 'e'], 2)).toEqual(['d', 'a']);
  });

  it('BAD CALL – rejects a sample larger than the population, and bad seeds', () => {
    expect(() => new PythonRandom(1234).sampleIndices(3, 4)).toThrow(RangeError);
    expect(() => new PythonRandom(1.5)).toThrow(RangeError);
    expect(() => new PythonRandom(1234).getrandbits(54)).toThrow(RangeError);
  });
});
