/**
 * Parameters counted from storage: every stored element of every dtype (initializers, sparse initializers and
 * Constant nodes in every form, in subgraphs and model-local functions too), each stored tensor once, and a tensor
 * that holds another's values not again: the same bytes (a tied head an exporter copied, a shared layer written out
 * twice), or the token embedding's values in the LM head stored transposed or quantized (graph-tied-head.ts: the
 * transpose TorchScript and dynamo fold for a tied head). Nothing a model stores escapes the count, whatever form it
 * takes, so "% removed" cannot be raised by storing weights as integers, bit-planes or strings. The values decide,
 * never config.json: a head that config.json calls tied but holds other values is stored parameters like any.
 * Embedding parameters follow Hugging Face's num_parameters(exclude_embeddings): lookup tables (token, position,
 * token-type) are embeddings, an untied LM head is not.
 */
import { effectiveConsumers, type ModelGraph } from './model-graph.js';
import type { ModelShape } from './architecture.js';
import { storedCopies } from './stored-copies.js';

export type TiedEmbeddings = 'shared' | 'duplicate' | 'untied' | 'no-lm-head';

export interface ParameterTotals {
  /** Stored elements, every dtype, each stored tensor once and copies not again. */
  readonly total: number;
  readonly embedding: number;
  readonly nonEmbedding: number;
  readonly tiedEmbeddings: TiedEmbeddings;
  /** The counted elements by dtype: tensors, elements and their stored bytes. */
  readonly byDtype: Readonly<Record<string, DtypeTotals>>;
  /** Stored tensors not counted again because they hold another's values: what each copies. */
  readonly copies: readonly { readonly tensor: string; readonly copies: string; readonly elements: number }[];
}

export interface DtypeTotals {
  readonly tensors: number;
  readonly elements: number;
  readonly bytes: number;
}

function tiedState(graph: ModelGraph, shape: ModelShape): TiedEmbeddings {
  const embedding = shape.tokenEmbedding === null ? undefined : graph.tensorByName.get(shape.tokenEmbedding);
  if (embedding && effectiveConsumers(graph, embedding.name).some(({ consumer }) => ['MatMul', 'Gemm'].includes(consumer.node.opType))) {
    return 'shared';
  }
  if (shape.lmHead === null || !graph.tensorByName.has(shape.lmHead)) return 'no-lm-head';
  return shape.headCopiesEmbedding ? 'duplicate' : 'untied';
}

export function countParameters(graph: ModelGraph, shape: ModelShape): ParameterTotals {
  const tiedEmbeddings = tiedState(graph, shape);
  const copyOf = storedCopies(graph);
  if (tiedEmbeddings === 'duplicate' && shape.lmHead !== null && shape.tokenEmbedding !== null) copyOf.set(shape.lmHead, shape.tokenEmbedding);
  const counted = graph.tensors.filter((tensor) => !copyOf.has(tensor.name));
  const total = counted.reduce((sum, tensor) => sum + tensor.elementCount, 0);
  const embedding = counted.reduce((sum, tensor) => {
    const role = shape.roles.get(tensor.name)?.role;
    return sum + (role === 'embed' || role === 'aux_embed' ? tensor.elementCount : 0);
  }, 0);
  const copies = [...copyOf].map(([tensor, original]) => ({ tensor, copies: original, elements: graph.tensorByName.get(tensor)?.elementCount ?? 0 }));
  return { total, embedding, nonEmbedding: total - embedding, tiedEmbeddings, byDtype: totalsOf(counted), copies };
}

function totalsOf(tensors: readonly ModelGraph['tensors'][number][]): Record<string, DtypeTotals> {
  const totals: Record<string, { tensors: number; elements: number; bytes: number }> = {};
  for (const tensor of tensors) {
    const entry = (totals[tensor.dtype] ??= { tensors: 0, elements: 0, bytes: 0 });
    entry.tensors += 1;
    entry.elements += tensor.elementCount;
    entry.bytes += tensor.length;
  }
  return totals;
}

/** Every tensor's stored bytes by dtype (copies included: they are in the file, and in memory, twice). */
export function totalsByDtype(graph: ModelGraph): Record<string, DtypeTotals> {
  return totalsOf(graph.tensors);
}
