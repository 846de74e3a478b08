/**
 * `checkLineage(model, base)`: is a pruned model really cut from its base, or trained from scratch in its shape?
 * The structural checks compare widths only; lineage compares weights. Every unit the pruned model kept (query
 * head, key/value head, FFN channel) is matched to the base unit it came from by cosine similarity over sampled
 * hidden channels, layer by layer once the layers are aligned, and the report names the base layers, heads and
 * channels kept. Fine-tuning after pruning moves weights a little (similarity stays near 1); an unrelated model's
 * units sit near 0, so the model fails when most units match nothing. Each tensor is read once, in chunks: the
 * attention of every layer to align layers, then the FFN of each matched pair.
 */
import { z } from 'zod';
import { MlrbError } from '../errors.js';
import type { LayerShape } from './architecture.js';
import { hasReadableValues } from './graph-tensor-values.js';
import { alignLayers, assignUnits, layerSimilarity, MATCH_THRESHOLD } from './lineage-assign.js';
import { lineageVerdict, unitLineage, unitTotals, type LayerLineage, type LineageReport } from './lineage-report.js';
import { sampleChannels } from './lineage-sample.js';
import { lineageBaseKind, openWeightSource, type LineageBaseKind, type WeightSource } from './lineage-source.js';
import { commonParts, unitVectors, type LayerWeights, type UnitKind, type UnitVectors } from './lineage-units.js';
import { verdictOf } from './verdict.js';

/** Hidden channels sampled per unit: a head spans head_dim rows of them, an FFN channel one row, so it gets more. */
export const ATTENTION_SAMPLES = 64;
export const FFN_SAMPLES = 128;

export const lineageOptionsSchema = z.strictObject({
  /** head_dim, when neither a config.json nor the graph states it. */
  headDim: z.number().int().positive().optional(),
}).optional();
export type LineageOptions = z.infer<typeof lineageOptionsSchema>;

interface Attention {
  readonly heads: UnitVectors | null;
  readonly kvHeads: UnitVectors | null;
}

export async function checkLineage(modelPath: string, basePath: string, options?: LineageOptions): Promise<LineageReport> {
  if (typeof modelPath !== 'string' || modelPath === '') throw new TypeError('modelPath must be a non-empty string');
  if (typeof basePath !== 'string' || basePath === '') throw new TypeError('basePath must name the base ONNX model, safetensors checkpoint or config.json');
  const parsed = lineageOptionsSchema.safeParse(options);
  if (!parsed.success) throw new RangeError(`invalid lineage options: ${z.prettifyError(parsed.error)}`);
  const started = performance.now();
  const kind = lineageBaseKind(basePath);
  if (kind === 'config') {
    return notChecked(modelPath, basePath, kind, 'a config.json has no weights: pass the base as ONNX or a safetensors checkpoint to check lineage', false, started);
  }
  const [pruned, base] = [await openWeightSource(modelPath), await openWeightSource(basePath)];
  const headDim = parsed.data?.headDim ?? base.headDim ?? pruned.headDim;
  if (headDim === null) throw new MlrbError('BAD_DATA', `cannot tell head_dim of base ${base.path}: put its config.json beside it or pass headDim`, { file: base.path });
  const hidden = base.shape.hidden;
  if (hidden === null || pruned.shape.hidden !== hidden) {
    return notChecked(pruned.path, base.path, kind, `the hidden size changed (${hidden} -> ${pruned.shape.hidden}): lineage compares units over the base's hidden channels`, true, started);
  }
  const unreadable = [pruned, base].flatMap((source) => unreadableProjections(source).map((name) => `${name} of ${source.path}`));
  if (unreadable.length > 0) {
    return notChecked(pruned.path, base.path, kind, `projection weights are not plain float tensors (quantized?): ${unreadable.slice(0, 3).join(', ')}`, true, started);
  }
  const attentionChannels = sampleChannels(hidden, ATTENTION_SAMPLES);
  const ffnChannels = sampleChannels(hidden, FFN_SAMPLES);
  const [firstPruned, firstBase] = [pruned.shape.layers[0], base.shape.layers[0]];
  const parts = (unit: UnitKind) => (firstPruned && firstBase ? commonParts(unit, firstPruned, firstBase) : []);
  const attentionOf = (source: WeightSource, layer: LayerShape): Attention => {
    const weights: LayerWeights = { graph: source.graph, layer, cache: new Map() };
    return { heads: unitVectors(weights, 'heads', parts('heads'), headDim, attentionChannels), kvHeads: unitVectors(weights, 'kvHeads', parts('kvHeads'), headDim, attentionChannels) };
  };
  const prunedAttention = pruned.shape.layers.map((layer) => attentionOf(pruned, layer));
  const baseAttention = base.shape.layers.map((layer) => attentionOf(base, layer));
  const scores = prunedAttention.map((mine) => baseAttention.map((theirs) => {
    const [a, b] = mine.heads && theirs.heads ? [mine.heads, theirs.heads] : [mine.kvHeads, theirs.kvHeads];
    return a && b ? layerSimilarity(a, b) : 0;
  }));
  const origins = alignLayers(scores, base.shape.layers.length);

  const layers = pruned.shape.layers.map((layer, position): LayerLineage => {
    const origin = origins[position]!;
    const baseLayer = origin >= 0 ? base.shape.layers[origin]! : null;
    const mine = prunedAttention[position]!;
    const theirs = origin >= 0 ? baseAttention[origin]! : null;
    const ffnCount = (layer.projections.up ?? layer.projections.gate)?.outDim ?? 0;
    const units = (own: UnitVectors | null, other: UnitVectors | null, fallback: number, perUnit: boolean) =>
      unitLineage(own && other ? assignUnits(own, other) : null, own?.count ?? fallback, other?.count ?? 0, perUnit);
    const ffnPair = baseLayer ? [ffnUnits(pruned, layer, ffnChannels, parts), ffnUnits(base, baseLayer, ffnChannels, parts)] as const : [null, null] as const;
    return {
      layer: layer.index,
      baseLayer: baseLayer?.index ?? null,
      similarity: Math.round((origin >= 0 ? scores[position]![origin]! : Math.max(0, ...scores[position]!)) * 1e4) / 1e4,
      heads: mine.heads || theirs?.heads ? units(mine.heads, theirs?.heads ?? null, 0, true) : null,
      kvHeads: mine.kvHeads || theirs?.kvHeads ? units(mine.kvHeads, theirs?.kvHeads ?? null, 0, true) : null,
      ffnChannels: ffnCount > 0 ? units(ffnPair[0], ffnPair[1], ffnCount, false) : null,
    };
  });
  const keptBase = new Set(layers.map((layer) => layer.baseLayer));
  const { status, verdict } = lineageVerdict(pruned.path, base.path, layers);
  return {
    status, model: pruned.path, base: base.path, baseKind: kind, note: null,
    sampledHiddenChannels: { attention: attentionChannels.length, ffn: ffnChannels.length }, threshold: MATCH_THRESHOLD,
    layers, removedLayers: base.shape.layers.map((layer) => layer.index).filter((index) => !keptBase.has(index)),
    units: unitTotals(layers), ms: performance.now() - started, verdict,
  };
}

/** Projection weights whose values cannot be read as floats (int8 with scales, packed 4-bit …). */
function unreadableProjections(source: WeightSource): string[] {
  const names = source.shape.layers.flatMap((layer) => Object.values(layer.projections).map((projection) => projection.tensor));
  return names.filter((name) => !hasReadableValues(source.graph.tensorByName.get(name)!));
}

function ffnUnits(source: WeightSource, layer: LayerShape, channels: readonly number[], parts: (unit: UnitKind) => ReturnType<typeof commonParts>): UnitVectors | null {
  return unitVectors({ graph: source.graph, layer, cache: new Map() }, 'ffnChannels', parts('ffnChannels'), 1, channels);
}

function notChecked(model: string, base: string, baseKind: LineageBaseKind, note: string, warn: boolean, started: number): LineageReport {
  return {
    status: 'not-checked', model, base, baseKind, note, sampledHiddenChannels: { attention: 0, ffn: 0 }, threshold: MATCH_THRESHOLD,
    layers: [], removedLayers: [], units: { total: 0, matched: 0 }, ms: performance.now() - started,
    verdict: verdictOf([], warn ? [`lineage not checked: ${note}`] : []),
  };
}
