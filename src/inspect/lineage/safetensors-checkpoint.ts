/**
 * A Hugging Face safetensors checkpoint folder as a weights-only model: `model.safetensors`, or the shards a
 * `model.safetensors.index.json` names. Headers are read, never the data, and the tensors are indexed as a
 * ModelGraph without nodes, so roles come from Hugging Face module names (tensor-roles' fallback) and values
 * are read later by graph-tensor-values, rows at a time. Hugging Face stores a Linear weight [out, in]; GPT-2's
 * Conv1D stores [in, out]: the orientation comes from the config's model_type, since names cannot say it
 * for a square matrix.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../../errors.js';
import { pathEntryExists } from '../../io/regular-file.js';
import { readJsonFileUnder } from '../../io/text-file.js';
import type { NativeTensorInfo } from '../../native/binding.js';
import { describeShape, type ModelShape } from '../graph/architecture.js';
import { readHfArchitecture, type HfArchitecture } from '../../model/hf-config.js';
import { buildModelGraph, type ModelGraph } from '../graph/model-graph.js';
import { readSafetensorsHeader } from './safetensors-header.js';

export const SINGLE_FILE = 'model.safetensors';
export const INDEX_FILE = 'model.safetensors.index.json';

const indexSchema = z.object({ weight_map: z.record(z.string(), z.string().min(1)) });

export interface SafetensorsCheckpoint {
  readonly folder: string;
  readonly shards: readonly string[];
  readonly graph: ModelGraph;
  readonly shape: ModelShape;
  /** config.json in the folder, when there is one (head_dim, heads). */
  readonly config: HfArchitecture | null;
}

/** True for a folder holding model.safetensors or its index, or a .safetensors file. */
export function isSafetensorsCheckpoint(candidate: string): boolean {
  const stats = statSync(candidate, { throwIfNoEntry: false });
  if (stats?.isFile()) return candidate.toLowerCase().endsWith('.safetensors');
  return stats?.isDirectory() === true && (pathEntryExists(path.join(candidate, SINGLE_FILE)) || pathEntryExists(path.join(candidate, INDEX_FILE)));
}

function shardFiles(folder: string): string[] {
  const index = path.join(folder, INDEX_FILE);
  if (pathEntryExists(index)) {
    const parsed = indexSchema.safeParse(readJsonFileUnder(index, { kind: 'config', root: folder, what: 'safetensors index' }));
    if (!parsed.success) throw new MlrbError('BAD_MODEL', `${index} has no weight_map of tensor names to shard files`, { file: index });
    return [...new Set(Object.values(parsed.data.weight_map))].sort().map((shard) => path.join(folder, shard));
  }
  const single = path.join(folder, SINGLE_FILE);
  if (!pathEntryExists(single)) throw new MlrbError('BAD_MODEL', `${folder} holds neither ${SINGLE_FILE} nor ${INDEX_FILE}`, { file: folder });
  return [single];
}

export function openSafetensorsCheckpoint(location: string): SafetensorsCheckpoint {
  const resolved = path.resolve(location);
  const isFile = statSync(resolved, { throwIfNoEntry: false })?.isFile() === true;
  const folder = isFile ? path.dirname(resolved) : resolved;
  const shards = isFile ? [resolved] : shardFiles(folder);
  const tensors = new Map<string, NativeTensorInfo>();
  for (const shard of shards) {
    for (const tensor of readSafetensorsHeader(shard, folder).tensors) {
      if (tensors.has(tensor.name))
        throw new MlrbError('BAD_MODEL', `tensor ${tensor.name} is stored twice (again in ${shard})`, { file: shard, tensor: tensor.name });
      tensors.set(tensor.name, tensor);
    }
  }
  const graph = buildModelGraph({
    path: folder,
    fileSize: 0,
    irVersion: 0,
    producerName: 'safetensors',
    producerVersion: '',
    graphName: '',
    opsets: [],
    inputs: [],
    outputs: [],
    tensors: [...tensors.values()],
    nodes: [],
    externalFiles: [],
  });
  const configFile = path.join(folder, 'config.json');
  const config = pathEntryExists(configFile) ? readHfArchitecture(configFile) : null;
  const conv1d = config?.modelType === 'gpt2';
  return { folder, shards, graph, shape: withStoredOrientation(describeShape(graph), !conv1d), config };
}

/** Every projection as stored by its framework: [out, in] for Linear, [in, out] for Conv1D. */
function withStoredOrientation(shape: ModelShape, outFirst: boolean): ModelShape {
  const layers = shape.layers.map((layer) => {
    const projections = Object.fromEntries(
      Object.entries(layer.projections).map(([role, projection]) => {
        const [inDim, outDim] = projection.outFirst === outFirst ? [projection.inDim, projection.outDim] : [projection.outDim, projection.inDim];
        return [role, { ...projection, inDim, outDim, outFirst }];
      }),
    );
    return { ...layer, projections };
  });
  return { ...shape, layers };
}
