/**
 * The residual stream of a decoder, read off the graph: the token embedding Gather (its indices computed from the
 * token ids, input_ids: graph-input-dependence), then from each stream value the residual Add whose other operand was computed from it. The
 * nodes feeding that operand since the previous stream value are one block (attention, MLP, or both in
 * parallel as in Phi). An Add of something not computed from the stream (position or token-type embedding)
 * continues the stream without a block. Fused SkipLayerNormalization carries the sum in its 4th output.
 */
import { descendants, nodesBack, readersOf, SHAPE_OPS, weightBehind, type GraphFlow } from './flow.js';
import { inputDependence, readKey } from './input-dependence.js';

export interface StreamBlock {
  readonly streamIn: string;
  readonly streamOut: string;
  /** Index of the node making streamIn (or -1 for a graph input); block nodes lie after it. */
  readonly floor: number;
  readonly nodes: ReadonlySet<number>;
}

export interface ResidualStream {
  readonly tokenEmbedding: string;
  readonly auxEmbeddings: readonly string[];
  /** Every value computed from the token embedding: the model's activations. */
  readonly data: ReadonlySet<string>;
  readonly blocks: readonly StreamBlock[];
  readonly last: string;
  readonly lastFloor: number;
}

export const SKIP_NORMS = new Set(['SkipLayerNormalization', 'SkipSimplifiedLayerNormalization']);
// ORT's fused embedding: word (input 2), position (3) and segment (4) tables summed (output 2) and normalized (output 0).
const EMBED_NORM = 'EmbedLayerNormalization';
/** Fused ops whose normalized output (and norm weights) belong to the block after the stream value they make. */
const NORMALIZING_PRODUCERS = new Set([...SKIP_NORMS, EMBED_NORM]);
const INDEX_PASS = new Set(['Reshape', 'Cast', 'Unsqueeze', 'Squeeze', 'Identity', 'Flatten']);

function indicesFromGraphInput(flow: GraphFlow, value: string, depth = 0): boolean {
  if (flow.graph.info.inputs.some((input) => input.name === value)) return true;
  const index = flow.producer.get(value);
  if (index === undefined || depth > 4) return false;
  const node = flow.nodes[index]!;
  return INDEX_PASS.has(node.opType) && node.inputs[0] !== undefined && indicesFromGraphInput(flow, node.inputs[0], depth + 1);
}

interface TableRead {
  readonly table: string;
  readonly output: string;
  readonly fromInput: boolean;
  /** Its rows are chosen by the token ids' values (input_ids): the token embedding, whatever its size. */
  readonly fromTokenIds: boolean;
  readonly rows: number;
  /** Tables an EmbedLayerNormalization adds in with this one (positions, segments). */
  readonly fused: readonly string[];
}

function embeddingTables(flow: GraphFlow): TableRead[] {
  const reads: TableRead[] = [];
  const dependenceOf = inputDependence(flow);
  for (const node of flow.nodes) {
    if (node.opType === EMBED_NORM && node.inputs[2]) {
      const table = flow.graph.tensorByName.get(node.inputs[2]);
      const output = node.outputs[2] || node.outputs[0];
      if (table?.dims.length === 2 && output) {
        reads.push({
          table: table.name,
          output,
          fromInput: true,
          fromTokenIds: readKey(dependenceOf, [node.inputs[0] ?? '']) === 'tokens',
          rows: table.dims[0]!,
          fused: [node.inputs[3], node.inputs[4]].filter((name): name is string => !!name),
        });
      }
      continue;
    }
    if (node.opType !== 'Gather' || node.outputs[0] === undefined || !flow.live.has(node.outputs[0])) continue;
    const weight = weightBehind(flow, node.inputs[0] ?? '');
    const tensor = weight === null ? undefined : flow.graph.tensorByName.get(weight.name);
    if (!tensor || tensor.dims.length !== 2 || (tensor.category !== 'float' && tensor.category !== 'low-precision')) continue;
    const indices = node.inputs[1] ?? '';
    reads.push({
      table: tensor.name,
      output: node.outputs[0],
      fromInput: indicesFromGraphInput(flow, indices),
      fromTokenIds: readKey(dependenceOf, [indices]) === 'tokens',
      rows: tensor.dims[0]!,
      fused: [],
    });
  }
  return reads;
}

/**
 * Block nodes lie after this index: the stream value's producer, or just before it when that is a fused
 * SkipLayerNormalization, whose normalized output (and norm weights) belong to the block it feeds.
 */
function floorOf(flow: GraphFlow, value: string): number {
  const index = flow.producer.get(value);
  if (index === undefined) return -1;
  return NORMALIZING_PRODUCERS.has(flow.nodes[index]!.opType) ? index - 1 : index;
}

/** Does `value` depend on `stream`'s data (not only its shape), looking back no further than its producer? */
function computedFrom(flow: GraphFlow, value: string, stream: string): boolean {
  if (value === stream) return true;
  const producer = flow.producer.get(stream);
  for (const index of nodesBack(flow, value, floorOf(flow, stream))) {
    const node = flow.nodes[index]!;
    if (index === producer || (node.inputs.includes(stream) && !SHAPE_OPS.has(node.opType))) return true;
  }
  return false;
}

// A same-type Cast (RMSNorm's upcast, kept by TorchScript) or an Identity can sit between the stream and its Add.
const VALUE_PASS = new Set(['Cast', 'Identity', 'Dropout']);

interface NextValue {
  readonly value: string;
  readonly final: boolean;
}

/**
 * SliceGPT carries the residual from one layer's rotated basis into the next through a stored matrix: the stream
 * goes on through MatMul(stream, shortcut) into the Add that sums it with the block's output (computed from the
 * stream). The Add's output and the block's output, or null when `node` is no such MatMul.
 */
function rotatedResidual(flow: GraphFlow, node: GraphFlow['nodes'][number], inputIndex: number, stream: string): { sum: string; block: string } | null {
  const output = node.outputs[0];
  if (node.opType !== 'MatMul' || inputIndex !== 0 || !output || weightBehind(flow, node.inputs[1] ?? '') === null) return null;
  for (const { node: add, inputIndex: side } of readersOf(flow, output)) {
    const block = add.opType === 'Add' && add.inputs.length === 2 ? add.inputs[1 - side]! : '';
    if (block !== '' && add.outputs[0] && computedFrom(flow, block, stream)) return { sum: add.outputs[0], block };
  }
  return null;
}

function nextStreamValue(
  flow: GraphFlow,
  stream: string,
  tables: readonly TableRead[],
  tokenTable: string,
  blocks: StreamBlock[],
  auxEmbeddings: string[],
): NextValue | null {
  const candidates = [stream];
  for (let index = 0; index < candidates.length && index < 8; index++) {
    const current = candidates[index]!;
    for (const { node, inputIndex } of readersOf(flow, current)) {
      if (node.opType === 'Add' && node.inputs.length === 2) {
        const other = node.inputs[1 - inputIndex]!;
        // Reached through a Cast (fp16 exports promote the residual), the block still starts at the stream
        // value itself: its nodes may come before the Cast in the graph's order, so look back to the stream.
        const origin = computedFrom(flow, other, current) ? current : current !== stream && computedFrom(flow, other, stream) ? stream : null;
        if (origin !== null) {
          blocks.push({ streamIn: origin, streamOut: node.outputs[0]!, floor: floorOf(flow, origin), nodes: nodesBack(flow, other, floorOf(flow, origin)) });
        } else {
          const aux = tables.find((table) => table.output === other || computedFrom(flow, other, table.output));
          if (aux && aux.table !== tokenTable) auxEmbeddings.push(aux.table);
        }
        return { value: node.outputs[0]!, final: false };
      }
      if (SKIP_NORMS.has(node.opType) && inputIndex <= 1) {
        // The sum is output 3; without it this is the last residual Add fused with the final norm.
        const sum = node.outputs[3] ?? '';
        const other = node.inputs[1 - inputIndex]!;
        blocks.push({
          streamIn: current,
          streamOut: sum || node.outputs[0]!,
          floor: floorOf(flow, current),
          nodes: nodesBack(flow, other, floorOf(flow, current)),
        });
        return { value: sum || node.outputs[0]!, final: sum === '' };
      }
      const rotated = rotatedResidual(flow, node, inputIndex, stream);
      if (rotated !== null) {
        blocks.push({ streamIn: stream, streamOut: rotated.sum, floor: floorOf(flow, stream), nodes: nodesBack(flow, rotated.block, floorOf(flow, stream)) });
        return { value: rotated.sum, final: false };
      }
      if (VALUE_PASS.has(node.opType) && node.outputs[0]) candidates.push(node.outputs[0]);
    }
  }
  return null;
}

export function findResidualStream(flow: GraphFlow): ResidualStream | null {
  const tables = embeddingTables(flow);
  // The table read at the token ids; by rows only among tables read at some input when the ids' input is not named input_ids.
  const token = [...tables].sort((a, b) => Number(b.fromTokenIds) - Number(a.fromTokenIds) || Number(b.fromInput) - Number(a.fromInput) || b.rows - a.rows)[0];
  if (!token) return null;
  // Every output of the embedding's node carries activations (a fused one's normalized output too).
  const producer = flow.producer.get(token.output);
  const data = descendants(flow, ...(producer === undefined ? [token.output] : flow.nodes[producer]!.outputs.filter((output) => output !== '')));
  const auxEmbeddings: string[] = [...token.fused];
  const blocks: StreamBlock[] = [];
  let current = token.output;
  for (let step = 0; step < flow.nodes.length; step++) {
    const next = nextStreamValue(flow, current, tables, token.table, blocks, auxEmbeddings);
    if (next === null) break;
    current = next.value;
    if (next.final) break;
  }
  return { tokenEmbedding: token.table, auxEmbeddings, data, blocks, last: current, lastFloor: floorOf(flow, current) };
}
