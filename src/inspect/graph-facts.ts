/**
 * What the graph itself says about running it, independent of config.json: the longest input its position
 * tables allow, whether attention runs as one fused op or as decomposed MatMul/Softmax blocks (and, for fused
 * ops, their head count), and the logits' element type. The DRAM measurement and estimate rest on these,
 * because a config.json can claim anything.
 */
import type { ModelShape } from './architecture.js';
import { dtypeFacts } from './dtypes.js';
import type { ModelGraph, ModelTensor } from './model-graph.js';

/** A table read at the token positions: the input can be at most `rows` tokens long. */
export interface PositionTable {
  readonly tensor: string;
  readonly rows: number;
}

export interface GraphFacts {
  /** The most restrictive position table (learned positions, rotary cos/sin caches); null when none. */
  readonly positionLimit: PositionTable | null;
  /**
   * 'fused': an ONNX Runtime attention op (Attention, MultiHeadAttention, GroupQueryAttention …) holds one
   * [heads, T, T] buffer; 'decomposed': MatMul, scale, mask and Softmax nodes, each with its own [heads, T, T]
   * output; 'none': neither was found.
   */
  readonly attention: 'fused' | 'decomposed' | 'none';
  /** num_heads of the fused attention ops (the widest), when they state it. */
  readonly fusedHeads: number | null;
  /** The logits output's element type ('float32', 'float16' …), null when no output looks like logits. */
  readonly logitsType: string | null;
}

const FUSED_ATTENTION_OPS = new Set(['Attention', 'MultiHeadAttention', 'GroupQueryAttention', 'PackedAttention', 'PackedMultiHeadAttention', 'DecoderMaskedMultiHeadAttention']);

const isFloatTable = (tensor: ModelTensor | undefined): tensor is ModelTensor =>
  tensor !== undefined && tensor.dims.length === 2 && (tensor.category === 'float' || tensor.category === 'low-precision');

/**
 * Tables whose rows are indexed by position: Gathers of a non-token table (token-type tables excluded: their
 * indices come from token_type_ids), EmbedLayerNormalization's position_embedding, and rotary cos/sin caches
 * that are sliced to the sequence length.
 */
function positionTables(graph: ModelGraph, shape: ModelShape): PositionTable[] {
  const tables: PositionTable[] = [];
  const add = (name: string | undefined): void => {
    const tensor = name === undefined ? undefined : graph.tensorByName.get(name);
    if (isFloatTable(tensor) && !tables.some((table) => table.tensor === tensor.name)) tables.push({ tensor: tensor.name, rows: tensor.dims[0]! });
  };
  for (const node of graph.info.nodes) {
    const [data, indices] = node.inputs;
    if (node.opType === 'Gather' && node.domain === '' && data !== shape.tokenEmbedding && !/token_type/i.test(indices ?? '')) add(data);
    if (node.opType === 'EmbedLayerNormalization') add(node.inputs[3]);
    if (node.opType === 'Slice' && data !== undefined && /(^|[^a-z])(cos|sin)/i.test(data)) add(data);
  }
  return tables;
}

function logitsType(graph: ModelGraph, shape: ModelShape): string | null {
  const outputs = graph.info.outputs;
  const logits = outputs.find((output) => /logits/i.test(output.name))
    ?? outputs.find((output) => output.shape?.length === 3 && shape.vocab !== null && output.shape[2] === shape.vocab);
  return logits ? dtypeFacts(logits.elemType).name : null;
}

export function readGraphFacts(graph: ModelGraph, shape: ModelShape): GraphFacts {
  const limit = positionTables(graph, shape).reduce<PositionTable | null>((least, table) => (least === null || table.rows < least.rows ? table : least), null);
  const fused = graph.info.nodes.filter((node) => FUSED_ATTENTION_OPS.has(node.opType));
  const heads = fused.map((node) => node.intAttributes.num_heads).filter((value): value is number => value !== undefined && value > 0);
  const decomposed = graph.info.nodes.some((node) => node.opType === 'Softmax');
  return {
    positionLimit: limit,
    attention: fused.length > 0 ? 'fused' : decomposed ? 'decomposed' : 'none',
    fusedHeads: heads.length > 0 ? Math.max(...heads) : null,
    logitsType: logitsType(graph, shape),
  };
}
