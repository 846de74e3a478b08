/**
 * Where the weights of a model compared for lineage come from: an ONNX model (its initializers, raw or external
 * data) or a Hugging Face safetensors checkpoint. Both become a ModelGraph (for the tensors' bytes on disk) and a
 * ModelShape (the role of each tensor per layer), so lineage never asks which one it has. A config.json has no
 * weights: it is the one base lineage cannot check.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { describeShape, type ModelShape } from '../graph/architecture.js';
import { hfArchitectureBeside } from '../../model/hf-config.js';
import { readModelGraph, type ModelGraph } from '../graph/model-graph.js';
import { isSafetensorsCheckpoint, openSafetensorsCheckpoint } from './safetensors-checkpoint.js';

export type LineageBaseKind = 'onnx' | 'safetensors' | 'config';

export interface WeightSource {
  readonly kind: 'onnx' | 'safetensors';
  readonly path: string;
  readonly graph: ModelGraph;
  readonly shape: ModelShape;
  /** head_dim as a config.json (beside the ONNX file, or in the checkpoint) or the graph states it. */
  readonly headDim: number | null;
}

export function lineageBaseKind(base: string): LineageBaseKind {
  if (isSafetensorsCheckpoint(base)) return 'safetensors';
  return path.extname(base).toLowerCase() === '.json' ? 'config' : 'onnx';
}

/**
 * The path check-pruning's structural comparison reads for BASE: a safetensors checkpoint is compared through the
 * config.json in its folder (widths and counts), the weights only feed lineage; any other BASE is itself.
 */
export function structuralBasePath(base: string): string {
  if (lineageBaseKind(base) !== 'safetensors') return base;
  const folder = statSync(base).isDirectory() ? base : path.dirname(base);
  return path.join(folder, 'config.json');
}

export async function openWeightSource(location: string): Promise<WeightSource> {
  if (lineageBaseKind(location) === 'safetensors') {
    const checkpoint = openSafetensorsCheckpoint(location);
    return { kind: 'safetensors', path: checkpoint.folder, graph: checkpoint.graph, shape: checkpoint.shape, headDim: checkpoint.config?.headDim ?? null };
  }
  const graph = await readModelGraph(location);
  const shape = describeShape(graph);
  return { kind: 'onnx', path: graph.info.path, graph, shape, headDim: hfArchitectureBeside(location)?.headDim ?? shape.headDim };
}
