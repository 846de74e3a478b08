/**
 * The tables a graph reads by position, found by how the graph uses them, never by their names or sizes (a
 * byte-level model's token embedding has 256 rows, fewer than its 2,048 learned positions):
 *   - a table is read by position when the rows it returns are chosen by positions (graph-input-dependence):
 *     Gather indices or Slice bounds computed from position_ids, the attention mask or only the inputs' shapes.
 *     Tables read at the token ids (the token embedding) or at token_type_ids are not;
 *   - a position table is a rotary cos/sin cache when the rows it returns are multiplied into activations
 *     (x·cos + rotate(x)·sin), or when it is the cos/sin cache input of ONNX Runtime's RotaryEmbedding or
 *     GroupQueryAttention; otherwise it is a learned position table, whose rows are added to the token embedding
 *     (so is ORT's EmbedLayerNormalization position input).
 * What a short table means differs (dram-measure): the kit's Hugging Face model holds the same learned table and
 * cannot run a longer input either, while it computes rotary positions on the fly, so a short cache is the export's.
 */
import { buildGraphFlow, readersOf, weightBehind, type GraphFlow } from './flow.js';
import { inputDependence, readKey } from './input-dependence.js';
import type { ModelGraph, ModelTensor } from './model-graph.js';

export interface PositionTable {
  readonly tensor: string;
  readonly rows: number;
  readonly kind: 'learned' | 'rotary';
}

/** Fused ops' cos/sin cache inputs, by index. */
const ROTARY_CACHE_INPUTS: Readonly<Record<string, readonly number[]>> = { RotaryEmbedding: [2, 3], GroupQueryAttention: [7, 8] };
const EMBED_NORM_POSITIONS = 3;
/** Ops that pass table rows on unchanged in value (layout, dtype, picking rows or columns). */
const ROW_LAYOUT = new Set(['Reshape', 'Unsqueeze', 'Squeeze', 'Cast', 'Transpose', 'Slice', 'Gather', 'Expand', 'Identity', 'Concat', 'Flatten', 'Tile']);

const isFloatTable = (tensor: ModelTensor | undefined): tensor is ModelTensor =>
  tensor !== undefined && tensor.dims.length === 2 && (tensor.category === 'float' || tensor.category === 'low-precision');

/** 'rotary' when the rows read reach a Mul before any Add, 'learned' otherwise. */
function useOfRows(flow: GraphFlow, rows: string): PositionTable['kind'] {
  const pending = [rows];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const value = pending.pop()!;
    if (seen.has(value) || seen.size > 64) continue;
    seen.add(value);
    for (const { node } of readersOf(flow, value)) {
      if (node.opType === 'Add' || node.opType === 'Sum') return 'learned';
      if (node.opType === 'Mul') return 'rotary';
      if (ROW_LAYOUT.has(node.opType)) pending.push(...node.outputs.filter((output) => output !== ''));
    }
  }
  return 'learned';
}

export function findPositionTables(graph: ModelGraph, flow: GraphFlow = buildGraphFlow(graph)): PositionTable[] {
  const dependenceOf = inputDependence(flow);
  const found = new Map<string, PositionTable>();
  const add = (value: string | undefined, kind: PositionTable['kind'] | (() => PositionTable['kind'])): void => {
    const weight = value === undefined || value === '' ? null : weightBehind(flow, value);
    const tensor = weight === null ? undefined : graph.tensorByName.get(weight.name);
    if (!isFloatTable(tensor) || found.has(tensor.name)) return;
    found.set(tensor.name, { tensor: tensor.name, rows: tensor.dims[0]!, kind: typeof kind === 'function' ? kind() : kind });
  };
  for (const node of flow.nodes) {
    const output = node.outputs[0] ?? '';
    if (
      node.domain === '' &&
      node.opType === 'Gather' &&
      (node.intAttributes.axis ?? 0) === 0 &&
      readKey(dependenceOf, [node.inputs[1] ?? '']) === 'positions'
    ) {
      add(node.inputs[0], () => useOfRows(flow, output));
    }
    if (node.domain === '' && node.opType === 'Slice' && readKey(dependenceOf, [node.inputs[1] ?? '', node.inputs[2] ?? '']) === 'positions') {
      add(node.inputs[0], () => useOfRows(flow, output));
    }
    for (const index of ROTARY_CACHE_INPUTS[node.opType] ?? []) add(node.inputs[index], 'rotary');
    if (node.opType === 'EmbedLayerNormalization') add(node.inputs[EMBED_NORM_POSITIONS], 'learned');
  }
  return [...found.values()];
}
