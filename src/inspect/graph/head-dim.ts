/**
 * head_dim from how attention splits its query: the projection's output is reshaped to
 * [..., -1, head_dim] (transformers' view(*input_shape, -1, self.head_dim)), and the last entry of that
 * Reshape's target, a constant or the last piece of a Concat, is head_dim. Fused attention ops (ORT's
 * Attention, GroupQueryAttention, MultiHeadAttention) state num_heads instead. This lets an ONNX base without
 * config.json beside it, and without --num-heads, tell its head count (hidden / head_dim).
 */
import { FUSED_ATTENTION } from './block-roles.js';
import { readersOf, type GraphFlow } from './flow.js';
import type { GraphStructure } from './structure-types.js';
import { readIntegerValues } from './tensor-values.js';

// Ops between the projection and the split into heads: bias, a fused qkv's Split/Slice, layout.
const BEFORE_RESHAPE = new Set(['Add', 'Split', 'Slice', 'Cast', 'Identity', 'Mul', 'Div']);
const CONSTANT_PASS = new Set(['Unsqueeze', 'Cast', 'Identity', 'Reshape', 'Squeeze']);

function lastConstant(flow: GraphFlow, value: string, depth = 0): number | null {
  const tensor = flow.graph.tensorByName.get(value);
  if (tensor) return readIntegerValues(tensor)?.at(-1) ?? null;
  const index = flow.producer.get(value);
  if (index === undefined || depth > 4) return null;
  const node = flow.nodes[index]!;
  if (node.opType === 'Concat') return lastConstant(flow, node.inputs.at(-1) ?? '', depth + 1);
  return CONSTANT_PASS.has(node.opType) ? lastConstant(flow, node.inputs[0] ?? '', depth + 1) : null;
}

/** head_dim read off the first layer's query split, or null when the graph does not show it. */
export function headDimFromGraph(flow: GraphFlow, structure: Pick<GraphStructure, 'layers'>): number | null {
  const projections = structure.layers[0]?.projections;
  const query = projections?.get('q') ?? projections?.get('qkv');
  const dims = query ? flow.graph.tensorByName.get(query.weight)?.dims : undefined;
  if (!query || !dims) return null;
  // A Gemm's 2-D output is first reshaped back to [batch, seq, width]; only a proper divisor of the query
  // width is a head split.
  const width = (query.outFirst ? dims[0]! : dims[1]!) / (projections?.has('q') ? 1 : 3);
  const fusedHeads = flow.nodes[query.node]!.intAttributes.num_heads;
  if (fusedHeads !== undefined && fusedHeads > 0 && width % fusedHeads === 0) return width / fusedHeads;
  let frontier = [query.output];
  for (let step = 0; step < 4 && frontier.length > 0; step++) {
    const next: string[] = [];
    for (const value of frontier) {
      for (const { node, inputIndex } of readersOf(flow, value)) {
        const heads = FUSED_ATTENTION.has(node.opType) && inputIndex === 0 ? node.intAttributes.num_heads : undefined;
        if (heads !== undefined && heads > 0 && width % heads === 0) return width / heads;
        if (node.opType === 'Reshape' && inputIndex === 0) {
          const headDim = lastConstant(flow, node.inputs[1] ?? '');
          if (headDim !== null && headDim > 0 && headDim < width && width % headDim === 0) return headDim;
          next.push(node.outputs[0]!);
        } else if (BEFORE_RESHAPE.has(node.opType)) {
          next.push(...node.outputs.filter((output) => output !== ''));
        }
      }
    }
    frontier = next;
  }
  return null;
}
