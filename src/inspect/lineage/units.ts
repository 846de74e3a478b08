/**
 * The units lineage matches, as unit-length vectors over the sampled hidden channels (lineage-sample):
 *   - a query head: its head_dim rows of q and its head_dim columns of o;
 *   - a key/value head: its rows of k and of v (grouped-query attention shares these between query heads);
 *   - an FFN channel: its row of up (and gate) and its column of down.
 * Only the parts both models have are used, so a fused qkv compares with separate q/k/v (split in thirds, as its
 * shape allows without grouped-query attention). Cosine similarity of two units is then their dot product.
 */
import type { LayerShape } from '../graph/architecture.js';
import { hiddenIsColumns, sampleUnits, type SampledUnits } from './sample.js';
import type { ModelGraph } from '../graph/model-graph.js';
import type { ProjectionRole } from '../graph/structure-types.js';

export type UnitKind = 'heads' | 'kvHeads' | 'ffnChannels';

export interface UnitVectors {
  readonly count: number;
  readonly length: number;
  /** count × length, each row of unit L2 norm (all zeros for an all-zero unit). */
  readonly vectors: Float32Array;
}

type Part = readonly [ProjectionRole, 'in' | 'out'];
const PARTS: Readonly<Record<UnitKind, readonly Part[]>> = {
  heads: [
    ['q', 'in'],
    ['o', 'out'],
  ],
  kvHeads: [
    ['k', 'in'],
    ['v', 'in'],
  ],
  ffnChannels: [
    ['up', 'in'],
    ['gate', 'in'],
    ['down', 'out'],
  ],
};
const FUSED_THIRDS: readonly ProjectionRole[] = ['q', 'k', 'v'];

/** A layer's weights for unit building: its graph (bytes on disk) and shape, with the sampled parts read so far. */
export interface LayerWeights {
  readonly graph: ModelGraph;
  readonly layer: LayerShape;
  /** Samples read once per tensor (a fused qkv serves q, k and v). */
  readonly cache: Map<string, SampledUnits>;
}

function hasRole(layer: LayerShape, role: ProjectionRole): boolean {
  return layer.projections[role] !== undefined || (FUSED_THIRDS.includes(role) && layer.projections.qkv !== undefined);
}

/** The parts of `kind` that both layers hold. */
export function commonParts(kind: UnitKind, a: LayerShape, b: LayerShape): Part[] {
  return PARTS[kind].filter(([role]) => hasRole(a, role) && hasRole(b, role));
}

function sampledRole(weights: LayerWeights, role: ProjectionRole, side: 'in' | 'out', channels: readonly number[]): SampledUnits {
  const direct = weights.layer.projections[role];
  const projection = direct ?? weights.layer.projections.qkv!;
  let sampled = weights.cache.get(projection.tensor);
  if (sampled === undefined) {
    sampled = sampleUnits(weights.graph.tensorByName.get(projection.tensor)!, hiddenIsColumns(projection, side), channels);
    weights.cache.set(projection.tensor, sampled);
  }
  if (direct) return sampled;
  const third = sampled.count / 3;
  const start = FUSED_THIRDS.indexOf(role) * third * sampled.samples;
  return { count: third, samples: sampled.samples, values: sampled.values.subarray(start, start + third * sampled.samples) };
}

/**
 * The units of `kind`, or null when the layer lacks a part (its attention was removed) or the parts disagree on the unit count (a width that is not a whole number of
 * heads, or a fused qkv that cannot be split in thirds).
 */
export function unitVectors(weights: LayerWeights, kind: UnitKind, parts: readonly Part[], headDim: number, channels: readonly number[]): UnitVectors | null {
  if (parts.length === 0 || parts.some(([role]) => !hasRole(weights.layer, role))) return null;
  const rowsPerUnit = kind === 'ffnChannels' ? 1 : headDim;
  const sampled = parts.map(([role, side]) => sampledRole(weights, role, side, channels));
  const count = sampled[0]!.count / rowsPerUnit;
  if (!Number.isInteger(count) || sampled.some((part) => part.count !== sampled[0]!.count)) return null;
  const block = rowsPerUnit * channels.length;
  const length = block * parts.length;
  const vectors = new Float32Array(count * length);
  for (let unit = 0; unit < count; unit++) {
    sampled.forEach((part, index) => vectors.set(part.values.subarray(unit * block, (unit + 1) * block), unit * length + index * block));
  }
  return normalized({ count, length, vectors });
}

/**
 * Hidden channels as units, for a model whose hidden size was pruned: each channel's column of the token embedding
 * ([vocab, hidden], as Gather reads it) at the sampled vocabulary rows.
 */
export function hiddenChannelVectors(graph: ModelGraph, embedding: string, vocabRows: readonly number[]): UnitVectors {
  const sampled = sampleUnits(graph.tensorByName.get(embedding)!, false, vocabRows);
  return normalized({ count: sampled.count, length: sampled.samples, vectors: sampled.values });
}

/** Each unit scaled to length 1, in place, so cosine similarity is a dot product. */
function normalized(units: UnitVectors): UnitVectors {
  const { count, length, vectors } = units;
  for (let unit = 0; unit < count; unit++) {
    let squares = 0;
    for (let offset = unit * length; offset < (unit + 1) * length; offset++) squares += vectors[offset]! * vectors[offset]!;
    const scale = squares > 0 ? 1 / Math.sqrt(squares) : 0;
    for (let offset = unit * length; offset < (unit + 1) * length; offset++) vectors[offset]! *= scale;
  }
  return units;
}
