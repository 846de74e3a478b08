/**
 * Candidate pairs for many units in any order, by locality-sensitive hashing: each table hashes a unit to the signs
 * of LSH_BITS sparse random projections (LSH_TERMS coordinates with random signs each), so two units at angle θ
 * agree on a bit with probability 1 - θ/π. A fine-tuned copy (cosine 0.96, 16°) shares a whole key in a table about
 * a third of the time and a key in one of LSH_TABLES tables 99 % of the time, while an unrelated unit shares one by
 * chance (about base count / 2^LSH_BITS per table). Only colliding pairs are scored in full: a Phi-2 layer's
 * permuted FFN channels are matched in well under a second instead of 10^10 multiplications.
 */
import type { UnitVectors } from './units.js';

export const LSH_TABLES = 12;
export const LSH_BITS = 12;
export const LSH_TERMS = 16;

/** A fixed-seed generator (mulberry32): the same projections on every run, so reports are reproducible. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Per table and bit, LSH_TERMS coordinates and their signs (+1 / -1). */
function projections(length: number): { coordinates: Int32Array; signs: Float32Array } {
  const random = generator(0x5eed);
  const size = LSH_TABLES * LSH_BITS * LSH_TERMS;
  const coordinates = Int32Array.from({ length: size }, () => Math.floor(random() * length));
  const signs = Float32Array.from({ length: size }, () => (random() < 0.5 ? -1 : 1));
  return { coordinates, signs };
}

function key(units: UnitVectors, unit: number, table: number, planes: ReturnType<typeof projections>): number {
  let bits = 0;
  const start = unit * units.length;
  for (let bit = 0; bit < LSH_BITS; bit++) {
    let sum = 0;
    const first = (table * LSH_BITS + bit) * LSH_TERMS;
    for (let term = first; term < first + LSH_TERMS; term++) sum += planes.signs[term]! * units.vectors[start + planes.coordinates[term]!]!;
    bits = (bits << 1) | (sum > 0 ? 1 : 0);
  }
  return bits;
}

/** For each of `units`, the `candidates` (base units) it collides with in any table. */
export function collidingPairs(pruned: UnitVectors, base: UnitVectors, units: readonly number[], candidates: readonly number[]): Map<number, Set<number>> {
  const planes = projections(pruned.length);
  const found = new Map<number, Set<number>>(units.map((unit) => [unit, new Set<number>()]));
  for (let table = 0; table < LSH_TABLES; table++) {
    const buckets = new Map<number, number[]>();
    for (const candidate of candidates) {
      const bucket = key(base, candidate, table, planes);
      const list = buckets.get(bucket);
      if (list) list.push(candidate);
      else buckets.set(bucket, [candidate]);
    }
    for (const unit of units) for (const candidate of buckets.get(key(pruned, unit, table, planes)) ?? []) found.get(unit)!.add(candidate);
  }
  return found;
}
