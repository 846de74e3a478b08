/**
 * Which base unit each pruned unit came from, by cosine similarity of unit vectors (lineage-units).
 *   - Few units (heads): every pair is scored, then assigned greedily from the most similar pair down, so each base
 *     unit is used once.
 *   - Many units (FFN channels, 10,240 per Phi-2 layer): a full matrix would cost 10^10 multiplications per layer.
 *     Slicing with sorted indices keeps order, so each pruned unit is first looked for from the last matched base unit
 *     on, within the removed count: linear work for the common case. Units it misses, or every unit when the first
 *     PROBE_UNITS mostly miss (pruning that picked channels by an unsorted top-k permutes them), are paired by hashing
 *     (lineage-lsh) and the pairs scored in full; the few hashing misses are searched among all free base units on
 *     COARSE_COORDINATES of their vector, the best COARSE_CANDIDATES scored in full. When half the probe units match
 *     nothing even then, the layer is not derived and the rest are not searched: an unrelated model fails fast.
 * Layers are aligned in order (layer removal keeps the others' order) by the best total similarity.
 */
import { collidingPairs } from './lsh.js';
import type { UnitVectors } from './units.js';

/** Cosine at or above which a unit counts as derived: a fine-tuned copy stays near 1, unrelated units near 0. */
export const MATCH_THRESHOLD = 0.5;
/** Above this many pruned × base pairs, the in-order and coarse searches replace scoring every pair. */
export const EXHAUSTIVE_PAIRS = 4096;
export const PROBE_UNITS = 64;
export const COARSE_COORDINATES = 32;
export const COARSE_CANDIDATES = 4;
/** Units the coarse search still looks at after hashing: the few a fine-tuned copy's hashes can miss. */
export const MAX_COARSE_UNITS = 512;

export interface UnitAssignment {
  /** Base unit per pruned unit, -1 when none reached MATCH_THRESHOLD. */
  readonly origin: Int32Array;
  /** The matched (or best seen) similarity per pruned unit; NaN when the unit was not searched. */
  readonly similarity: Float32Array;
}

type Pair = readonly [similarity: number, unit: number, candidate: number];

export function cosine(a: UnitVectors, i: number, b: UnitVectors, j: number): number {
  let sum = 0;
  const left = i * a.length;
  const right = j * b.length;
  for (let offset = 0; offset < a.length; offset++) sum += a.vectors[left + offset]! * b.vectors[right + offset]!;
  return sum;
}

export function assignUnits(pruned: UnitVectors, base: UnitVectors): UnitAssignment {
  const assignment = { origin: new Int32Array(pruned.count).fill(-1), similarity: new Float32Array(pruned.count).fill(Number.NaN) };
  const all = range(pruned.count);
  if (pruned.count * base.count <= EXHAUSTIVE_PAIRS) {
    resolve(
      assignment,
      all.flatMap((unit) => range(base.count).map((candidate): Pair => [cosine(pruned, unit, base, candidate), unit, candidate])),
    );
    return assignment;
  }
  const probe = all.slice(0, PROBE_UNITS);
  const unmatched = (units: readonly number[]): number[] => units.filter((unit) => assignment.origin[unit] === -1);
  const inOrder = searchInOrder(pruned, base, assignment, probe.length);
  if (matchedCount(assignment, probe) >= probe.length / 2) {
    searchInOrder(pruned, base, assignment, pruned.count, inOrder);
  } else {
    searchHashed(pruned, base, assignment, unmatched(probe));
    if (matchedCount(assignment, probe) < probe.length / 2) return assignment; // not derived: the rest stay unsearched
  }
  searchHashed(pruned, base, assignment, unmatched(all));
  searchCoarse(pruned, base, assignment, unmatched(all).slice(0, MAX_COARSE_UNITS));
  return assignment;
}

function freeCandidates(assignment: UnitAssignment, count: number): number[] {
  const taken = new Set(assignment.origin.filter((origin) => origin >= 0));
  return range(count).filter((candidate) => !taken.has(candidate));
}

/** `units` against the free base units they collide with (lineage-lsh), scored in full and resolved greedily. */
function searchHashed(pruned: UnitVectors, base: UnitVectors, assignment: UnitAssignment, units: readonly number[]): void {
  if (units.length === 0) return;
  const pairs: Pair[] = [];
  for (const [unit, candidates] of collidingPairs(pruned, base, units, freeCandidates(assignment, base.count))) {
    for (const candidate of candidates) pairs.push([cosine(pruned, unit, base, candidate), unit, candidate]);
  }
  resolve(assignment, pairs);
}

interface InOrderState {
  next: number;
  unit: number;
}

/** Units from `state.unit` up to `end`, each matched to the first base unit at or above the threshold in its window. */
function searchInOrder(
  pruned: UnitVectors,
  base: UnitVectors,
  assignment: UnitAssignment,
  end: number,
  state: InOrderState = { next: 0, unit: 0 },
): InOrderState {
  const removed = Math.max(0, base.count - pruned.count);
  for (; state.unit < end; state.unit++) {
    const unit = state.unit;
    let best = Number.NEGATIVE_INFINITY;
    for (let candidate = state.next; candidate <= Math.min(base.count - 1, unit + removed); candidate++) {
      const value = cosine(pruned, unit, base, candidate);
      best = Math.max(best, value);
      if (value >= MATCH_THRESHOLD) {
        assignment.origin[unit] = candidate;
        best = value;
        state.next = candidate + 1;
        break;
      }
    }
    if (Number.isFinite(best)) assignment.similarity[unit] = best;
  }
  return state;
}

/** `units` against every free base unit on a few coordinates, the best few scored in full, then resolved greedily. */
function searchCoarse(pruned: UnitVectors, base: UnitVectors, assignment: UnitAssignment, units: readonly number[]): void {
  if (units.length === 0) return;
  const free = freeCandidates(assignment, base.count);
  const stride = Math.max(1, Math.floor(pruned.length / COARSE_COORDINATES));
  const pairs: Pair[] = [];
  const coarse = new Float32Array(free.length);
  for (const unit of units) {
    const left = unit * pruned.length;
    free.forEach((candidate, index) => {
      let sum = 0;
      for (let offset = 0, right = candidate * base.length; offset < pruned.length; offset += stride)
        sum += pruned.vectors[left + offset]! * base.vectors[right + offset]!;
      coarse[index] = sum;
    });
    const best = topIndices(coarse, COARSE_CANDIDATES);
    for (const index of best) pairs.push([cosine(pruned, unit, base, free[index]!), unit, free[index]!]);
  }
  resolve(assignment, pairs);
}

/** Greedy from the most similar pair down; units left unmatched keep the best similarity seen. */
function resolve(assignment: UnitAssignment, pairs: Pair[]): void {
  for (const [value, unit] of pairs) if (!(assignment.similarity[unit]! >= value)) assignment.similarity[unit] = value;
  pairs.sort((a, b) => b[0] - a[0]);
  const taken = new Set(assignment.origin.filter((origin) => origin >= 0));
  for (const [value, unit, candidate] of pairs) {
    if (value < MATCH_THRESHOLD) break;
    if (assignment.origin[unit] !== -1 || taken.has(candidate)) continue;
    assignment.origin[unit] = candidate;
    assignment.similarity[unit] = value;
    taken.add(candidate);
  }
}

/** Indices of the `count` largest values, largest first. */
function topIndices(values: Float32Array, count: number): number[] {
  const best: number[] = [];
  for (let index = 0; index < values.length; index++) {
    const value = values[index]!;
    if (best.length === count && value <= values[best[count - 1]!]!) continue;
    let position = best.length;
    while (position > 0 && values[best[position - 1]!]! < value) position--;
    best.splice(position, 0, index);
    if (best.length > count) best.pop();
  }
  return best;
}

function matchedCount(assignment: UnitAssignment, units: readonly number[]): number {
  return units.filter((unit) => assignment.origin[unit]! >= 0).length;
}

/** Mean over a few evenly spread pruned units of their best similarity in `base`: how alike two layers are. */
export function layerSimilarity(pruned: UnitVectors, base: UnitVectors, probes = 4): number {
  const count = Math.min(probes, pruned.count);
  if (count === 0 || base.count === 0) return 0;
  let sum = 0;
  for (let probe = 0; probe < count; probe++) {
    const unit = Math.floor((probe * pruned.count) / count);
    let best = Number.NEGATIVE_INFINITY;
    for (let candidate = 0; candidate < base.count; candidate++) best = Math.max(best, cosine(pruned, unit, base, candidate));
    sum += best;
  }
  return sum / count;
}

/**
 * Pruned layer → base layer (or -1), in order, maximizing the summed similarity of the matched pairs; pairs below
 * MATCH_THRESHOLD are never matched. A layer the ordered pass leaves unmatched then takes the base layer it is most
 * like, if that one reaches MATCH_THRESHOLD, even one another layer already came from: cross-layer sharing (a
 * layer that reuses another's weights, copied) derives from the base layer both came from.
 */
export function alignLayers(scores: readonly (readonly number[])[], baseCount: number): number[] {
  const origin = alignInOrder(scores, baseCount);
  return origin.map((matched, row) => {
    if (matched >= 0) return matched;
    const best = scores[row]!.reduce((found, score, column) => (score >= MATCH_THRESHOLD && (found < 0 || score > scores[row]![found]!) ? column : found), -1);
    return best;
  });
}

function alignInOrder(scores: readonly (readonly number[])[], baseCount: number): number[] {
  const rows = scores.length;
  const gain = (i: number, j: number): number => (scores[i]![j]! >= MATCH_THRESHOLD ? scores[i]![j]! : Number.NEGATIVE_INFINITY);
  const best = Array.from({ length: rows + 1 }, () => new Float64Array(baseCount + 1));
  for (let i = 1; i <= rows; i++) {
    for (let j = 1; j <= baseCount; j++) best[i]![j] = Math.max(best[i - 1]![j]!, best[i]![j - 1]!, best[i - 1]![j - 1]! + gain(i - 1, j - 1));
  }
  const origin = new Array<number>(rows).fill(-1);
  for (let i = rows, j = baseCount; i > 0 && j > 0; ) {
    if (best[i]![j] === best[i - 1]![j]) i--;
    else if (best[i]![j] === best[i]![j - 1]) j--;
    else {
      origin[i - 1] = j - 1;
      i--;
      j--;
    }
  }
  return origin;
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}
