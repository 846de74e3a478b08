/**
 * `inspect`: what a model is made of, from metadata alone. Tensors, parameter and byte totals, the op
 * census, opsets, inputs and outputs, and the architecture the weights imply (completed from config.json
 * beside the model where the graph cannot say, e.g. the head size).
 */
import { describeShape, type ModelShape } from '../graph/architecture.js';
import { compareConfigWithGraph } from '../config/graph-check.js';
import { dtypeFacts } from '../graph/dtypes.js';
import { readGraphFacts, type GraphFacts } from '../graph/graph-facts.js';
import { hfArchitectureBeside, type HfArchitecture } from '../../model/hf-config.js';
import { readModelGraph, type ModelGraph } from '../graph/model-graph.js';
import { countParameters, totalsByDtype, type DtypeTotals, type ParameterTotals } from '../graph/parameters.js';
import type { TensorRoleName } from '../graph/tensor-roles.js';

/** The head size assumed when neither config.json nor the graph gives one (most LMs of this size class). */
export const ASSUMED_HEAD_DIM = 64;

export interface ArchitectureSummary {
  readonly hidden: number | null;
  readonly layers: number;
  readonly heads: number | null;
  readonly kvHeads: number | null;
  readonly headDim: number | null;
  readonly intermediate: number | null;
  readonly vocab: number | null;
  readonly maxLength: number | null;
  readonly assumptions: readonly string[];
}

export interface TensorSummary {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly bytes: number;
  readonly location: string;
  readonly layer: number | null;
  readonly role: TensorRoleName;
}

export interface ValueSummary {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly (number | string | null)[] | null;
}

export interface InspectReport {
  readonly model: string;
  readonly fileBytes: number;
  readonly externalFiles: readonly { readonly path: string; readonly size: number }[];
  readonly irVersion: number;
  readonly producer: string;
  readonly opsets: readonly { readonly domain: string; readonly version: number }[];
  readonly inputs: readonly ValueSummary[];
  readonly outputs: readonly ValueSummary[];
  readonly parameters: ParameterTotals;
  readonly bytesByDtype: Readonly<Record<string, DtypeTotals>>;
  /** Bytes of every tensor the model holds (what loading it puts in memory). */
  readonly tensorBytes: number;
  readonly nodeCount: number;
  readonly ops: readonly { readonly opType: string; readonly domain: string; readonly count: number }[];
  readonly architecture: ArchitectureSummary;
  /** What the graph says about running it (position limit, attention form, logits type), whatever config.json claims. */
  readonly graph: GraphFacts;
  /** Where config.json and the graph disagree (vocab, hidden size, layers, FFN width, heads, KV heads, max positions). */
  readonly configWarnings: readonly string[];
  readonly tensors: readonly TensorSummary[];
  readonly readMs: number;
}

function summarizeArchitecture(shape: ModelShape, config: HfArchitecture | null, configNote: string | null): ArchitectureSummary {
  const assumptions: string[] = configNote ? [configNote] : [...(config?.assumptions ?? [])];
  let headDim = config?.headDim ?? null;
  if (headDim === null && shape.layers.length > 0) {
    headDim = ASSUMED_HEAD_DIM;
    assumptions.push(`head size ${ASSUMED_HEAD_DIM} assumed (no config.json beside the model states it)`);
  }
  const widest = (pick: (layer: ModelShape['layers'][number]) => number | undefined): number | null => {
    const values = shape.layers.map(pick).filter((value): value is number => value !== undefined);
    return values.length > 0 ? Math.max(...values) : null;
  };
  const queryWidth = widest((layer) => layer.projections.q?.outDim ?? (layer.projections.qkv ? layer.projections.qkv.outDim / 3 : undefined));
  const heads = headDim !== null && queryWidth !== null ? Math.round(queryWidth / headDim) : (config?.numHeads ?? null);
  const keyWidth = widest((layer) => layer.projections.k?.outDim);
  return {
    hidden: shape.hidden ?? config?.hiddenSize ?? null,
    layers: shape.layers.length,
    heads,
    // Without a separate key projection in the graph, the config's (resolved) KV heads, else one per head.
    kvHeads: headDim !== null && keyWidth !== null ? Math.round(keyWidth / headDim) : (config?.numKeyValueHeads ?? heads),
    headDim,
    intermediate: widest((layer) => (layer.projections.up ?? layer.projections.gate)?.outDim) ?? config?.intermediateSize ?? null,
    vocab: shape.vocab ?? config?.vocabSize ?? null,
    maxLength: config?.maxPositions ?? null,
    assumptions,
  };
}

export function buildInspectReport(
  graph: ModelGraph,
  config: HfArchitecture | null,
  configNote: string | null = null,
  shape: ModelShape = describeShape(graph),
): InspectReport {
  const facts = readGraphFacts(graph, shape);
  const census = new Map<string, { opType: string; domain: string; count: number }>();
  for (const node of graph.info.nodes) {
    const key = `${node.domain}\u0000${node.opType}`;
    const entry = census.get(key) ?? { opType: node.opType, domain: node.domain, count: 0 };
    entry.count += 1;
    census.set(key, entry);
  }
  const value = (info: ModelGraph['info']['inputs'][number]): ValueSummary => ({ name: info.name, dtype: dtypeFacts(info.elemType).name, shape: info.shape });
  const initializerNames = graph.tensorByName;
  return {
    model: graph.info.path,
    fileBytes: graph.info.fileSize,
    externalFiles: graph.info.externalFiles,
    irVersion: graph.info.irVersion,
    producer: [graph.info.producerName, graph.info.producerVersion].filter((part) => part !== '').join(' '),
    opsets: graph.info.opsets,
    // IR < 4 lists initializers among the inputs; they are not inputs a caller feeds.
    inputs: graph.info.inputs.filter((input) => !initializerNames.has(input.name)).map(value),
    outputs: graph.info.outputs.map(value),
    parameters: countParameters(graph, shape),
    bytesByDtype: totalsByDtype(graph),
    tensorBytes: graph.tensors.reduce((sum, tensor) => sum + tensor.length, 0),
    nodeCount: graph.info.nodes.length,
    ops: [...census.values()].sort((a, b) => b.count - a.count || a.opType.localeCompare(b.opType)),
    architecture: summarizeArchitecture(shape, config, configNote),
    graph: facts,
    configWarnings: compareConfigWithGraph(config, shape, facts),
    tensors: graph.tensors.map((tensor) => {
      const role = shape.roles.get(tensor.name);
      return {
        name: tensor.name,
        dtype: tensor.dtype,
        shape: tensor.dims,
        bytes: tensor.length,
        location: tensor.location,
        layer: role?.layer ?? null,
        role: role?.role ?? 'other',
      };
    }),
    readMs: graph.readMs,
  };
}

/** config.json beside the model, or null with a note when it is missing or unusable (inspect never fails on it). */
export function optionalConfigBeside(modelPath: string): { config: HfArchitecture | null; note: string | null } {
  try {
    return { config: hfArchitectureBeside(modelPath), note: null };
  } catch (error) {
    return { config: null, note: `config.json beside the model ignored: ${(error as Error).message}` };
  }
}

/** Reads the model's metadata (never its weights) and reports on it. */
export async function inspectModel(modelPath: string): Promise<InspectReport> {
  const graph = await readModelGraph(modelPath);
  const { config, note } = optionalConfigBeside(modelPath);
  return buildInspectReport(graph, config, note);
}
