/**
 * Parameter and byte totals. Embedding parameters follow Hugging Face's num_parameters(exclude_embeddings):
 * lookup tables (token, position, token-type) are embeddings, an untied LM head is not. Tied embeddings
 * are counted once: a single initializer read both by Gather and by the output MatMul is one tensor
 * anyway, and a separate LM head with the embedding's (or transposed) shape is a copy when config.json
 * says tie_word_embeddings or holds the embedding's values (it then still costs its bytes, which the byte
 * totals keep). Which tensors count at all is the shape's `parameters`: unused initializers and graph
 * scalars never do.
 */
import { effectiveConsumers, type ModelGraph } from './model-graph.js';
import type { ModelShape } from './architecture.js';

export type TiedEmbeddings = 'shared' | 'duplicate' | 'untied' | 'no-lm-head';

export interface ParameterTotals {
  readonly total: number;
  readonly embedding: number;
  readonly nonEmbedding: number;
  readonly tiedEmbeddings: TiedEmbeddings;
}

export interface DtypeTotals {
  readonly tensors: number;
  readonly elements: number;
  readonly bytes: number;
}

function tiedState(graph: ModelGraph, shape: ModelShape, tieWordEmbeddings: boolean | null): TiedEmbeddings {
  const embedding = shape.tokenEmbedding === null ? undefined : graph.tensorByName.get(shape.tokenEmbedding);
  if (embedding && effectiveConsumers(graph, embedding.name).some(({ consumer }) => ['MatMul', 'Gemm'].includes(consumer.node.opType))) {
    return 'shared';
  }
  const head = shape.lmHead === null ? undefined : graph.tensorByName.get(shape.lmHead);
  if (!head) return 'no-lm-head';
  const sameShape = embedding !== undefined && head.elementCount === embedding.elementCount &&
    [...head.dims].sort((a, b) => a - b).join() === [...embedding.dims].sort((a, b) => a - b).join();
  return sameShape && (tieWordEmbeddings === true || shape.headCopiesEmbedding) ? 'duplicate' : 'untied';
}

export function countParameters(graph: ModelGraph, shape: ModelShape, tieWordEmbeddings: boolean | null): ParameterTotals {
  let total = 0;
  let embedding = 0;
  for (const tensor of graph.tensors) {
    if (!shape.parameters.has(tensor.name)) continue;
    total += tensor.elementCount;
    const role = shape.roles.get(tensor.name)?.role;
    if (role === 'embed' || role === 'aux_embed') embedding += tensor.elementCount;
  }
  const tiedEmbeddings = tiedState(graph, shape, tieWordEmbeddings);
  if (tiedEmbeddings === 'duplicate') total -= graph.tensorByName.get(shape.lmHead!)?.elementCount ?? 0;
  return { total, embedding, nonEmbedding: total - embedding, tiedEmbeddings };
}

/** Every tensor's stored bytes by dtype (shape constants included: they are in memory too). */
export function totalsByDtype(graph: ModelGraph): Record<string, DtypeTotals> {
  const totals: Record<string, { tensors: number; elements: number; bytes: number }> = {};
  for (const tensor of graph.tensors) {
    const entry = (totals[tensor.dtype] ??= { tensors: 0, elements: 0, bytes: 0 });
    entry.tensors += 1;
    entry.elements += tensor.elementCount;
    entry.bytes += tensor.length;
  }
  return totals;
}
