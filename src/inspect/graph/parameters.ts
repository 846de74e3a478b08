/**
 * Parameters counted from storage: every stored element of every dtype (initializers, sparse initializers and
 * Constant nodes in every form, in subgraphs and model-local functions too), each stored tensor once, and a tensor
 * that holds another's values not again: the same bytes (a tied head an exporter copied, a shared layer written out
 * twice), or the token embedding's values in the LM head stored transposed or quantized (graph/tied-head.ts: the
 * transpose TorchScript and dynamo fold for a tied head). Nothing a model stores escapes the count, whatever form it
 * takes, so "% removed" cannot be raised by storing weights as integers, bit-planes or strings. The values decide,
 * never config.json: a head that config.json calls tied but holds other values is stored parameters like any.
 * Embedding parameters follow Hugging Face's num_parameters(exclude_embeddings): lookup tables (token, position,
 * token-type) are embeddings, an untied LM head is not.
 */
import path from 'node:path';
import { effectiveConsumers, type ModelGraph, type ModelTensor } from './model-graph.js';
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

/** One graph of a model and the shape read from it: a causal model is one, an encoder-decoder export several. */
export interface CountedGraph {
  readonly graph: ModelGraph;
  readonly shape: ModelShape;
}

export function countParameters(graph: ModelGraph, shape: ModelShape): ParameterTotals {
  return countStoredParameters([{ graph, shape }]);
}

/**
 * The parameters of a model stored as several graphs that are loaded together (an encoder-decoder export): the
 * union of what every graph stores, a tensor another graph holds the same bytes of counted once, each graph's tied
 * head copy not again. Copies name their tensors `file/name` here, since two graphs may use one name. The LM head's
 * state is that of the first graph holding one (the decoder).
 */
export function countStoredParameters(graphs: readonly CountedGraph[]): ParameterTotals {
  const copyOf = storedCopies(graphs.map(({ graph }) => graph));
  const original = (tensor: ModelTensor): ModelTensor => {
    let found = tensor;
    for (let next = copyOf.get(found); next !== undefined; next = copyOf.get(found)) found = next;
    return found;
  };
  const states = graphs.map(({ graph, shape }) => tiedState(graph, shape));
  graphs.forEach(({ graph, shape }, index) => {
    if (states[index] !== 'duplicate' || shape.lmHead === null || shape.tokenEmbedding === null) return;
    const [head, embedding] = [graph.tensorByName.get(shape.lmHead), graph.tensorByName.get(shape.tokenEmbedding)];
    // The head's original (itself, unless an earlier graph stored the same head) holds the embedding's values; one
    // already counted as the embedding's copy stays so, which keeps the chain free of cycles.
    if (head && embedding && original(head) !== original(embedding)) copyOf.set(original(head), embedding);
  });
  const entries = graphs.flatMap(({ graph, shape }) => graph.tensors.map((tensor) => ({ tensor, graph, role: shape.roles.get(tensor.name)?.role })));
  const counted = entries.filter(({ tensor }) => !copyOf.has(tensor));
  const total = counted.reduce((sum, { tensor }) => sum + tensor.elementCount, 0);
  const embedding = counted.reduce((sum, { tensor, role }) => sum + (role === 'embed' || role === 'aux_embed' ? tensor.elementCount : 0), 0);
  const fileOf = new Map(entries.map(({ tensor, graph }) => [tensor, graph.info.path]));
  const label = (tensor: ModelTensor): string => (graphs.length === 1 ? tensor.name : `${path.basename(fileOf.get(tensor) ?? '')}/${tensor.name}`);
  const copies = entries
    .filter(({ tensor }) => copyOf.has(tensor))
    .map(({ tensor }) => ({ tensor: label(tensor), copies: label(original(tensor)), elements: tensor.elementCount }));
  return {
    total,
    embedding,
    nonEmbedding: total - embedding,
    tiedEmbeddings: states.find((state) => state !== 'no-lm-head') ?? 'no-lm-head',
    byDtype: totalsOf(counted.map(({ tensor }) => tensor)),
    copies,
  };
}

function totalsOf(tensors: readonly ModelTensor[]): Record<string, DtypeTotals> {
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
