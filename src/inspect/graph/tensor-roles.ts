/**
 * What a tensor is in a transformer: which layer it belongs to and which role it plays there. The graph
 * decides (graph-structure: the residual stream, its blocks and how values flow through them), so
 * generated names (dynamo's val_58), decomposed norms and renumbered layers read the same. Names only
 * number the layers when they agree with the graph, and are the fallback for graphs without a
 * recognizable residual stream: Hugging Face, GPT-2, Phi, Llama, NeoX module paths, tensors with
 * anonymous names borrowing the reading node's name, and Gather tables and vocab projections by use.
 */
import { analyzeGraph } from './structure.js';
import type { GraphStructure, ProjectionRole } from './structure-types.js';
import { effectiveConsumers, type ModelGraph, type ModelTensor } from './model-graph.js';

export type TensorRoleName = ProjectionRole | 'norm' | 'embed' | 'aux_embed' | 'lm_head' | 'final_norm' | 'other';

export interface TensorRole {
  readonly layer: number | null;
  readonly role: TensorRoleName;
  readonly part: 'weight' | 'bias';
}

const LAYER_CONTAINERS = new Set(['layers', 'layer', 'h', 'blocks', 'block', 'decoder_layers', 'transformer_blocks']);
const MLP_CONTEXT = new Set(['mlp', 'ffn', 'feed_forward', 'feedforward']);

const PROJECTION_TOKENS: readonly (readonly [ProjectionRole, readonly string[]])[] = [
  ['qkv', ['qkv', 'qkv_proj', 'c_attn', 'query_key_value', 'wqkv', 'w_pack', 'in_proj']],
  ['q', ['q_proj', 'query', 'q', 'wq', 'q_lin', 'query_proj']],
  ['k', ['k_proj', 'key', 'k', 'wk', 'k_lin', 'key_proj']],
  ['v', ['v_proj', 'value', 'v', 'wv', 'v_lin', 'value_proj']],
  ['o', ['o_proj', 'out_proj', 'wo', 'out_lin', 'attn_out']],
  ['gate', ['gate_proj', 'w1', 'gate', 'wg']],
  ['up', ['up_proj', 'fc1', 'fc_in', 'c_fc', 'mlp_up', 'dense_h_to_4h', 'w3', 'up']],
  ['down', ['down_proj', 'fc2', 'fc_out', 'mlp_down', 'dense_4h_to_h', 'w2', 'down']],
];
// Names whose meaning depends on the enclosing module (Phi's self_attn.dense vs GPT-2's mlp.c_proj).
const CONTEXTUAL_OUTPUT = new Set(['dense', 'c_proj', 'output', 'out', 'proj']);

const TOKEN_EMBEDDING = new Set(['embed_tokens', 'wte', 'token_embedding', 'word_embeddings', 'tok_embeddings', 'embed_in', 'tok_emb', 'embedding']);
const POSITION_EMBEDDING = new Set(['wpe', 'position_embedding', 'position_embeddings', 'embed_positions', 'pos_emb', 'pos_embedding']);
const LM_HEAD = new Set(['lm_head', 'embed_out', 'output_layer']);

function tokensOf(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[./:\\]+/)
    .filter((token) => token !== '');
}

function layerIndexOf(tokens: readonly string[]): number | null {
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    const glued = /^(?:layers?|h|blocks?)_(\d+)$/.exec(token);
    if (glued) return Number(glued[1]);
    const next = tokens[index + 1];
    if (LAYER_CONTAINERS.has(token) && next !== undefined && /^\d+$/.test(next)) return Number(next);
  }
  return null;
}

function projectionOf(tokens: readonly string[]): ProjectionRole | 'norm' | null {
  if (tokens.some((token) => /norm|^ln(_|\d|f$|$)/.test(token))) return 'norm';
  for (const [role, names] of PROJECTION_TOKENS) {
    if (tokens.some((token) => names.includes(token))) return role;
  }
  if (tokens.some((token) => CONTEXTUAL_OUTPUT.has(token))) {
    if (tokens.some((token) => MLP_CONTEXT.has(token))) return 'down';
    return 'o'; // attention context, or a bare "output" as in mlrb's fixtures
  }
  return null;
}

function roleFromName(name: string): TensorRole | null {
  const tokens = tokensOf(name);
  const part = tokens.at(-1) === 'bias' ? 'bias' : 'weight';
  const layer = layerIndexOf(tokens);
  if (layer !== null) {
    const role = projectionOf(tokens);
    return role === null ? null : { layer, role, part };
  }
  if (tokens.some((token) => POSITION_EMBEDDING.has(token))) return { layer: null, role: 'aux_embed', part };
  if (tokens.some((token) => TOKEN_EMBEDDING.has(token))) return { layer: null, role: 'embed', part };
  if (tokens.some((token) => LM_HEAD.has(token))) return { layer: null, role: 'lm_head', part };
  if (tokens.some((token) => /norm|^ln(_|f$|$)/.test(token))) return { layer: null, role: 'final_norm', part };
  return null;
}

const isFloatMatrix = (tensor: ModelTensor): boolean => tensor.dims.length === 2 && (tensor.category === 'float' || tensor.category === 'low-precision');

/** Roles for every tensor of the graph; tensors that are not weights get role 'other'. */
export function classifyTensors(graph: ModelGraph, structure: GraphStructure | null = analyzeGraph(graph)): Map<string, TensorRole> {
  return structure === null ? classifyByName(graph) : rolesFromStructure(graph, structure);
}

/** Layer numbers: the names' when every layer carries a distinct, increasing one, else graph order. */
export function layerNumbers(structure: GraphStructure): number[] {
  const hinted = structure.layers.map((layer) => {
    const counts = new Map<number, number>();
    for (const hint of layer.names.map((name) => layerIndexOf(tokensOf(name)))) if (hint !== null) counts.set(hint, (counts.get(hint) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  });
  const increasing = hinted.every((hint, index) => hint !== null && (index === 0 || hint > hinted[index - 1]!));
  return increasing ? (hinted as number[]) : structure.layers.map((_, index) => index);
}

function rolesFromStructure(graph: ModelGraph, structure: GraphStructure): Map<string, TensorRole> {
  const roles = new Map<string, TensorRole>(graph.tensors.map((tensor) => [tensor.name, { layer: null, role: 'other', part: 'weight' }]));
  const numbers = layerNumbers(structure);
  structure.layers.forEach((layer, position) => {
    const number = numbers[position]!;
    for (const name of layer.norms) roles.set(name, { layer: number, role: 'norm', part: 'weight' });
    for (const [role, projection] of layer.projections) {
      roles.set(projection.weight, { layer: number, role, part: 'weight' });
      if (projection.bias !== null) roles.set(projection.bias, { layer: number, role, part: 'bias' });
    }
  });
  for (const name of structure.finalNorms) roles.set(name, { layer: null, role: 'final_norm', part: 'weight' });
  if (structure.head) {
    roles.set(structure.head.weight, { layer: null, role: 'lm_head', part: 'weight' });
    if (structure.head.bias !== null) roles.set(structure.head.bias, { layer: null, role: 'lm_head', part: 'bias' });
  }
  for (const name of structure.auxEmbeddings) roles.set(name, { layer: null, role: 'aux_embed', part: 'weight' });
  roles.set(structure.tokenEmbedding, { layer: null, role: 'embed', part: 'weight' });
  return roles;
}

function classifyByName(graph: ModelGraph): Map<string, TensorRole> {
  const roles = new Map<string, TensorRole>();
  for (const tensor of graph.tensors) {
    let role = roleFromName(tensor.name);
    for (const { consumer } of role === null ? effectiveConsumers(graph, tensor.name) : []) {
      role ??= consumer.node.name === '' ? null : roleFromName(consumer.node.name);
      if (role && tensor.dims.length <= 1 && role.part === 'weight' && role.role !== 'norm' && role.role !== 'final_norm') {
        role = { ...role, part: 'bias' }; // a vector read by a projection's node is that projection's bias
      }
    }
    roles.set(tensor.name, role ?? { layer: null, role: 'other', part: 'weight' });
  }
  assignEmbeddingsByUse(graph, roles);
  return roles;
}

/** Gather tables outside layers are embeddings whatever their names: the token embedding (named so, else the
 * one with most rows) and auxiliary tables (positions, token types). */
function assignEmbeddingsByUse(graph: ModelGraph, roles: Map<string, TensorRole>): void {
  const tables = graph.tensors.filter(
    (tensor) => isFloatMatrix(tensor) && (graph.consumers.get(tensor.name) ?? []).some((c) => c.node.opType === 'Gather' && c.inputIndex === 0),
  );
  const named = tables.find((tensor) => roles.get(tensor.name)?.role === 'embed');
  const token = named ?? [...tables].sort((a, b) => (b.dims[0] ?? 0) - (a.dims[0] ?? 0))[0];
  for (const table of tables) {
    if (roles.get(table.name)?.layer !== null) continue;
    roles.set(table.name, { layer: null, role: table === token ? 'embed' : 'aux_embed', part: 'weight' });
  }
  const vocab = token?.dims[0];
  if (vocab === undefined) return;
  for (const tensor of graph.tensors) {
    const role = roles.get(tensor.name);
    if (!isFloatMatrix(tensor) || role?.role !== 'other' || !tensor.dims.includes(vocab)) continue;
    const projects = effectiveConsumers(graph, tensor.name).some(({ consumer }) => ['MatMul', 'Gemm'].includes(consumer.node.opType));
    if (projects) roles.set(tensor.name, { layer: null, role: 'lm_head', part: 'weight' });
  }
}
