/**
 * The model a pruned one is compared with: a base ONNX file (read like any model, weights untouched) or a
 * Hugging Face config.json. A config has no tensors, so its counts come from the architecture's formula
 * (config-parameters): the same base whatever model is checked against it.
 */
import path from 'node:path';
import { MlrbError } from '../../errors.js';
import { describeShape, type LayerShape } from '../graph/architecture.js';
import { readConfigParameters } from '../config/parameters.js';
import { hfArchitectureBeside } from '../../model/hf-config.js';
import { layerWidths } from '../graph/layer-widths.js';
import { readModelGraph } from '../graph/model-graph.js';
import { countParameters } from '../graph/parameters.js';

export interface PruningBase {
  readonly kind: 'onnx' | 'config';
  readonly source: string;
  readonly hidden: number;
  readonly vocab: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly intermediate: number;
  readonly layerCount: number;
  /** Base layers by index; for a config every layer has the same widths. */
  readonly layers: ReadonlyMap<number, { readonly shape: LayerShape | null; readonly params: number }>;
  readonly totalParams: number;
}

export interface BaseOptions {
  /** Base head count when the base is ONNX without a config.json beside it. */
  readonly numHeads?: number;
}

/** Every layer of a config's architecture has the formula's per-layer count; no tensor of the checked model is read. */
function configBase(file: string): PruningBase {
  const counted = readConfigParameters(file);
  const layers = new Map(Array.from({ length: counted.layerCount }, (_, index) => [index, { shape: null, params: counted.perLayer }] as const));
  return {
    kind: 'config',
    source: counted.source,
    hidden: counted.hidden,
    vocab: counted.vocab,
    heads: counted.heads,
    kvHeads: counted.kvHeads,
    headDim: counted.headDim,
    intermediate: counted.intermediate,
    layerCount: counted.layerCount,
    layers,
    totalParams: counted.total,
  };
}

async function onnxBase(basePath: string, options: BaseOptions): Promise<PruningBase> {
  const graph = await readModelGraph(basePath);
  const config = hfArchitectureBeside(basePath);
  const shape = describeShape(graph);
  const first = shape.layers[0];
  // Without config.json or --num-heads, the graph's split of the query into heads tells head_dim.
  const queryWidth = first ? layerWidths(first).queryWidth : null;
  const heads = options.numHeads ?? config?.numHeads ?? (shape.headDim !== null && queryWidth !== null ? queryWidth / shape.headDim : undefined);
  if (heads === undefined || !Number.isInteger(heads) || shape.hidden === null || shape.vocab === null) {
    throw new MlrbError('BAD_DATA', `cannot tell the head count of base ${graph.info.path}: put its config.json beside it or pass --num-heads`, {
      file: graph.info.path,
    });
  }
  const headDim = config?.headDim ?? (options.numHeads === undefined && shape.headDim !== null ? shape.headDim : shape.hidden / heads);
  const width = (pick: (layer: LayerShape) => number | undefined, fallback: number): number => (first ? pick(first) : undefined) ?? fallback;
  return {
    kind: 'onnx',
    source: graph.info.path,
    hidden: shape.hidden,
    vocab: shape.vocab,
    heads,
    headDim,
    kvHeads: width((layer) => (layer.projections.k ? layer.projections.k.outDim / headDim : undefined), config?.numKeyValueHeads ?? heads),
    intermediate: width((layer) => (layer.projections.up ?? layer.projections.gate)?.outDim, config?.intermediateSize ?? 4 * shape.hidden),
    layerCount: shape.layers.length,
    layers: new Map(shape.layers.map((layer) => [layer.index, { shape: layer, params: layer.params }])),
    totalParams: countParameters(graph, shape).total,
  };
}

/** BASE ending in .json is a Hugging Face config; anything else is read as an ONNX model. */
export async function loadPruningBase(basePath: string, options: BaseOptions = {}): Promise<PruningBase> {
  if (options.numHeads !== undefined && (!Number.isInteger(options.numHeads) || options.numHeads < 1)) {
    throw new RangeError(`numHeads must be a positive integer, got ${options.numHeads}`);
  }
  if (path.extname(basePath).toLowerCase() === '.json') return configBase(basePath);
  return onnxBase(basePath, options);
}
