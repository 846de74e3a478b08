/**
 * What the graph itself says about running it, independent of config.json: the longest input its position
 * tables allow, whether attention runs as one fused op or as decomposed MatMul/Softmax blocks (and, for fused
 * ops, their head count), and the logits' element type. The DRAM measurement and estimate rest on these,
 * because a config.json can claim anything.
 */
import type { ModelShape } from './architecture.js';
import { dtypeFacts } from './dtypes.js';
import { findPositionTables, type PositionTable } from './position-tables.js';
import type { ModelGraph } from './model-graph.js';

export type { PositionTable } from './position-tables.js';

export interface GraphFacts {
  /**
   * The learned position table with the fewest rows: the longest input the graph (and the Hugging Face model it was
   * exported from) can run. null when there is none.
   */
  readonly positionLimit: PositionTable | null;
  /** Rotary cos/sin caches the graph reads by position: an export's artefact, whatever their rows (graph-position-tables). */
  readonly rotaryCaches: readonly PositionTable[];
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

const FUSED_ATTENTION_OPS = new Set([
  'Attention',
  'MultiHeadAttention',
  'GroupQueryAttention',
  'PackedAttention',
  'PackedMultiHeadAttention',
  'DecoderMaskedMultiHeadAttention',
]);

function logitsType(graph: ModelGraph, shape: ModelShape): string | null {
  const outputs = graph.info.outputs;
  const logits =
    outputs.find((output) => /logits/i.test(output.name)) ??
    outputs.find((output) => output.shape?.length === 3 && shape.vocab !== null && output.shape[2] === shape.vocab);
  return logits ? dtypeFacts(logits.elemType).name : null;
}

export function readGraphFacts(graph: ModelGraph, shape: ModelShape): GraphFacts {
  const tables = findPositionTables(graph);
  const limit = tables
    .filter((table) => table.kind === 'learned')
    .reduce<PositionTable | null>((least, table) => (least === null || table.rows < least.rows ? table : least), null);
  const fused = graph.info.nodes.filter((node) => FUSED_ATTENTION_OPS.has(node.opType));
  const heads = fused.map((node) => node.intAttributes.num_heads).filter((value): value is number => value !== undefined && value > 0);
  const decomposed = graph.info.nodes.some((node) => node.opType === 'Softmax');
  return {
    positionLimit: limit,
    rotaryCaches: tables.filter((table) => table.kind === 'rotary'),
    attention: fused.length > 0 ? 'fused' : decomposed ? 'decomposed' : 'none',
    fusedHeads: heads.length > 0 ? Math.max(...heads) : null,
    logitsType: logitsType(graph, shape),
  };
}
