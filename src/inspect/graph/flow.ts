/**
 * Data flow over the main graph: which node makes each value, which initializers reach a graph output (the
 * others are dead weight an exporter left behind), and walks forward or backward from a value. Names play
 * no part here; the structural checks read roles off this flow.
 */
import type { NativeNodeInfo } from '../../native/binding.js';
import type { ModelGraph } from './model-graph.js';

export interface GraphFlow {
  readonly graph: ModelGraph;
  /** Main-graph nodes in graph (topological) order. */
  readonly nodes: readonly NativeNodeInfo[];
  readonly producer: ReadonlyMap<string, number>;
  /** Values that some graph output depends on (node outputs, initializers and inputs alike). */
  readonly live: ReadonlySet<string>;
}

// Ops that only re-present one value (layout, dtype, dropout); a weight read through them is still that weight.
export const PASS_THROUGH_OPS = new Set(['Transpose', 'Cast', 'Identity', 'Dropout', 'Reshape', 'Flatten', 'Squeeze', 'Unsqueeze', 'DequantizeLinear']);

export function buildGraphFlow(graph: ModelGraph): GraphFlow {
  const nodes = graph.info.nodes.filter((node) => node.graph === '');
  const producer = new Map<string, number>();
  nodes.forEach((node, index) => {
    for (const output of node.outputs) if (output !== '') producer.set(output, index);
  });
  const live = new Set<string>();
  const pending = graph.info.outputs.map((output) => output.name);
  while (pending.length > 0) {
    const value = pending.pop()!;
    if (live.has(value)) continue;
    live.add(value);
    const index = producer.get(value);
    if (index !== undefined) for (const input of nodes[index]!.inputs) if (input !== '' && !live.has(input)) pending.push(input);
  }
  // Subgraphs (If / Loop bodies) and functions read outer values by name; what they read counts as used.
  for (const node of graph.info.nodes) if (node.graph !== '') for (const input of node.inputs) if (input !== '') live.add(input);
  return { graph, nodes, producer, live };
}

/** Main-graph consumers of a value. */
export function readersOf(flow: GraphFlow, value: string): { node: NativeNodeInfo; index: number; inputIndex: number }[] {
  return (flow.graph.consumers.get(value) ?? [])
    .filter(({ node }) => node.graph === '')
    .map(({ node, inputIndex }) => ({ node, index: nodeIndex(flow, node), inputIndex }));
}

export function nodeIndex(flow: GraphFlow, node: NativeNodeInfo): number {
  const output = node.outputs.find((name) => name !== '');
  return output === undefined ? -1 : (flow.producer.get(output) ?? -1);
}

// Ops that read only a value's shape: what they compute (positions, masks) does not carry its data.
export const SHAPE_OPS = new Set(['Shape', 'Size']);

/** Every value computed from the starts' data (starts included); shape reads do not count. */
export function descendants(flow: GraphFlow, ...starts: string[]): Set<string> {
  const found = new Set<string>(starts);
  const pending = [...starts];
  while (pending.length > 0) {
    for (const { node } of readersOf(flow, pending.pop()!)) {
      if (SHAPE_OPS.has(node.opType)) continue;
      for (const output of node.outputs)
        if (output !== '' && !found.has(output)) {
          found.add(output);
          pending.push(output);
        }
    }
  }
  return found;
}

/**
 * Nodes between `from` (exclusive) and `value`: every node whose output `value` depends on, walking back no
 * further than node index `floor`. Exporters emit nodes in module order, so this is one block's work.
 */
export function nodesBack(flow: GraphFlow, value: string, floor: number): Set<number> {
  const found = new Set<number>();
  const pending = [value];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    const index = flow.producer.get(current);
    if (index === undefined || index <= floor || found.has(index)) continue;
    found.add(index);
    for (const input of flow.nodes[index]!.inputs) if (input !== '') pending.push(input);
  }
  return found;
}

/** The initializer behind a node input, looking back through ops that only re-present it. */
export function weightBehind(flow: GraphFlow, value: string, depth = 0): { name: string; transposed: boolean } | null {
  if (flow.graph.tensorByName.has(value)) return { name: value, transposed: false };
  const index = flow.producer.get(value);
  if (index === undefined || depth > 4) return null;
  const node = flow.nodes[index]!;
  if (!PASS_THROUGH_OPS.has(node.opType) || node.inputs[0] === undefined) return null;
  const found = weightBehind(flow, node.inputs[0], depth + 1);
  if (found === null) return null;
  const transposes = node.opType === 'Transpose' && (flow.graph.tensorByName.get(found.name)?.dims.length ?? 0) === 2;
  return { name: found.name, transposed: found.transposed !== transposes };
}
