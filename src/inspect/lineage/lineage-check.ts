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
import { MlrbError } from '../../errors.js';
import { hasReadableValues } from '../graph/tensor-values.js';
import { MATCH_THRESHOLD } from './assign.js';
import { alignHidden } from './hidden.js';
import { traceLayers } from './layers.js';
import { lineageVerdict, unitTotals, type LayerLineage, type LineageReport, type UnitLineage } from './report.js';
import { traceRotatedLayers } from './rotation.js';
import { lineageBaseKind, openWeightSource, type LineageBaseKind, type WeightSource } from './source.js';
import { verdictOf } from '../verdict.js';

export const lineageOptionsSchema = z
  .strictObject({
    /** head_dim, when neither a config.json nor the graph states it. */
    headDim: z.number().int().positive().optional(),
  })
  .optional();
export type LineageOptions = z.infer<typeof lineageOptionsSchema>;

export async function checkLineage(modelPath: string, basePath: string, options?: LineageOptions): Promise<LineageReport> {
  if (typeof modelPath !== 'string' || modelPath === '') throw new TypeError('modelPath must be a non-empty string');
  if (typeof basePath !== 'string' || basePath === '') throw new TypeError('basePath must name the base ONNX model, safetensors checkpoint or config.json');
  const parsed = lineageOptionsSchema.safeParse(options);
  if (!parsed.success) throw new RangeError(`invalid lineage options: ${z.prettifyError(parsed.error)}`);
  const started = performance.now();
  const kind = lineageBaseKind(basePath);
  if (kind === 'config') {
    return notChecked(
      modelPath,
      basePath,
      kind,
      'a config.json has no weights: pass the base as ONNX or a safetensors checkpoint to check lineage',
      false,
      started,
    );
  }
  const [pruned, base] = [await openWeightSource(modelPath), await openWeightSource(basePath)];
  const headDim = parsed.data?.headDim ?? base.headDim ?? pruned.headDim;
  if (headDim === null)
    throw new MlrbError('BAD_DATA', `cannot tell head_dim of base ${base.path}: put its config.json beside it or pass headDim`, { file: base.path });
  const unreadable = [pruned, base].flatMap((source) => unreadableProjections(source).map((name) => `${name} of ${source.path}`));
  if (unreadable.length > 0) {
    return notChecked(
      pruned.path,
      base.path,
      kind,
      `projection weights cannot be read as float values (quantized, or not stored as raw bytes): ${unreadable.slice(0, 3).join(', ')}`,
      true,
      started,
    );
  }
  const alignment = alignHidden(pruned, base);
  const byChannels = alignment.aligned ? traceLayers(pruned, base, alignment, headDim) : null;
  const channelsReport = (layers: readonly LayerLineage[], hidden: UnitLineage | null, sampled: LineageReport['sampledHiddenChannels']) =>
    report(pruned, base, kind, 'channels', layers, hidden, sampled, started);
  if (alignment.aligned && byChannels && lineageVerdict(pruned.path, base.path, byChannels, alignment.hidden).status === 'derived') {
    return channelsReport(byChannels, alignment.hidden, { attention: alignment.attention.pruned.length, ffn: alignment.ffn.pruned.length });
  }
  // Hidden channels that match nothing may be a rotated basis (SliceGPT): compare what no rotation changes. A model
  // that derives neither way is reported as traced over hidden channels when they could be aligned.
  const rotated = traceRotatedLayers(pruned, base, headDim);
  if (!alignment.aligned || !byChannels || lineageVerdict(pruned.path, base.path, rotated, null).status === 'derived') {
    return report(pruned, base, kind, 'rotation-invariant', rotated, null, { attention: 0, ffn: 0 }, started);
  }
  return channelsReport(byChannels, alignment.hidden, { attention: alignment.attention.pruned.length, ffn: alignment.ffn.pruned.length });
}

function report(
  pruned: WeightSource,
  base: WeightSource,
  kind: LineageBaseKind,
  comparedBy: LineageReport['comparedBy'],
  layers: readonly LayerLineage[],
  hidden: UnitLineage | null,
  sampled: LineageReport['sampledHiddenChannels'],
  started: number,
): LineageReport {
  const keptBase = new Set(layers.map((layer) => layer.baseLayer));
  const { status, verdict } = lineageVerdict(pruned.path, base.path, layers, hidden);
  return {
    status,
    model: pruned.path,
    base: base.path,
    baseKind: kind,
    note: null,
    comparedBy,
    sampledHiddenChannels: sampled,
    threshold: MATCH_THRESHOLD,
    hiddenChannels: hidden,
    layers,
    removedLayers: base.shape.layers.map((layer) => layer.index).filter((index) => !keptBase.has(index)),
    units: unitTotals(layers, hidden),
    ms: performance.now() - started,
    verdict,
  };
}

/** Projection weights whose values cannot be read as floats (int8 with scales, packed 4-bit …). */
function unreadableProjections(source: WeightSource): string[] {
  const names = source.shape.layers.flatMap((layer) => Object.values(layer.projections).map((projection) => projection.tensor));
  return names.filter((name) => !hasReadableValues(source.graph.tensorByName.get(name)!));
}

function notChecked(model: string, base: string, baseKind: LineageBaseKind, note: string, warn: boolean, started: number): LineageReport {
  return {
    status: 'not-checked',
    model,
    base,
    baseKind,
    note,
    comparedBy: null,
    sampledHiddenChannels: { attention: 0, ffn: 0 },
    threshold: MATCH_THRESHOLD,
    hiddenChannels: null,
    layers: [],
    removedLayers: [],
    units: { total: 0, matched: 0 },
    ms: performance.now() - started,
    verdict: verdictOf([], warn ? [`lineage not checked: ${note}`] : []),
  };
}
