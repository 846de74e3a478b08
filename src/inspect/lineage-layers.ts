/**
 * Lineage layer by layer: every layer's attention units of both models are built first (each attention tensor read
 * once), layers are aligned by how alike their heads are, then each aligned pair's heads, key/value heads and FFN
 * channels are assigned (each FFN tensor read once, and only for aligned layers).
 */
import type { LayerShape } from './architecture.js';
import { alignLayers, assignUnits, layerSimilarity } from './lineage-assign.js';
import type { ChannelPairs } from './lineage-hidden.js';
import { unitLineage, type LayerLineage } from './lineage-report.js';
import type { WeightSource } from './lineage-source.js';
import { commonParts, unitVectors, type UnitKind, type UnitVectors } from './lineage-units.js';

interface Attention {
  readonly heads: UnitVectors | null;
  readonly kvHeads: UnitVectors | null;
}

export interface SampledChannels {
  readonly attention: ChannelPairs;
  readonly ffn: ChannelPairs;
}

type Parts = (unit: UnitKind) => ReturnType<typeof commonParts>;

export function traceLayers(pruned: WeightSource, base: WeightSource, channels: SampledChannels, headDim: number): LayerLineage[] {
  const [firstPruned, firstBase] = [pruned.shape.layers[0], base.shape.layers[0]];
  // The parts both models have (separate q/k/v or a fused qkv, a gate or not) are the same in every layer.
  const parts: Parts = (unit) => (firstPruned && firstBase ? commonParts(unit, firstPruned, firstBase) : []);
  const attentionOf = (source: WeightSource, layer: LayerShape, sampled: readonly number[]): Attention => {
    const weights = { graph: source.graph, layer, cache: new Map() };
    return { heads: unitVectors(weights, 'heads', parts('heads'), headDim, sampled), kvHeads: unitVectors(weights, 'kvHeads', parts('kvHeads'), headDim, sampled) };
  };
  const prunedAttention = pruned.shape.layers.map((layer) => attentionOf(pruned, layer, channels.attention.pruned));
  const baseAttention = base.shape.layers.map((layer) => attentionOf(base, layer, channels.attention.base));
  const scores = prunedAttention.map((mine) => baseAttention.map((theirs) => {
    const [a, b] = mine.heads && theirs.heads ? [mine.heads, theirs.heads] : [mine.kvHeads, theirs.kvHeads];
    return a && b ? layerSimilarity(a, b) : 0;
  }));
  const origins = alignLayers(scores, base.shape.layers.length);
  return pruned.shape.layers.map((layer, position): LayerLineage => {
    const origin = origins[position]!;
    const similarity = origin >= 0 ? scores[position]![origin]! : Math.max(0, ...scores[position]!);
    const pair = origin >= 0 ? { layer: base.shape.layers[origin]!, attention: baseAttention[origin]! } : null;
    return traceLayer(pruned, base, layer, prunedAttention[position]!, pair, similarity, channels.ffn, parts);
  });
}

/** One pruned layer's units against its base layer's (none matched when it has no base layer). */
function traceLayer(
  pruned: WeightSource, base: WeightSource, layer: LayerShape, mine: Attention, pair: { layer: LayerShape; attention: Attention } | null,
  similarity: number, ffn: ChannelPairs, parts: Parts,
): LayerLineage {
  const theirs = pair?.attention ?? null;
  const units = (own: UnitVectors | null, other: UnitVectors | null, fallback: number, perUnit: boolean) =>
    unitLineage(own && other ? assignUnits(own, other) : null, own?.count ?? fallback, other?.count ?? 0, perUnit);
  const ffnCount = (layer.projections.up ?? layer.projections.gate)?.outDim ?? 0;
  const ffnUnits = (source: WeightSource, of: LayerShape, sampled: readonly number[]): UnitVectors | null =>
    unitVectors({ graph: source.graph, layer: of, cache: new Map() }, 'ffnChannels', parts('ffnChannels'), 1, sampled);
  return {
    layer: layer.index,
    baseLayer: pair?.layer.index ?? null,
    similarity: Math.round(similarity * 1e4) / 1e4,
    heads: mine.heads || theirs?.heads ? units(mine.heads, theirs?.heads ?? null, 0, true) : null,
    kvHeads: mine.kvHeads || theirs?.kvHeads ? units(mine.kvHeads, theirs?.kvHeads ?? null, 0, true) : null,
    ffnChannels: ffnCount > 0 ? units(pair ? ffnUnits(pruned, layer, ffn.pruned) : null, pair ? ffnUnits(base, pair.layer, ffn.base) : null, ffnCount, false) : null,
  };
}
