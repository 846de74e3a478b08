/**
 * Tiny causal LMs with one defect ONNX Runtime refuses when it loads the graph as submitted, placed where the
 * CPU fusion used to hide it: in the attention nodes the rewrite replaces. Scoring any of them is wrong,
 * whatever the rewritten graph would have computed.
 */
import { buildTinyCausalLm } from './model-builders/tiny-causal-lm.js';
import { intAttribute, makeTensor, writeModelFiles, type ModelProto, type NodeProto } from './model-builders/onnx-builder.js';

export type AttentionDefect =
  /** Every Softmax carries an attribute the operator does not have. */
  | 'softmax-unknown-attribute'
  /** The first attention scale Mul appears twice, so two nodes define the same value. */
  | 'duplicated-scale-node';

function withUnknownSoftmaxAttribute(model: ModelProto): ModelProto {
  const nodes = model.graph.nodes.map(
    (node): NodeProto => (node.opType === 'Softmax' ? { ...node, attributes: [...(node.attributes ?? []), intAttribute('mlrb_unknown', 1)] } : node),
  );
  return { ...model, graph: { ...model.graph, nodes } };
}

function withDuplicatedScaleNode(model: ModelProto): ModelProto {
  const nodes: NodeProto[] = [];
  let duplicated = false;
  for (const node of model.graph.nodes) {
    nodes.push(node);
    if (!duplicated && node.opType === 'Mul' && node.inputs.includes('const_attention_scale')) {
      nodes.push({ ...node, name: `${node.name ?? 'scale'}_again` });
      duplicated = true;
    }
  }
  if (!duplicated) throw new Error('the tiny LM has no attention scale Mul to duplicate');
  return { ...model, graph: { ...model.graph, nodes } };
}

/** Writes the mutant's model.onnx into `directory` and returns its path. */
export function writeAttentionMutant(directory: string, defect: AttentionDefect): string {
  const { model } = buildTinyCausalLm({ seed: 41 });
  const mutant = defect === 'softmax-unknown-attribute' ? withUnknownSoftmaxAttribute(model) : withDuplicatedScaleNode(model);
  return writeModelFiles(directory, mutant);
}

/**
 * A valid tiny LM whose last node is named as the CPU fusion names its first fused node
 * (mlrb_attention_0): ORT accepts the graph as submitted and refuses every fused rewrite of it.
 */
export function writeFusedNodeNameTaken(directory: string): string {
  const { model } = buildTinyCausalLm({ seed: 43 });
  const last = model.graph.nodes.length - 1;
  const nodes = model.graph.nodes.map((node, index): NodeProto => (index === last ? { ...node, name: 'mlrb_attention_0' } : node));
  return writeModelFiles(directory, { ...model, graph: { ...model.graph, nodes } });
}

/**
 * A grouped-query tiny LM (4 query heads of 8, 2 key/value heads) whose repeat_kv Reshape merges to
 * `merge` instead of [0, 4, -1, 8]: ORT's Reshape fails on it or lays the heads out otherwise.
 */
export function writeRepeatMergeMutant(directory: string, merge: readonly number[]): string {
  const { model } = buildTinyCausalLm({ seed: 47, hiddenSize: 32, numHeads: 4, kvRepeat: 2 });
  const initializers = model.graph.initializers.map((tensor) =>
    tensor.name === 'const_repeat_merge' ? makeTensor(tensor.name, 'int64', [merge.length], merge) : tensor,
  );
  return writeModelFiles(directory, { ...model, graph: { ...model.graph, initializers } });
}
