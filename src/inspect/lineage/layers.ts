/**
 * Lineage layer by layer: every layer's attention units of both models are built first (each attention tensor read
 * once), layers are aligned by how alike their heads are (by their FFN channels for a layer whose attention was
 * dropped), then each aligned pair's heads, key/value heads and FFN channels are assigned. Each FFN tensor is read at
 * most once, and only for aligned layers unless a dropped attention needs the base's FFNs to place its layer.
 */
import type { LayerShape } from '../graph/architecture.js';
import { alignLayers, assignUnits, layerSimilarity } from './assign.js';
import type { ChannelPairs } from './hidden.js';
import { unitLineage, type LayerLineage } from './report.js';
import type { WeightSource } from './source.js';
import { commonParts, unitVectors, type UnitKind, type UnitVectors } from './units.js';

interface Attention {
  readonly heads: UnitVectors | null;
  readonly kvHeads: UnitVectors | null;
}

export interface SampledChannels {
  readonly attention: ChannelPairs;
  readonly ffn: ChannelPairs;
}

type Parts = (unit: UnitKind) => ReturnType<typeof commonParts>;
type FfnOf = (side: 'pruned' | 'base', position: number) => UnitVectors | null;

export function traceLayers(pruned: WeightSource, base: WeightSource, channels: SampledChannels, headDim: number): LayerLineage[] {
  const [firstPruned, firstBase] = [pruned.shape.layers[0], base.shape.layers[0]];
  // The parts both models have (separate q/k/v or a fused qkv, a gate or not) are the same in every layer.
  const parts: Parts = (unit) => (firstPruned && firstBase ? commonParts(unit, firstPruned, firstBase) : []);
  const attentionOf = (source: WeightSource, layer: LayerShape, sampled: readonly number[]): Attention => {
    const weights = { graph: source.graph, layer, cache: new Map() };
    return {
      heads: unitVectors(weights, 'heads', parts('heads'), headDim, sampled),
      kvHeads: unitVectors(weights, 'kvHeads', parts('kvHeads'), headDim, sampled),
    };
  };
  const ffnOf = ffnUnitsOnce(pruned, base, channels.ffn, parts);
  const prunedAttention = pruned.shape.layers.map((layer) => attentionOf(pruned, layer, channels.attention.pruned));
  const baseAttention = base.shape.layers.map((layer) => attentionOf(base, layer, channels.attention.base));
  const scores = prunedAttention.map((mine, position) =>
    baseAttention.map((theirs, origin) => {
      const [a, b] = mine.heads && theirs.heads ? [mine.heads, theirs.heads] : [mine.kvHeads, theirs.kvHeads];
      if (a && b) return layerSimilarity(a, b);
      // A layer whose attention was dropped is placed by its FFN channels (every base FFN is then read, once).
      const [ownFfn, baseFfn] = mine.heads || mine.kvHeads ? [null, null] : [ffnOf('pruned', position), ffnOf('base', origin)];
      return ownFfn && baseFfn ? layerSimilarity(ownFfn, baseFfn) : 0;
    }),
  );
  const origins = alignLayers(scores, base.shape.layers.length);
  return pruned.shape.layers.map((layer, position): LayerLineage => {
    const origin = origins[position]!;
    const similarity = origin >= 0 ? scores[position]![origin]! : Math.max(0, ...scores[position]!);
    const theirs = origin >= 0 ? { index: base.shape.layers[origin]!.index, attention: baseAttention[origin]!, ffn: () => ffnOf('base', origin) } : null;
    return traceLayer(layer, prunedAttention[position]!, () => ffnOf('pruned', position), theirs, similarity);
  });
}

/** FFN units per layer, built on first use and kept, so no FFN tensor is read twice. */
function ffnUnitsOnce(pruned: WeightSource, base: WeightSource, channels: ChannelPairs, parts: Parts): FfnOf {
  const built = { pruned: new Map<number, UnitVectors | null>(), base: new Map<number, UnitVectors | null>() };
  return (side, position) => {
    if (!built[side].has(position)) {
      const source = side === 'pruned' ? pruned : base;
      const weights = { graph: source.graph, layer: source.shape.layers[position]!, cache: new Map() };
      built[side].set(position, unitVectors(weights, 'ffnChannels', parts('ffnChannels'), 1, channels[side]));
    }
    return built[side].get(position)!;
  };
}

/** One pruned layer's units against its base layer's (none matched when it has no base layer). */
function traceLayer(
  layer: LayerShape,
  mine: Attention,
  ownFfn: () => UnitVectors | null,
  theirs: { index: number; attention: Attention; ffn: () => UnitVectors | null } | null,
  similarity: number,
): LayerLineage {
  const other = theirs?.attention ?? null;
  const units = (own: UnitVectors | null, base: UnitVectors | null, fallback: number, perUnit: boolean) =>
    unitLineage(own && base ? assignUnits(own, base) : null, own?.count ?? fallback, base?.count ?? 0, perUnit);
  const ffnCount = (layer.projections.up ?? layer.projections.gate)?.outDim ?? 0;
  return {
    layer: layer.index,
    baseLayer: theirs?.index ?? null,
    similarity: Math.round(similarity * 1e4) / 1e4,
    heads: mine.heads || other?.heads ? units(mine.heads, other?.heads ?? null, 0, true) : null,
    kvHeads: mine.kvHeads || other?.kvHeads ? units(mine.kvHeads, other?.kvHeads ?? null, 0, true) : null,
    ffnChannels: ffnCount > 0 ? units(theirs ? ownFfn() : null, theirs ? theirs.ffn() : null, ffnCount, false) : null,
  };
}
