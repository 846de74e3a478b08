/**
 * A decoder's structure from its graph alone: embeddings, layers (an attention block starts one, the MLP
 * block after it joins it; Phi's parallel block is both), the final norm and the LM head, and which
 * initializers count as parameters. Counted: the tensors that reach a graph output, have more than one
 * element (graph scalars such as a decomposed LayerNorm's epsilon never count) and are read by a node
 * that computes on activations, or are embedding tables. Buffers that feed only position or mask
 * arithmetic (rotary inv_freq, cos/sin caches) are not parameters, as in transformers' num_parameters().
 */
import { blockRoles, normsBefore, projectionAt } from './block-roles.js';
import { buildGraphFlow, nodesBack, PASS_THROUGH_OPS, readersOf, type GraphFlow } from './flow.js';
import { headDimFromGraph } from './head-dim.js';
import { findResidualStream, type StreamBlock } from './stream.js';
import type { ModelGraph } from './model-graph.js';
import type { GraphLayer, GraphProjection, GraphStructure } from './structure-types.js';

function groupLayers(flow: GraphFlow, blocks: readonly StreamBlock[], data: ReadonlySet<string>): ReturnType<typeof blockRoles>[][] {
  const layers: ReturnType<typeof blockRoles>[][] = [];
  for (const block of blocks) {
    const roles = blockRoles(flow, block, data);
    if (roles.projections.size === 0) continue;
    const current = layers.at(-1);
    const hasMlp = (group: readonly ReturnType<typeof blockRoles>[]): boolean =>
      group.some((entry) => entry.projections.has('down') || entry.projections.has('up'));
    if (roles.attention || !current || hasMlp(current)) layers.push([roles]);
    else current.push(roles);
  }
  return layers;
}

function readsActivations(flow: GraphFlow, name: string, data: ReadonlySet<string>, depth = 0): boolean {
  return readersOf(flow, name).some(({ node }) => {
    if (node.inputs.some((input) => data.has(input))) return true;
    return depth < 4 && PASS_THROUGH_OPS.has(node.opType) && node.outputs[0] !== undefined && readsActivations(flow, node.outputs[0], data, depth + 1);
  });
}

function namesOf(flow: GraphFlow, projections: GraphLayer['projections'], norms: readonly string[]): string[] {
  return [...projections.values()]
    .flatMap((projection) => [projection.weight, flow.nodes[projection.node]!.name, projection.bias ?? ''])
    .concat(norms)
    .filter((name) => name !== '');
}

export function analyzeGraph(graph: ModelGraph): GraphStructure | null {
  const flow = buildGraphFlow(graph);
  const stream = findResidualStream(flow);
  if (stream === null) return null;
  const layers = groupLayers(flow, stream.blocks, stream.data).map((group): GraphLayer => {
    const projections = new Map(group.flatMap((roles) => [...roles.projections]));
    const norms = group.flatMap((roles) => roles.norms);
    return { projections, norms, names: namesOf(flow, projections, norms) };
  });
  if (layers.length === 0) return null;

  const tail: StreamBlock = {
    streamIn: stream.last,
    streamOut: '',
    floor: stream.lastFloor,
    nodes: new Set(graph.info.outputs.flatMap((output) => [...nodesBack(flow, output.name, stream.lastFloor)])),
  };
  const tailProjections = [...tail.nodes]
    .sort((a, b) => a - b)
    .map((index) => projectionAt(flow, index, stream.data))
    .filter((p): p is GraphProjection => p !== null);
  const vocab = graph.tensorByName.get(stream.tokenEmbedding)!.dims[0]!;
  const head = tailProjections.find((projection) => graph.tensorByName.get(projection.weight)!.dims.includes(vocab)) ?? tailProjections.at(-1) ?? null;
  const finalNorms = head ? normsBefore(flow, tail, [head.dataInput], new Set(tailProjections.map((projection) => projection.node))) : [];

  const parameters = new Set<string>();
  for (const tensor of graph.tensors) {
    if (tensor.graph !== '' || tensor.elementCount <= 1 || !flow.live.has(tensor.name)) continue;
    if (tensor.category !== 'float' && tensor.category !== 'low-precision') continue;
    if (tensor.name === stream.tokenEmbedding || stream.auxEmbeddings.includes(tensor.name) || readsActivations(flow, tensor.name, stream.data))
      parameters.add(tensor.name);
  }
  const unused = graph.tensors
    .filter((tensor) => tensor.source === 'initializer' && tensor.graph === '' && !flow.live.has(tensor.name))
    .map((tensor) => tensor.name);
  const structure = { tokenEmbedding: stream.tokenEmbedding, auxEmbeddings: stream.auxEmbeddings, layers, finalNorms, head, parameters, unused };
  return { ...structure, headDim: headDimFromGraph(flow, structure) };
}
