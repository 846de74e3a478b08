/**
 * The lineage report's types, and the verdict drawn from the per-layer matches: a model derives from its base
 * when most of its units (query heads, key/value heads, FFN channels) match a base unit.
 */
import { MATCH_THRESHOLD, type UnitAssignment } from './assign.js';
import type { LineageBaseKind } from './source.js';
import { verdictOf, type Verdict } from '../verdict.js';

/** Share of units that must match for the model to count as derived. */
export const DERIVED_SHARE = 0.5;

export interface UnitLineage {
  /** Units in the pruned layer, and in its base layer. */
  readonly count: number;
  readonly baseCount: number;
  /** Base index per pruned unit, in the pruned model's order; null where none matched. */
  readonly kept: readonly (number | null)[];
  /** Per unit for heads; null for FFN channels (thousands per layer: min and mean instead). */
  readonly similarity: readonly (number | null)[] | null;
  readonly matched: number;
  readonly minSimilarity: number | null;
  readonly meanSimilarity: number | null;
}

export interface LayerLineage {
  /** The pruned model's layer index, and the base layer it came from (null: none matched). */
  readonly layer: number;
  readonly baseLayer: number | null;
  /** How alike the two layers' heads are (mean best similarity of a few probe heads); with no base layer matched,
   * the best any base layer reached. */
  readonly similarity: number;
  readonly heads: UnitLineage | null;
  readonly kvHeads: UnitLineage | null;
  readonly ffnChannels: UnitLineage | null;
}

export interface LineageReport {
  readonly status: 'derived' | 'not-derived' | 'not-checked';
  readonly model: string;
  readonly base: string;
  readonly baseKind: LineageBaseKind;
  /** Why lineage was not checked; null when it was. */
  readonly note: string | null;
  /**
   * How units were compared: over the same sampled hidden channels ('channels'), or, when those match nothing, by
   * signatures no rotation of the hidden basis changes ('rotation-invariant', lineage-rotation: SliceGPT rotates
   * each layer's basis); null when not checked.
   */
  readonly comparedBy: 'channels' | 'rotation-invariant' | null;
  /** Hidden channels the similarities are computed over (all of them up to the sample size). */
  readonly sampledHiddenChannels: { readonly attention: number; readonly ffn: number };
  readonly threshold: number;
  /** Base hidden channel per pruned one (by token-embedding columns) when the hidden size was pruned; else null. */
  readonly hiddenChannels: UnitLineage | null;
  readonly layers: readonly LayerLineage[];
  /** Base layers no pruned layer came from. */
  readonly removedLayers: readonly number[];
  readonly units: { readonly total: number; readonly matched: number };
  readonly ms: number;
  readonly verdict: Verdict;
}

const rounded = (value: number): number => Math.round(value * 1e4) / 1e4;

/** A unit kind's matches; `count` is the pruned layer's unit count when nothing could be assigned. */
export function unitLineage(assignment: UnitAssignment | null, count: number, baseCount: number, perUnit: boolean): UnitLineage {
  const kept = Array.from({ length: count }, (_, unit) => (assignment && assignment.origin[unit]! >= 0 ? assignment.origin[unit]! : null));
  const values = assignment ? Array.from(assignment.similarity, (value) => (Number.isNaN(value) ? null : rounded(value))) : [];
  const matchedValues = values.filter((value, unit): value is number => value !== null && kept[unit] !== null);
  return {
    count,
    baseCount,
    kept,
    similarity: perUnit ? Array.from({ length: count }, (_, unit) => values[unit] ?? null) : null,
    matched: matchedValues.length,
    minSimilarity: matchedValues.length > 0 ? Math.min(...matchedValues) : null,
    meanSimilarity: matchedValues.length > 0 ? rounded(matchedValues.reduce((sum, value) => sum + value, 0) / matchedValues.length) : null,
  };
}

/** Pruned layer → base layer when the model derives from the base and every layer found its origin, else null. */
export function layerOrigins(report: LineageReport): Map<number, number> | null {
  if (report.status !== 'derived' || report.layers.some((layer) => layer.baseLayer === null)) return null;
  return new Map(report.layers.map((layer) => [layer.layer, layer.baseLayer!]));
}

export function unitTotals(layers: readonly LayerLineage[], hidden: UnitLineage | null): { total: number; matched: number } {
  const kinds = [hidden, ...layers.flatMap((layer) => [layer.heads, layer.kvHeads, layer.ffnChannels])].filter((unit) => unit !== null);
  return { total: kinds.reduce((sum, unit) => sum + unit.count, 0), matched: kinds.reduce((sum, unit) => sum + unit.matched, 0) };
}

export function lineageVerdict(
  model: string,
  base: string,
  layers: readonly LayerLineage[],
  hidden: UnitLineage | null,
): { status: 'derived' | 'not-derived'; verdict: Verdict } {
  const { total, matched } = unitTotals(layers, hidden);
  const layersMatched = layers.filter((layer) => layer.baseLayer !== null).length;
  const bestLayer = Math.max(0, ...layers.map((layer) => layer.similarity));
  const summary =
    `${matched} of ${total} units (${hidden ? 'hidden channels, ' : ''}heads, key/value heads, FFN channels) match a base unit with cosine >= ${MATCH_THRESHOLD}; ` +
    `${layersMatched} of ${layers.length} layers match a base layer${layersMatched === 0 ? ` (best layer similarity ${bestLayer.toFixed(2)})` : ''}`;
  if (total === 0 || matched < DERIVED_SHARE * total) {
    return { status: 'not-derived', verdict: verdictOf([`${model} does not derive from ${base}: ${summary}`]) };
  }
  const warnings = matched < total ? [`${total - matched} unit(s) match no base unit (re-initialized or retrained): ${summary}`] : [];
  return { status: 'derived', verdict: verdictOf([], warnings) };
}
