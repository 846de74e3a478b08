/**
 * Lineage when the hidden basis was rotated, as SliceGPT does: every layer reads and writes its own orthogonal basis
 * of the residual stream (then sliced to fewer dimensions), so a hidden channel of the model is no channel of the base
 * and units compared over sampled hidden channels match nothing. What no rotation of the hidden basis changes are the
 * inner products between vectors that live in the same basis, and head space is never rotated. So units are compared
 * by signatures made of such inner products (cosines of centred vectors, lineage-vectors):
 *   - a query head: its q rows against its key/value head's k and v rows, its q rows among themselves and its o
 *     columns among themselves, at HEAD_INDICES indices of head_dim;
 *   - a key/value head: its k rows against its v rows, and each among themselves;
 *   - an FFN channel, once the layer's heads are matched: its up (and gate) row against ANCHORS q rows of matched
 *     heads, and its down column against as many o columns: vectors that correspond in both models and share the
 *     unit's basis.
 * Reading rows carry the layer's norm scale (SliceGPT folds it into them). A derived unit's signature stays close (a
 * slice keeps the high-variance directions: for weights without structure the correlation is about the square root
 * of the share of the hidden size kept), an unrelated unit's is independent of the base's. Layers are aligned by
 * their heads, as in lineage-layers; units are then assigned as there (lineage-assign).
 */
import type { LayerShape } from '../graph/architecture.js';
import { alignLayers, assignUnits, layerSimilarity, type UnitAssignment } from './assign.js';
import { unitLineage, type LayerLineage } from './report.js';
import { sampleChannels } from './sample.js';
import type { WeightSource } from './source.js';
import type { UnitVectors } from './units.js';
import { anchorCosines, centredUnitRows, readingScale, roleUnits, selectedUnits, type RoleUnits } from './vectors.js';

/** Indices of head_dim each head's signature is built over (all of them for smaller heads). */
export const HEAD_INDICES = 16;
/** Vectors of matched heads an FFN channel is compared with, on each side (reading and writing). */
export const ANCHORS = 16;

/** Units × length, each unit centred and of length 1. */
interface Rows {
  readonly values: Float32Array;
  readonly length: number;
}

interface LayerHeads {
  readonly layer: LayerShape;
  readonly hidden: number;
  /** The chosen q rows and o columns, HEAD_INDICES per head (anchors for the FFN channels). */
  readonly q: Rows | null;
  readonly o: Rows | null;
  readonly heads: UnitVectors | null;
  readonly kvHeads: UnitVectors | null;
}

const dot = (a: Float32Array, i: number, b: Float32Array, j: number, length: number): number => {
  let sum = 0;
  for (let offset = 0; offset < length; offset++) sum += a[i * length + offset]! * b[j * length + offset]!;
  return sum;
};

/** One signature per unit, filled in unit order, each centred and of length 1. */
function signatures(rows: number, fill: (unit: number, out: number[]) => void): UnitVectors {
  const all: number[] = [];
  for (let unit = 0; unit < rows; unit++) fill(unit, all);
  return { count: rows, length: all.length / Math.max(1, rows), vectors: centredUnitRows(Float32Array.from(all), all.length / Math.max(1, rows)) };
}

function headsOf(source: WeightSource, layer: LayerShape, headDim: number, indices: readonly number[]): LayerHeads {
  const hidden = source.shape.hidden ?? 0;
  const [q, k, v, o] = (['q', 'k', 'v', 'o'] as const).map((role) => roleUnits(layer, role));
  const none = { layer, hidden, q: null, o: null, heads: null, kvHeads: null };
  if (!q || !k || !v || !o || q.count % headDim !== 0 || k.count % headDim !== 0 || o.count !== q.count) return none;
  const [heads, kvHeads] = [q.count / headDim, k.count / headDim];
  if (heads % kvHeads !== 0) return none;
  const scale = readingScale(source.graph, layer, source.shape.roles, 'attention', hidden);
  const chosen = (count: number): number[] =>
    Array.from({ length: count * indices.length }, (_, slot) => Math.floor(slot / indices.length) * headDim + indices[slot % indices.length]!);
  const read = (units: RoleUnits, count: number, withScale: boolean): Rows => {
    const values = selectedUnits(source.graph, units, chosen(count), withScale ? scale : null);
    return { values, length: values.length / (count * indices.length) };
  };
  const [qRows, kRows, vRows, oRows] = [read(q, heads, true), read(k, kvHeads, true), read(v, kvHeads, true), read(o, heads, false)];
  const n = indices.length;
  const within = (rows: Rows, unit: number, out: number[]): void => {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) out.push(dot(rows.values, unit * n + i, rows.values, unit * n + j, rows.length));
  };
  const across = (a: Rows, unitA: number, b: Rows, unitB: number, out: number[]): void => {
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out.push(dot(a.values, unitA * n + i, b.values, unitB * n + j, a.length));
  };
  const group = heads / kvHeads;
  return {
    layer,
    hidden,
    q: qRows,
    o: oRows,
    heads: signatures(heads, (head, out) => {
      across(qRows, head, kRows, Math.floor(head / group), out);
      across(qRows, head, vRows, Math.floor(head / group), out);
      within(qRows, head, out);
      within(oRows, head, out);
    }),
    kvHeads: signatures(kvHeads, (head, out) => {
      across(kRows, head, vRows, head, out);
      within(kRows, head, out);
      within(vRows, head, out);
    }),
  };
}

/** Rows `slots`, as one anchors × length matrix. */
function pick(rows: Rows, slots: readonly number[]): Float32Array {
  const out = new Float32Array(slots.length * rows.length);
  slots.forEach((slot, index) => out.set(rows.values.subarray(slot * rows.length, (slot + 1) * rows.length), index * rows.length));
  return out;
}

/** The FFN channels of an aligned pair as signatures against anchors from matched query heads; null without them. */
function ffnSignatures(
  pruned: WeightSource,
  base: WeightSource,
  mine: LayerHeads,
  theirs: LayerHeads,
  heads: UnitAssignment,
  indices: number,
): [UnitVectors, UnitVectors] | null {
  if (!mine.q || !mine.o || !theirs.q || !theirs.o) return null;
  const pairs: [number, number][] = [];
  heads.origin.forEach((origin, head) => {
    for (let i = 0; origin >= 0 && i < indices; i++) pairs.push([head * indices + i, origin * indices + i]);
  });
  if (pairs.length === 0) return null;
  const chosen = sampleChannels(pairs.length, ANCHORS).map((position) => pairs[position]!);
  const side = (source: WeightSource, layerHeads: LayerHeads, which: 0 | 1): UnitVectors | null => {
    const up = roleUnits(layerHeads.layer, 'up') ?? roleUnits(layerHeads.layer, 'gate');
    const down = roleUnits(layerHeads.layer, 'down');
    if (!up || !down) return null;
    const scale = readingScale(source.graph, layerHeads.layer, source.shape.roles, 'ffn', layerHeads.hidden);
    const reading = pick(
      layerHeads.q!,
      chosen.map((pair) => pair[which]),
    );
    const writing = pick(
      layerHeads.o!,
      chosen.map((pair) => pair[which]),
    );
    const readCosines = anchorCosines(source.graph, up, reading, chosen.length, scale);
    const writeCosines = anchorCosines(source.graph, down, writing, chosen.length, null);
    if (up.count !== down.count) return null;
    return signatures(up.count, (channel, out) => {
      for (let anchor = 0; anchor < chosen.length; anchor++) out.push(readCosines[channel * chosen.length + anchor]!);
      for (let anchor = 0; anchor < chosen.length; anchor++) out.push(writeCosines[channel * chosen.length + anchor]!);
    });
  };
  const own = side(pruned, mine, 0);
  const other = side(base, theirs, 1);
  return own && other ? [own, other] : null;
}

/** Every layer of `pruned` traced to `base` in rotation-invariant terms (module comment). */
export function traceRotatedLayers(pruned: WeightSource, base: WeightSource, headDim: number): LayerLineage[] {
  const indices = sampleChannels(headDim, HEAD_INDICES);
  const own = pruned.shape.layers.map((layer) => headsOf(pruned, layer, headDim, indices));
  const theirs = base.shape.layers.map((layer) => headsOf(base, layer, headDim, indices));
  const scores = own.map((mine) =>
    theirs.map((other) => {
      const [a, b] = mine.heads && other.heads ? [mine.heads, other.heads] : [mine.kvHeads, other.kvHeads];
      return a && b && a.length === b.length ? layerSimilarity(a, b) : 0;
    }),
  );
  const origins = alignLayers(scores, base.shape.layers.length);
  return own.map((mine, position): LayerLineage => {
    const origin = origins[position]!;
    const other = origin >= 0 ? theirs[origin]! : null;
    const assign = (a: UnitVectors | null, b: UnitVectors | null): UnitAssignment | null => (a && b && a.length === b.length ? assignUnits(a, b) : null);
    const heads = assign(mine.heads, other?.heads ?? null);
    const kvHeads = assign(mine.kvHeads, other?.kvHeads ?? null);
    const ffn = other && heads ? ffnSignatures(pruned, base, mine, other, heads, indices.length) : null;
    const ffnCount = roleUnits(mine.layer, 'down')?.count ?? 0;
    return {
      layer: mine.layer.index,
      baseLayer: other?.layer.index ?? null,
      similarity: Math.round((origin >= 0 ? scores[position]![origin]! : Math.max(0, ...scores[position]!)) * 1e4) / 1e4,
      heads: mine.heads ? unitLineage(heads, mine.heads.count, other?.heads?.count ?? 0, true) : null,
      kvHeads: mine.kvHeads ? unitLineage(kvHeads, mine.kvHeads.count, other?.kvHeads?.count ?? 0, true) : null,
      ffnChannels: ffnCount > 0 ? unitLineage(ffn ? assignUnits(ffn[0], ffn[1]) : null, ffnCount, ffn?.[1].count ?? 0, false) : null,
    };
  });
}
