/**
 * Which base unit each pruned unit came from, by cosine similarity of unit vectors (lineage-units).
 *   - Few units (heads): the whole similarity matrix, assigned greedily from the most similar pair down, so each
 *     base unit is used once.
 *   - Many units (FFN channels, 10,240 per Phi-2 layer): slicing keeps order, so each pruned unit is looked for
 *     from the last matched base unit on, within the removed count; the work is linear for a genuine pruning. A
 *     unit not found there (a permuted channel) is searched among all base units left, up to MAX_LEFTOVERS of them.
 *     When half the first PROBE_UNITS find nothing, the layer is not derived and the rest are not searched: an
 *     unrelated model fails fast instead of costing a full matrix.
 * Layers are aligned in order (layer removal keeps the others' order) by the best total similarity, allowing
 * pruned layers without an origin.
 */
import type { UnitVectors } from './lineage-units.js';

/** Cosine at or above which a unit counts as derived: a fine-tuned copy stays near 1, unrelated units near 0. */
export const MATCH_THRESHOLD = 0.5;
/** Above this many pruned × base pairs, the in-order search replaces the full matrix. */
export const EXHAUSTIVE_PAIRS = 4096;
export const PROBE_UNITS = 64;
export const MAX_LEFTOVERS = 512;

export interface UnitAssignment {
  /** Base unit per pruned unit, -1 when none reached MATCH_THRESHOLD. */
  readonly origin: Int32Array;
  /** The matched (or best seen) similarity per pruned unit; NaN when the unit was not searched. */
  readonly similarity: Float32Array;
}

export function cosine(a: UnitVectors, i: number, b: UnitVectors, j: number): number {
  let sum = 0;
  const left = i * a.length;
  const right = j * b.length;
  for (let offset = 0; offset < a.length; offset++) sum += a.vectors[left + offset]! * b.vectors[right + offset]!;
  return sum;
}

export function assignUnits(pruned: UnitVectors, base: UnitVectors): UnitAssignment {
  return pruned.count * base.count <= EXHAUSTIVE_PAIRS ? assignExhaustive(pruned, base) : assignInOrder(pruned, base);
}

function assignExhaustive(pruned: UnitVectors, base: UnitVectors, rows: readonly number[] = range(pruned.count), free?: Uint8Array): UnitAssignment {
  const origin = new Int32Array(pruned.count).fill(-1);
  const similarity = new Float32Array(pruned.count).fill(Number.NaN);
  const columns = range(base.count).filter((column) => free === undefined || free[column] === 1);
  const pairs: [number, number, number][] = [];
  for (const row of rows) {
    for (const column of columns) {
      const value = cosine(pruned, row, base, column);
      pairs.push([value, row, column]);
      if (!(similarity[row]! >= value)) similarity[row] = value; // best seen, for units left unmatched
    }
  }
  pairs.sort((a, b) => b[0] - a[0]);
  const taken = new Set<number>();
  for (const [value, row, column] of pairs) {
    if (value < MATCH_THRESHOLD) break;
    if (origin[row] !== -1 || taken.has(column)) continue;
    origin[row] = column;
    similarity[row] = value;
    taken.add(column);
  }
  return { origin, similarity };
}

function assignInOrder(pruned: UnitVectors, base: UnitVectors): UnitAssignment {
  const origin = new Int32Array(pruned.count).fill(-1);
  const similarity = new Float32Array(pruned.count).fill(Number.NaN);
  const free = new Uint8Array(base.count).fill(1);
  const leftovers: number[] = [];
  const removed = Math.max(0, base.count - pruned.count);
  let next = 0;
  let found = 0;
  for (let unit = 0; unit < pruned.count; unit++) {
    if (unit === PROBE_UNITS && found < PROBE_UNITS / 2) return { origin, similarity }; // not derived: stop here
    let best = Number.NEGATIVE_INFINITY;
    for (let candidate = next; candidate <= Math.min(base.count - 1, unit + removed); candidate++) {
      const value = cosine(pruned, unit, base, candidate);
      best = Math.max(best, value);
      if (value >= MATCH_THRESHOLD) {
        origin[unit] = candidate;
        best = value;
        free[candidate] = 0;
        next = candidate + 1;
        found++;
        break;
      }
    }
    similarity[unit] = Number.isFinite(best) ? best : Number.NaN;
    if (origin[unit] === -1) leftovers.push(unit);
  }
  if (leftovers.length === 0) return { origin, similarity };
  const searched = leftovers.slice(0, MAX_LEFTOVERS);
  const rescued = assignExhaustive(pruned, base, searched, free);
  for (const unit of searched) {
    origin[unit] = rescued.origin[unit]!;
    const seen = similarity[unit]!;
    similarity[unit] = origin[unit] !== -1 || Number.isNaN(seen) ? rescued.similarity[unit]! : Math.max(seen, rescued.similarity[unit]!);
  }
  return { origin, similarity };
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
 * MATCH_THRESHOLD are never matched.
 */
export function alignLayers(scores: readonly (readonly number[])[], baseCount: number): number[] {
  const rows = scores.length;
  const gain = (i: number, j: number): number => (scores[i]![j]! >= MATCH_THRESHOLD ? scores[i]![j]! : Number.NEGATIVE_INFINITY);
  const best = Array.from({ length: rows + 1 }, () => new Float64Array(baseCount + 1));
  for (let i = 1; i <= rows; i++) {
    for (let j = 1; j <= baseCount; j++) best[i]![j] = Math.max(best[i - 1]![j]!, best[i]![j - 1]!, best[i - 1]![j - 1]! + gain(i - 1, j - 1));
  }
  const origin = new Array<number>(rows).fill(-1);
  for (let i = rows, j = baseCount; i > 0 && j > 0;) {
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
