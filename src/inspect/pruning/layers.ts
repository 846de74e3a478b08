/**
 * Pruned layers against base layers: which base layer each pruned one is (by weights when the caller matched
 * them, else by the layer index in names), and per layer the heads, FFN channels and hidden size kept,
 * with every shape inconsistency named.
 */
import type { LayerShape, ModelShape } from '../graph/architecture.js';
import type { LayerZeros } from './fake-pruning.js';
import { layerConsistencyIssues, layerWidths } from '../graph/layer-widths.js';
import type { PruningBase } from './base.js';

export interface Kept {
  readonly base: number | null;
  readonly kept: number | null;
}

export interface PruningLayerReport {
  readonly baseLayer: number;
  readonly prunedLayer: number | null;
  readonly status: 'kept' | 'removed';
  readonly heads: Kept;
  readonly kvHeads: Kept;
  readonly ffnChannels: Kept;
  readonly hidden: Kept;
  readonly params: Kept;
  readonly zeros: LayerZeros | null;
  readonly issues: readonly string[];
}

export type LayerMapping = 'by-weights' | 'by-name' | 'renumbered-or-tail';

export interface LayerComparison {
  /**
   * `by-weights`: layer indices were matched with the base's by their norm weights (graph-layer-match).
   * Otherwise pruned layers are matched by the index in their names. `renumbered-or-tail` flags the one
   * ambiguous case: fewer layers numbered 0..n-1, either the last layers were removed or the export
   * renumbered, and names cannot tell which base layers are gone.
   */
  readonly mapping: LayerMapping;
  readonly layers: readonly PruningLayerReport[];
  readonly removedLayers: readonly number[];
  readonly issues: readonly string[];
}

function widthsOf(
  layer: LayerShape | null | undefined,
  base: PruningBase,
  headDim: number,
): { heads: number | null; kvHeads: number | null; ffn: number | null; hidden: number | null } {
  if (!layer) return { heads: base.heads, kvHeads: base.kvHeads, ffn: base.intermediate, hidden: base.hidden };
  const w = layerWidths(layer);
  return {
    heads: w.queryWidth === null ? null : w.queryWidth / headDim,
    kvHeads: w.keyWidth === null ? null : w.keyWidth / headDim,
    ffn: w.ffnWidth ?? w.ffnDownWidth,
    hidden: w.hiddenIn[0] ?? w.hiddenOut[0] ?? null,
  };
}

export function compareLayers(base: PruningBase, pruned: ModelShape, zeros: readonly LayerZeros[], matchedByWeights = false): LayerComparison {
  const issues: string[] = [];
  const prunedIndices = pruned.layers.map((layer) => layer.index);
  const renumbered = !matchedByWeights && prunedIndices.length < base.layerCount && prunedIndices.every((index, position) => index === position);
  for (const index of prunedIndices.filter((value) => value >= base.layerCount)) {
    issues.push(`the pruned model has layer ${index} but the base has only ${base.layerCount} layers`);
  }
  const byIndex = new Map(pruned.layers.map((layer) => [layer.index, layer]));
  const headDim = base.headDim;
  const layers: PruningLayerReport[] = [];
  for (let baseLayer = 0; baseLayer < base.layerCount; baseLayer++) {
    const prunedLayer = byIndex.get(baseLayer);
    const baseEntry = base.layers.get(baseLayer);
    const before = widthsOf(baseEntry?.shape, base, headDim);
    const zerosOfLayer = zeros.find((entry) => entry.layer === baseLayer) ?? null;
    if (!prunedLayer) {
      layers.push({
        baseLayer,
        prunedLayer: null,
        status: 'removed',
        heads: { base: before.heads, kept: 0 },
        kvHeads: { base: before.kvHeads, kept: 0 },
        ffnChannels: { base: before.ffn, kept: 0 },
        hidden: { base: before.hidden, kept: null },
        params: { base: baseEntry?.params ?? null, kept: 0 },
        zeros: null,
        issues: [],
      });
      continue;
    }
    const after = widthsOf(prunedLayer, base, headDim);
    const layerIssues = layerConsistencyIssues(prunedLayer, pruned.hidden, headDim);
    if (after.heads !== null && before.heads !== null && after.heads > before.heads)
      layerIssues.push(`${after.heads} heads where the base has ${before.heads}`);
    if (after.ffn !== null && before.ffn !== null && after.ffn > before.ffn) layerIssues.push(`${after.ffn} FFN channels where the base has ${before.ffn}`);
    layers.push({
      baseLayer,
      prunedLayer: prunedLayer.index,
      status: 'kept',
      heads: { base: before.heads, kept: after.heads },
      kvHeads: { base: before.kvHeads, kept: after.kvHeads },
      ffnChannels: { base: before.ffn, kept: after.ffn },
      hidden: { base: before.hidden, kept: after.hidden },
      params: { base: baseEntry?.params ?? null, kept: prunedLayer.params },
      zeros: zerosOfLayer,
      issues: layerIssues,
    });
  }
  if (pruned.vocab !== null && pruned.vocab !== base.vocab) issues.push(`vocabulary changed: ${pruned.vocab} tokens where the base has ${base.vocab}`);
  for (const layer of layers) for (const issue of layer.issues) issues.push(`layer ${layer.baseLayer}: ${issue}`);
  return {
    mapping: matchedByWeights ? 'by-weights' : renumbered ? 'renumbered-or-tail' : 'by-name',
    layers,
    removedLayers: layers.filter((layer) => layer.status === 'removed').map((layer) => layer.baseLayer),
    issues,
  };
}
