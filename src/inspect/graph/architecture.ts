/**
 * The transformer shape a graph's weights imply: hidden size, vocabulary and, per layer, the in/out
 * widths of every projection. Orientation ([in, out] for MatMul, [out, in] for Gemm transB or a
 * Transpose in front) comes from how the graph reads each weight, so pruned widths are read correctly.
 */
import { analyzeGraph } from './structure.js';
import { headCopiesEmbedding } from './tied-head.js';
import { effectiveConsumers, type ModelGraph, type ModelTensor } from './model-graph.js';
import type { ProjectionRole } from './structure-types.js';
import { classifyTensors, type TensorRole } from './tensor-roles.js';

export interface Projection {
  readonly tensor: string;
  readonly inDim: number;
  readonly outDim: number;
  /** True when stored [out, in] (PyTorch Linear layout), false for [in, out]. */
  readonly outFirst: boolean;
  readonly biasLength: number | null;
}

export interface LayerShape {
  readonly index: number;
  readonly projections: Readonly<Partial<Record<ProjectionRole, Projection>>>;
  readonly normSizes: readonly number[];
  readonly params: number;
  readonly tensors: readonly string[];
}

export interface ModelShape {
  readonly hidden: number | null;
  readonly vocab: number | null;
  readonly layers: readonly LayerShape[];
  readonly tokenEmbedding: string | null;
  readonly lmHead: string | null;
  readonly roles: ReadonlyMap<string, TensorRole>;
  /** The tensors counted as parameters: see graph-structure (all float tensors of rank >= 1 without one). */
  readonly parameters: ReadonlySet<string>;
  /** Initializers no graph output depends on: not counted, reported apart. */
  readonly unusedInitializers: readonly string[];
  /** The LM head is a separate tensor holding the token embedding's values (a tied head an exporter copied). */
  readonly headCopiesEmbedding: boolean;
  /** Where the roles came from: the graph's residual stream, or names when none was recognized. */
  readonly rolesFrom: 'graph' | 'names';
  /** head_dim as the graph splits the query into heads, when it shows it (graph-head-dim). */
  readonly headDim: number | null;
}

// Roles whose input side is the residual stream (hidden); the others write back into it.
const READS_HIDDEN: readonly ProjectionRole[] = ['q', 'k', 'v', 'qkv', 'up', 'gate'];

/** Learned parameters: floating or low-precision tensors of rank >= 1 with more than one element (single values are graph scalars). */
export function isParameter(tensor: ModelTensor): boolean {
  return (tensor.category === 'float' || tensor.category === 'low-precision') && tensor.dims.length >= 1 && tensor.elementCount > 1;
}

function storedOutFirst(graph: ModelGraph, tensor: ModelTensor, role: ProjectionRole, hidden: number | null): boolean {
  for (const { consumer, transposed } of effectiveConsumers(graph, tensor.name)) {
    const { opType, intAttributes } = consumer.node;
    if ((opType === 'MatMul' || opType === 'MatMulInteger') && consumer.inputIndex === 1) return transposed;
    if (opType === 'Gemm' && consumer.inputIndex === 1) return (intAttributes.transB ?? 0) === 1 ? !transposed : transposed;
    if (opType === 'MatMul' && consumer.inputIndex === 0) return !transposed; // W @ x
  }
  const [first, second] = tensor.dims;
  if (hidden === null || first === second) return false;
  return READS_HIDDEN.includes(role) ? second === hidden : first === hidden;
}

export function describeShape(graph: ModelGraph, givenRoles?: ReadonlyMap<string, TensorRole>): ModelShape {
  const structure = analyzeGraph(graph);
  const roles = givenRoles ?? classifyTensors(graph, structure);
  const byRole = (wanted: string): ModelTensor | undefined =>
    graph.tensors.find((tensor) => roles.get(tensor.name)?.role === wanted && tensor.dims.length === 2);
  const embedding = byRole('embed');
  const lmHead = byRole('lm_head');
  let hidden = embedding?.dims[1] ?? null;
  const vocab = embedding?.dims[0] ?? (lmHead ? Math.max(...lmHead.dims) : null);
  if (hidden === null && lmHead && vocab !== null) hidden = lmHead.dims.find((dim) => dim !== vocab) ?? null;

  const parameters = structure?.parameters ?? new Set(graph.tensors.filter(isParameter).map((tensor) => tensor.name));
  // The graph already knows how each projection reads its weight, through any Transpose or DequantizeLinear.
  const orientation = new Map(
    structure?.layers.flatMap((layer) => [...layer.projections.values()].map((projection) => [projection.weight, projection.outFirst] as const)) ?? [],
  );
  const layerTensors = new Map<number, ModelTensor[]>();
  for (const tensor of graph.tensors) {
    if (!parameters.has(tensor.name)) continue;
    const layer = roles.get(tensor.name)?.layer;
    if (layer === null || layer === undefined) continue;
    layerTensors.set(layer, [...(layerTensors.get(layer) ?? []), tensor]);
  }
  const layers = [...layerTensors.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, tensors]) => describeLayer(graph, roles, index, tensors, hidden, orientation));
  return {
    hidden,
    vocab,
    layers,
    tokenEmbedding: embedding?.name ?? null,
    lmHead: lmHead?.name ?? null,
    roles,
    parameters,
    unusedInitializers: structure?.unused ?? [],
    headCopiesEmbedding: headCopiesEmbedding(embedding, lmHead),
    rolesFrom: structure === null ? 'names' : 'graph',
    headDim: structure?.headDim ?? null,
  };
}

function describeLayer(
  graph: ModelGraph,
  roles: ReadonlyMap<string, TensorRole>,
  index: number,
  tensors: readonly ModelTensor[],
  hidden: number | null,
  orientation: ReadonlyMap<string, boolean>,
): LayerShape {
  const projections: Partial<Record<ProjectionRole, Projection>> = {};
  const biases = new Map<ProjectionRole, number>();
  const normSizes: number[] = [];
  for (const tensor of tensors) {
    const role = roles.get(tensor.name)!;
    if (role.role === 'norm') {
      normSizes.push(tensor.elementCount);
    } else if (role.part === 'bias' && tensor.dims.length === 1) {
      biases.set(role.role as ProjectionRole, tensor.dims[0]!);
    } else if (tensor.dims.length === 2 && role.role !== 'other') {
      const projectionRole = role.role as ProjectionRole;
      const outFirst = orientation.get(tensor.name) ?? storedOutFirst(graph, tensor, projectionRole, hidden);
      const [first, second] = tensor.dims as [number, number];
      projections[projectionRole] = { tensor: tensor.name, inDim: outFirst ? second : first, outDim: outFirst ? first : second, outFirst, biasLength: null };
    }
  }
  for (const [role, length] of biases) {
    const projection = projections[role];
    if (projection) projections[role] = { ...projection, biasLength: length };
  }
  const params = tensors.reduce((sum, tensor) => sum + tensor.elementCount, 0);
  return { index, projections, normSizes, params, tensors: tensors.map((tensor) => tensor.name) };
}
