/**
 * Whole unit vectors over the hidden axis, for lineage in a rotated basis (lineage-rotation): chosen units of a
 * projection (rows of q, columns of o …) as full vectors, or every unit's inner products with a few anchor vectors,
 * each streamed from the tensor once. Reading vectors carry the layer's norm scale (`scale`), and every vector is
 * centred (its mean over the hidden axis removed), as SliceGPT's folding of LayerNorm and centring of the residual
 * stream leave them.
 */
import type { LayerShape, Projection } from '../graph/architecture.js';
import { effectiveConsumers, type ModelGraph } from '../graph/model-graph.js';
import { hasReadableValues, readTensorValues } from '../graph/tensor-values.js';
import { forEachRowSegment, hiddenIsColumns } from './sample.js';
import type { ProjectionRole } from '../graph/structure-types.js';

/** A projection's units of one role: the tensor, how it lies, and where the role's units start (a fused qkv's thirds). */
export interface RoleUnits {
  readonly projection: Projection;
  readonly hiddenSide: 'in' | 'out';
  readonly first: number;
  readonly count: number;
}

const READERS: readonly ProjectionRole[] = ['q', 'k', 'v', 'up', 'gate'];
const FUSED: readonly ProjectionRole[] = ['q', 'k', 'v'];

/** The units of `role` in `layer`, or null when the layer has none (a fused qkv is split in thirds). */
export function roleUnits(layer: LayerShape, role: ProjectionRole): RoleUnits | null {
  const hiddenSide = READERS.includes(role) ? 'in' : 'out';
  const direct = layer.projections[role];
  if (direct) return { projection: direct, hiddenSide, first: 0, count: hiddenSide === 'in' ? direct.outDim : direct.inDim };
  const fused = FUSED.includes(role) ? layer.projections.qkv : undefined;
  if (!fused || fused.outDim % 3 !== 0) return null;
  const third = fused.outDim / 3;
  return { projection: fused, hiddenSide: 'in', first: FUSED.indexOf(role) * third, count: third };
}

/**
 * The scale of the norm that feeds the layer's reading projections (its weight, read by a Mul or as a LayerNorm's
 * scale), for `part`: the first such norm for attention, the last for the FFN (Llama's post-attention norm). null when
 * the graph shows none (an RMSNorm without weight, as SliceGPT leaves it) or it cannot be read.
 */
export function readingScale(
  graph: ModelGraph,
  layer: LayerShape,
  roles: ReadonlyMap<string, { role: string }>,
  part: 'attention' | 'ffn',
  hidden: number,
): Float32Array | null {
  const scales = layer.tensors.filter((name) => {
    const tensor = graph.tensorByName.get(name);
    if (roles.get(name)?.role !== 'norm' || tensor?.elementCount !== hidden || !hasReadableValues(tensor)) return false;
    return effectiveConsumers(graph, name).some(
      ({ consumer }) => consumer.node.opType === 'Mul' || (/LayerNormalization$/.test(consumer.node.opType) && consumer.inputIndex === 1),
    );
  });
  const name = part === 'attention' ? scales[0] : scales.at(-1);
  return name === undefined ? null : Float32Array.from(readTensorValues(graph.tensorByName.get(name)!));
}

/** Removes each vector's mean over the hidden axis and scales it to length 1 (all zeros stay zeros), in place. */
export function centredUnitRows(vectors: Float32Array, length: number): Float32Array {
  for (let start = 0; start < vectors.length; start += length) {
    let sum = 0;
    for (let offset = start; offset < start + length; offset++) sum += vectors[offset]!;
    const mean = sum / length;
    let squares = 0;
    for (let offset = start; offset < start + length; offset++) {
      vectors[offset] = vectors[offset]! - mean;
      squares += vectors[offset]! * vectors[offset]!;
    }
    const inverse = squares > 0 ? 1 / Math.sqrt(squares) : 0;
    for (let offset = start; offset < start + length; offset++) vectors[offset] = vectors[offset]! * inverse;
  }
  return vectors;
}

/**
 * The chosen units (indices within the role) as full vectors over the hidden axis, units × hidden, scaled by
 * `scale` elementwise when given, centred and of length 1.
 */
export function selectedUnits(graph: ModelGraph, units: RoleUnits, chosen: readonly number[], scale: Float32Array | null): Float32Array {
  const tensor = graph.tensorByName.get(units.projection.tensor)!;
  const [rows, cols] = tensor.dims as [number, number];
  const unitsAreRows = hiddenIsColumns(units.projection, units.hiddenSide);
  const hidden = unitsAreRows ? cols : rows;
  const slotOf = new Int32Array(unitsAreRows ? rows : cols).fill(-1);
  chosen.forEach((unit, slot) => {
    slotOf[units.first + unit] = slot;
  });
  const out = new Float32Array(chosen.length * hidden);
  forEachRowSegment(tensor, cols, (row, col, values) => {
    for (let offset = 0; offset < values.length; offset++) {
      const slot = slotOf[unitsAreRows ? row : col + offset]!;
      if (slot < 0) continue;
      const position = unitsAreRows ? col + offset : row;
      out[slot * hidden + position] = values[offset]! * (scale ? scale[position]! : 1);
    }
  });
  return centredUnitRows(out, hidden);
}

/**
 * Every unit's cosine with each anchor (anchors: count × hidden, centred and of length 1, in the same basis as the
 * units), units × anchors; the units scaled by `scale` and centred first. The tensor is streamed once.
 */
export function anchorCosines(graph: ModelGraph, units: RoleUnits, anchors: Float32Array, anchorCount: number, scale: Float32Array | null): Float32Array {
  const tensor = graph.tensorByName.get(units.projection.tensor)!;
  const [rows, cols] = tensor.dims as [number, number];
  const unitsAreRows = hiddenIsColumns(units.projection, units.hiddenSide);
  const hidden = unitsAreRows ? cols : rows;
  const dots = new Float64Array(units.count * anchorCount);
  const sums = new Float64Array(units.count);
  const squares = new Float64Array(units.count);
  forEachRowSegment(tensor, cols, (row, col, values) => {
    for (let offset = 0; offset < values.length; offset++) {
      const unit = (unitsAreRows ? row : col + offset) - units.first;
      if (unit < 0 || unit >= units.count) continue;
      const position = unitsAreRows ? col + offset : row;
      const value = values[offset]! * (scale ? scale[position]! : 1);
      sums[unit] = sums[unit]! + value;
      squares[unit] = squares[unit]! + value * value;
      const slot = unit * anchorCount;
      for (let anchor = 0, at = position; anchor < anchorCount; anchor++, at += hidden) dots[slot + anchor] = dots[slot + anchor]! + value * anchors[at]!;
    }
  });
  const cosines = new Float32Array(units.count * anchorCount);
  for (let unit = 0; unit < units.count; unit++) {
    // Centring the unit changes no dot product with a centred anchor; it only shrinks the unit's length.
    const centredSquares = squares[unit]! - (sums[unit]! * sums[unit]!) / hidden;
    const inverse = centredSquares > 0 ? 1 / Math.sqrt(centredSquares) : 0;
    for (let anchor = 0; anchor < anchorCount; anchor++) cosines[unit * anchorCount + anchor] = dots[unit * anchorCount + anchor]! * inverse;
  }
  return cosines;
}
