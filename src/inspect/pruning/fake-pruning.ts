/**
 * Fake pruning: weights zeroed but kept. Zeros cost the same DRAM as the weights they replace, so they
 * must not pass for pruning. Structured zeros are read per layer: all-zero heads (a head_dim block of
 * q/k/v outputs, of a fused qkv's thirds, or of o inputs), all-zero FFN channels (up/gate outputs or down
 * inputs) and all-zero hidden channels, where "zero" is exactly zero (the zero scan) or negligible against
 * the tensor's other channels (graph-channel-norms: noise-scaled heads); unstructured zeros as the share
 * of exact zeros in the weights.
 */
import type { LayerShape, ModelShape, Projection } from '../graph/architecture.js';
import { negligibleChannels } from '../graph/channel-norms.js';
import type { ModelGraph } from '../graph/model-graph.js';
import { scanTensorZeros, type TensorZeros } from '../graph/zero-scan.js';

/** Exact zeros are rare in trained fp16/fp32 weights; above this share they are a pruning mask. */
export const DEFAULT_SPARSITY_THRESHOLD = 0.05;

export interface LayerZeros {
  readonly layer: number;
  readonly zeroHeads: number;
  readonly zeroFfnChannels: number;
  readonly zeroHiddenChannels: number;
  readonly sparsity: number;
}

export interface FakePruningReport {
  readonly detected: boolean;
  readonly reasons: readonly string[];
  readonly sparsity: number;
  readonly zeroElements: number;
  readonly scannedElements: number;
  readonly layers: readonly LayerZeros[];
  readonly unscanned: readonly string[];
  readonly scannedBytes: number;
  readonly scanMs: number;
  readonly gbPerSecond: number;
}

/** Flags of the projection's output channels (side 'out') or input channels (side 'in'). */
function channelFlags(zeros: TensorZeros | undefined, projection: Projection | undefined, side: 'in' | 'out'): Uint8Array | null {
  if (!zeros || !projection) return null;
  const outputsAreRows = projection.outFirst;
  return (side === 'out') === outputsAreRows ? zeros.zeroRows : zeros.zeroColumns;
}

function orFlags(flags: readonly (Uint8Array | null)[]): Uint8Array | null {
  const present = flags.filter((flag): flag is Uint8Array => flag !== null);
  const length = Math.max(0, ...present.map((flag) => flag.length));
  if (present.length === 0) return null;
  const merged = new Uint8Array(length);
  for (const flag of present)
    if (flag.length === length)
      flag.forEach((value, index) => {
        merged[index] = merged[index]! | value;
      });
  return merged;
}

const countSet = (flags: Uint8Array | null): number => (flags ? flags.reduce((sum, value) => sum + value, 0) : 0);

function zeroBlocks(flags: Uint8Array | null, block: number): Uint8Array | null {
  if (!flags || flags.length % block !== 0) return null;
  const blocks = new Uint8Array(flags.length / block);
  for (let index = 0; index < blocks.length; index++) blocks[index] = flags.subarray(index * block, (index + 1) * block).every((value) => value === 1) ? 1 : 0;
  return blocks;
}

/** A fused qkv's output flags as its three equal parts (the only split its shape allows without GQA). */
function thirds(flags: Uint8Array | null): (Uint8Array | null)[] {
  if (!flags || flags.length % 3 !== 0) return [];
  const part = flags.length / 3;
  return [0, 1, 2].map((index) => flags.subarray(index * part, (index + 1) * part));
}

function layerZeros(layer: LayerShape, results: ReadonlyMap<string, TensorZeros>, headDim: number): LayerZeros {
  const p = layer.projections;
  const of = (projection: Projection | undefined): TensorZeros | undefined => (projection ? results.get(projection.tensor) : undefined);
  const heads = orFlags([
    zeroBlocks(channelFlags(of(p.q), p.q, 'out'), headDim),
    zeroBlocks(channelFlags(of(p.k), p.k, 'out'), headDim),
    zeroBlocks(channelFlags(of(p.v), p.v, 'out'), headDim),
    zeroBlocks(channelFlags(of(p.o), p.o, 'in'), headDim),
    ...thirds(channelFlags(of(p.qkv), p.qkv, 'out')).map((part) => zeroBlocks(part, headDim)),
  ]);
  const ffn = orFlags([channelFlags(of(p.up), p.up, 'out'), channelFlags(of(p.gate), p.gate, 'out'), channelFlags(of(p.down), p.down, 'in')]);
  const hiddenSide = [p.q, p.k, p.v, p.qkv, p.up, p.gate].map((projection) => channelFlags(of(projection), projection, 'in'));
  const hidden = orFlags([...hiddenSide, channelFlags(of(p.o), p.o, 'out'), channelFlags(of(p.down), p.down, 'out')]);
  const scanned = layer.tensors.map((name) => results.get(name)).filter((zeros): zeros is TensorZeros => zeros !== undefined);
  const elements = scanned.reduce((sum, zeros) => sum + zeros.elements, 0);
  return {
    layer: layer.index,
    zeroHeads: countSet(heads),
    zeroFfnChannels: countSet(ffn),
    zeroHiddenChannels: countSet(hidden),
    sparsity: elements > 0 ? scanned.reduce((sum, zeros) => sum + zeros.zeros, 0) / elements : 0,
  };
}

/** The scan's zero flags, OR'ed with negligible channels of every layer projection (exact-zero counts unchanged). */
function withNegligibleChannels(graph: ModelGraph, shape: ModelShape, results: ReadonlyMap<string, TensorZeros>): Map<string, TensorZeros> {
  const merged = new Map(results);
  for (const layer of shape.layers) {
    for (const projection of Object.values(layer.projections)) {
      const zeros = projection ? results.get(projection.tensor) : undefined;
      const tensor = projection ? graph.tensorByName.get(projection.tensor) : undefined;
      const negligible = tensor && zeros ? negligibleChannels(tensor) : null;
      if (!zeros || !negligible) continue;
      merged.set(zeros.tensor, {
        ...zeros,
        zeroRows: zeros.zeroRows.map((flag, index) => flag | negligible.rows[index]!),
        zeroColumns: zeros.zeroColumns.map((flag, index) => flag | negligible.columns[index]!),
      });
    }
  }
  return merged;
}

export async function detectFakePruning(
  graph: ModelGraph,
  shape: ModelShape,
  options: { readonly headDim: number; readonly sparsityThreshold?: number; readonly threads?: number },
): Promise<FakePruningReport> {
  const threshold = options.sparsityThreshold ?? DEFAULT_SPARSITY_THRESHOLD;
  if (!(threshold > 0 && threshold <= 1)) throw new RangeError(`sparsityThreshold must be in (0, 1], got ${threshold}`);
  const weights = graph.tensors.filter((tensor) => shape.parameters.has(tensor.name) && tensor.category === 'float' && tensor.dims.length >= 2);
  const scan = await scanTensorZeros(weights, options.threads === undefined ? {} : { threads: options.threads });
  const structured = withNegligibleChannels(graph, shape, scan.results);
  const layers = shape.layers.map((layer) => layerZeros(layer, structured, options.headDim));
  const zeroElements = [...scan.results.values()].reduce((sum, zeros) => sum + zeros.zeros, 0);
  const scannedElements = [...scan.results.values()].reduce((sum, zeros) => sum + zeros.elements, 0);
  const sparsity = scannedElements > 0 ? zeroElements / scannedElements : 0;
  const reasons: string[] = [];
  const describe = (pick: (layer: LayerZeros) => number, what: string): void => {
    const hit = layers.filter((layer) => pick(layer) > 0);
    if (hit.length > 0) reasons.push(`${what} zeroed but kept: ${hit.map((layer) => `layer ${layer.layer}: ${pick(layer)}`).join(', ')}`);
  };
  describe((layer) => layer.zeroHeads, 'attention heads');
  describe((layer) => layer.zeroFfnChannels, 'FFN channels');
  describe((layer) => layer.zeroHiddenChannels, 'hidden channels');
  if (sparsity >= threshold)
    reasons.push(`${(sparsity * 100).toFixed(1)}% of weight elements are exactly zero (unstructured sparsity; threshold ${(threshold * 100).toFixed(1)}%)`);
  return {
    detected: reasons.length > 0,
    reasons,
    sparsity,
    zeroElements,
    scannedElements,
    layers,
    unscanned: scan.unscanned,
    scannedBytes: scan.bytes,
    scanMs: scan.ms,
    gbPerSecond: scan.gbPerSecond,
  };
}
