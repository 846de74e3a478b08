/**
 * "No quantization" as an allow-list: what a weight may be. A weight read is a value that depends on no input,
 * read by a node together with a value that does (where stored data meets activations), or handed out as a graph
 * output. Each is allowed when it is
 *   (a) stored float data reaching its reader through layout-only ops (LAYOUT_OPS: the same values rearranged, or
 *       cast between float types): what an FP16/FP32 model's weights are. The weight-dtype check judges the float
 *       type (bf16 and fp64 are not FP16/FP32), not this one;
 *   (b) a small constant: all the stored data it is computed from fits SMALL_CONSTANT (shapes, eps, scales, rotary
 *       inverse frequencies, ALiBi slopes), too little to encode a layer's weights, however it is computed; or
 *   (c) a stored integer or bool table that holds no weights, reached through layout-only ops: a position buffer
 *       (an arithmetic progression) or a causal/banded 0/1 mask, proven by its values (quantization/weightless-tables.ts),
 *       however it is read (sliced to the input's length, gathered by positions, used as a Where condition); or
 *   (d) an id map: an integer vector gathered by the token ids (a vocabulary pruned behind the tokenizer). Its
 *       values choose rows; they can be no weight, since which of them are read changes with the input.
 *       A matrix of codes indexed by token ids is an embedding stored as integers, and not allowed.
 * Everything else fails: integer, bool or string data turned into floats, an index into a table (a lookup table,
 * a OneHot palette), comparison chains, a decoder in a subgraph or function, quantization ops, low-bit types, and
 * arithmetic on stored floats (low-cardinality float codes times a scale), each named by its largest stored
 * source, the path from it to the reader, and why (classify): the first reason any node of its decoding shows
 * (a lookup anywhere in the decoding makes it a lookup, even when the largest source is the codebook), then the
 * kind of data most of its non-float sources hold.
 */
import type { NativeNodeInfo } from '../../native/binding.js';
import { isAlwaysQuantized } from '../graph/dtypes.js';
import type { ModelGraph, ModelTensor } from '../graph/model-graph.js';
import { isQuantizationOp } from './ops.js';
import { isStandardDomain } from './slots.js';
import { stepOf, type PathStep } from '../graph/path-step.js';
import { weightlessTable } from './weightless-tables.js';

/**
 * The size rule for constants: a weight computed from at most SMALL_CONSTANT.floatElements stored float elements and
 * SMALL_CONSTANT.otherElements stored integer, bool or string elements, in all, is allowed however it is computed.
 * 256 floats is twice the largest legitimate small float constant (rotary inverse frequencies, head_dim / 2 ≤ 128;
 * ALiBi slopes, one per head, ≤ 128); 64 other elements leave room for the scalars, axes and shape vectors computed
 * with them (each a few elements). Integer codes are budgeted tightly because codes are what quantized weights are
 * made of: a packed 16×16 int8 matrix already exceeds it. Neither budget holds a weight worth quantizing.
 */
export const SMALL_CONSTANT = { floatElements: 256, otherElements: 64 } as const;

/** Sources smaller than this read by a quantization op are scalars and per-tensor zero points (the op is reported itself). */
const MIN_QUANTIZED_ELEMENTS = 16;

const FLOAT_CASTS = new Set([1, 10, 11, 16]); // float32, float16, float64, bfloat16: a float weight stays a float weight

/** Ops whose output holds their data inputs' values unchanged, rearranged; the other inputs are shapes and bounds. */
const LAYOUT_OPS: ReadonlyMap<string, 'first' | 'all'> = new Map([
  ['Identity', 'first'],
  ['Transpose', 'first'],
  ['Reshape', 'first'],
  ['Squeeze', 'first'],
  ['Unsqueeze', 'first'],
  ['Flatten', 'first'],
  ['Slice', 'first'],
  ['Split', 'first'],
  ['Concat', 'all'],
  ['Cast', 'first'],
]);

const LOOKUP_SLOTS: ReadonlyMap<string, number> = new Map([
  ['Gather', 1],
  ['GatherElements', 1],
  ['GatherND', 1],
  ['OneHot', 0],
  ['Compress', 1],
]);
const COMPARISONS = new Set(['Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual', 'Where', 'Not', 'And', 'Or', 'Xor', 'IsNaN', 'IsInf']);
const SUBGRAPH_OWNERS = new Set(['If', 'Loop', 'Scan']);

export type WeightViolation =
  | 'quantization-op'
  | 'low-bit-storage'
  | 'subgraph'
  | 'table-lookup'
  | 'comparison'
  | 'integer-codes'
  | 'bool-data'
  | 'string-data'
  | 'computed-from-floats';

const WHY: Readonly<Record<WeightViolation, string>> = {
  'quantization-op': 'made by a quantization op',
  'low-bit-storage': 'stored in a low-bit type',
  subgraph: 'decoded in a subgraph or model-local function',
  'table-lookup': 'an index into a table (a lookup table or palette)',
  comparison: 'made by comparisons (Equal/Less/Where chains)',
  'integer-codes': 'integer codes turned into floats',
  'bool-data': 'bool data (bit-planes) turned into floats',
  'string-data': 'string data turned into floats',
  'computed-from-floats': 'computed from stored floats (weights must be stored FP16/FP32 and reach their reader through layout-only ops)',
};

export interface WeightFinding {
  /** The largest stored tensor the weight is made of. */
  readonly tensor: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** The node that reads the weight with activations (or the graph output it leaves by). */
  readonly reader: PathStep;
  /** The nodes from the tensor to the reader, the reader last. */
  readonly path: readonly PathStep[];
  /** "tensor → OpType node → … → MatMul node". */
  readonly route: string;
  readonly violation: WeightViolation;
  readonly reason: string;
  /** Stored elements the weight is computed from, in all. */
  readonly sourceElements: number;
  /** Weight reads this tensor is the largest source of (the first is `reader`). */
  readonly weightReads: number;
}

/** A stored float tensor read as a weight through layout-only ops: the weights the dtype and fake-quantization checks look at. */
export interface StoredWeightRead {
  readonly tensor: ModelTensor;
  readonly reader: PathStep;
  /** Float types the value is cast to on the way (a bf16 cast is a weight-dtype matter). */
  readonly castTo: readonly number[];
}

export interface WeightProvenance {
  readonly findings: readonly WeightFinding[];
  readonly storedWeights: readonly StoredWeightRead[];
}

interface Origin {
  /** The value is stored data rearranged (layout-only ops and float casts all the way). */
  readonly layoutOnly: boolean;
  /** The stored tensors its data comes from along layout-only ops; empty when it is computed. */
  readonly layoutSources: readonly ModelTensor[];
  readonly castTo: readonly number[];
  /** Every stored tensor it is computed from. */
  readonly sources: ReadonlySet<ModelTensor>;
  /** The largest source and the nodes from it to this value. */
  readonly largest: ModelTensor | null;
  readonly steps: readonly PathStep[];
  /** What the nodes that computed it did, from any of its sources: the reasons that name a disguise by its form. */
  readonly marks: ReadonlySet<Mark>;
}

/** The reasons a computation shows by its nodes, most specific first (classify keeps this order). */
type Mark = 'quantization-op' | 'subgraph' | 'table-lookup' | 'comparison';

const NO_MARKS: ReadonlySet<Mark> = new Set();
const NO_ORIGIN: Origin = { layoutOnly: false, layoutSources: [], castTo: [], sources: new Set(), largest: null, steps: [], marks: NO_MARKS };

export function traceWeightProvenance(graph: ModelGraph, dependent: ReadonlySet<string>): WeightProvenance {
  const origins = new OriginTracer(graph);
  const tables = new Map<ModelTensor, boolean>();
  const holdsNoWeights = (tensor: ModelTensor): boolean => {
    if (!tables.has(tensor)) tables.set(tensor, weightlessTable(tensor) !== null);
    return tables.get(tensor)!;
  };
  const findings = new Map<ModelTensor, { finding: Omit<WeightFinding, 'weightReads'>; reads: number }>();
  const storedWeights: StoredWeightRead[] = [];
  for (const { value, reader } of weightReads(graph, dependent)) {
    const origin = origins.of(value);
    const elements = [...origin.sources].reduce((sum, tensor) => sum + tensor.elementCount, 0);
    const floatElements = [...origin.sources].reduce((sum, tensor) => sum + (tensor.category === 'float' ? tensor.elementCount : 0), 0);
    const float = origin.layoutOnly && origin.layoutSources.every((tensor) => tensor.category === 'float');
    if (float) {
      for (const tensor of origin.layoutSources) storedWeights.push({ tensor, reader: stepOf(reader.node, reader.inputIndex), castTo: origin.castTo });
      continue;
    }
    if (origin.largest === null) continue;
    const path = [...origin.steps, stepOf(reader.node, reader.inputIndex)];
    const small = floatElements <= SMALL_CONSTANT.floatElements && elements - floatElements <= SMALL_CONSTANT.otherElements;
    // What a quantization op reads is quantized data whatever its size, short of scalars and per-tensor zero points.
    const quantized = (origin.marks.has('quantization-op') || isQuantizationOp(reader.node.opType)) && origin.largest.elementCount >= MIN_QUANTIZED_ELEMENTS;
    if (small && !quantized) continue;
    if (!quantized && origin.layoutOnly && (origin.layoutSources.every(holdsNoWeights) || origins.isIdMapRead(reader.node, reader.inputIndex, origin)))
      continue;
    const known = findings.get(origin.largest);
    if (known) {
      known.reads += 1;
      continue;
    }
    const violation = classify(origin, path, reader.node.graph !== '' && !reader.node.graph.startsWith('function:'));
    findings.set(origin.largest, {
      reads: 1,
      finding: {
        tensor: origin.largest.name,
        dtype: origin.largest.dtype,
        shape: origin.largest.dims,
        reader: path.at(-1)!,
        path,
        route: [origin.largest.name, ...path.map((step) => `${step.opType} ${step.node}`)].join(' → '),
        violation,
        reason: WHY[violation],
        sourceElements: elements,
      },
    });
  }
  return { findings: [...findings.values()].map(({ finding, reads }) => ({ ...finding, weightReads: reads })), storedWeights };
}

interface WeightRead {
  readonly value: string;
  readonly reader: { readonly node: NativeNodeInfo; readonly inputIndex: number };
}

/**
 * Where stored data meets activations: every input of a node that also reads an input-dependent value, where the
 * input itself depends on none, and every graph output that depends on no input. Nodes inside model-local
 * functions read formal parameters, not values: the call node is where their arguments meet.
 */
function weightReads(graph: ModelGraph, dependent: ReadonlySet<string>): WeightRead[] {
  const reads: WeightRead[] = [];
  for (const node of graph.info.nodes) {
    if (node.graph.startsWith('function:') || !node.inputs.some((input) => dependent.has(input))) continue;
    node.inputs.forEach((value, inputIndex) => {
      if (value !== '' && !dependent.has(value)) reads.push({ value, reader: { node, inputIndex } });
    });
  }
  for (const output of graph.info.outputs) {
    if (dependent.has(output.name)) continue;
    const node: NativeNodeInfo = { opType: 'output', domain: '', name: output.name, graph: '', inputs: [output.name], outputs: [], intAttributes: {} };
    reads.push({ value: output.name, reader: { node, inputIndex: 0 } });
  }
  return reads;
}

/**
 * Why a weight is not allowed: the first reason any node of its computation shows (quantization op, subgraph or
 * model-local function, lookup, comparison), low-bit storage among its sources, a reader inside a subgraph (a
 * decoder in a Loop body meets the iteration number there), and otherwise the kind of data most of its non-float
 * sources hold (bool, string, integer codes), or floats computed on.
 */
function classify(origin: Origin, path: readonly PathStep[], readerInSubgraph: boolean): WeightViolation {
  const sources = [...origin.sources];
  if (origin.marks.has('quantization-op') || path.some((step) => isQuantizationOp(step.opType))) return 'quantization-op';
  if (sources.some((tensor) => isAlwaysQuantized(tensor.dtype))) return 'low-bit-storage';
  if (origin.marks.has('subgraph') || readerInSubgraph) return 'subgraph';
  if (origin.marks.has('table-lookup')) return 'table-lookup';
  if (origin.marks.has('comparison')) return 'comparison';
  const byCategory = new Map<string, number>();
  for (const tensor of sources) if (tensor.category !== 'float') byCategory.set(tensor.category, (byCategory.get(tensor.category) ?? 0) + tensor.elementCount);
  const [category, elements] = [...byCategory].sort((a, b) => b[1] - a[1])[0] ?? ['float', 0];
  if (elements <= SMALL_CONSTANT.otherElements) return 'computed-from-floats';
  return category === 'bool' ? 'bool-data' : category === 'string' ? 'string-data' : 'integer-codes';
}

/** The marks a node adds to what its inputs carry. */
function marksOf(node: NativeNodeInfo, inputs: readonly { inputIndex: number; origin: Origin }[], innerSources: number): Set<Mark> {
  const marks = new Set<Mark>(inputs.flatMap(({ origin }) => [...origin.marks]));
  const standard = isStandardDomain(node.domain);
  if (isQuantizationOp(node.opType)) marks.add('quantization-op');
  if ((standard && SUBGRAPH_OWNERS.has(node.opType)) || (!standard && innerSources > 0)) marks.add('subgraph');
  const lookupSlot = standard ? LOOKUP_SLOTS.get(node.opType) : undefined;
  if (lookupSlot !== undefined && inputs.some(({ inputIndex, origin }) => inputIndex === lookupSlot && origin.sources.size > 0)) marks.add('table-lookup');
  if (standard && COMPARISONS.has(node.opType)) marks.add('comparison');
  return marks;
}

/** Each value's origin in stored data, computed once (the graph is a DAG; subgraphs read outer values by name). */
class OriginTracer {
  private readonly producers = new Map<string, NativeNodeInfo>();
  private readonly cache = new Map<string, Origin>();
  private readonly functionTensors = new Map<string, ModelTensor[]>();

  constructor(private readonly graph: ModelGraph) {
    for (const node of graph.info.nodes) {
      if (node.graph.startsWith('function:')) continue;
      for (const output of node.outputs) if (output !== '' && !this.producers.has(output)) this.producers.set(output, node);
    }
    for (const tensor of graph.tensors) {
      if (tensor.graph.startsWith('function:')) this.functionTensors.set(tensor.graph, [...(this.functionTensors.get(tensor.graph) ?? []), tensor]);
    }
  }

  of(value: string): Origin {
    const known = this.cache.get(value);
    if (known) return known;
    this.cache.set(value, NO_ORIGIN); // a malformed cycle ends here
    const origin = this.compute(value);
    this.cache.set(value, origin);
    return origin;
  }

  private compute(value: string): Origin {
    const stored = this.graph.tensorByName.get(value);
    if (stored) return { layoutOnly: true, layoutSources: [stored], castTo: [], sources: new Set([stored]), largest: stored, steps: [], marks: NO_MARKS };
    const node = this.producers.get(value);
    if (!node) return NO_ORIGIN; // a graph or subgraph input: no stored data
    const inputs = node.inputs.map((input, inputIndex) => ({ inputIndex, origin: input === '' ? NO_ORIGIN : this.of(input) }));
    const inner = this.innerTensors(node);
    const sources = new Set<ModelTensor>([...inputs.flatMap(({ origin }) => [...origin.sources]), ...inner]);
    const marks = marksOf(node, inputs, inner.length);
    const layout = this.layoutData(node, inputs);
    const chosen = largestOf(layout ?? inputs);
    const innerLargest = inner.reduce<ModelTensor | null>((best, tensor) => (best === null || tensor.elementCount > best.elementCount ? tensor : best), null);
    if (innerLargest !== null && innerLargest.elementCount > (chosen?.origin.largest?.elementCount ?? -1)) {
      // The node's own body holds the largest source (a decoder function's constants): the path starts at the node.
      return { layoutOnly: false, layoutSources: [], castTo: [], sources, largest: innerLargest, steps: [stepOf(node, -1)], marks };
    }
    const largest = chosen?.origin.largest ?? null;
    const steps = chosen ? [...chosen.origin.steps, stepOf(node, chosen.inputIndex)] : [];
    if (layout === null) return { layoutOnly: false, layoutSources: [], castTo: [], sources, largest, steps, marks };
    const layoutOnly = layout.length > 0 && layout.every(({ origin }) => origin.layoutOnly);
    return {
      layoutOnly,
      sources,
      largest,
      steps,
      marks,
      layoutSources: layoutOnly ? layout.flatMap(({ origin }) => origin.layoutSources) : [],
      castTo: [...layout.flatMap(({ origin }) => origin.castTo), ...(node.opType === 'Cast' ? [node.intAttributes.to ?? 0] : [])],
    };
  }

  /**
   * An integer vector gathered by the token ids: the indices come from a graph input through layout ops only (a
   * vocabulary id map). Which entries are read changes with the input, so they cannot be a fixed weight.
   */
  isIdMapRead(node: NativeNodeInfo, inputIndex: number, origin: Origin): boolean {
    if (node.opType !== 'Gather' || !isStandardDomain(node.domain) || inputIndex !== 0) return false;
    if (!origin.layoutSources.every((tensor) => tensor.category !== 'float' && tensor.dims.filter((dim) => dim > 1).length <= 1)) return false;
    let value = node.inputs[1] ?? '';
    for (let producer = this.producers.get(value); producer !== undefined; producer = this.producers.get(value)) {
      if (!isStandardDomain(producer.domain) || !LAYOUT_OPS.has(producer.opType)) return false; // ids reshaped or cast
      value = producer.inputs[0] ?? '';
    }
    return this.graph.info.inputs.some((input) => input.name === value) && !this.graph.tensorByName.has(value);
  }

  /** The data inputs of a layout-only node, or null when the node computes (a Cast to a non-float type makes codes). */
  private layoutData<T extends { inputIndex: number }>(node: NativeNodeInfo, inputs: readonly T[]): readonly T[] | null {
    const kind = isStandardDomain(node.domain) ? LAYOUT_OPS.get(node.opType) : undefined;
    if (kind === undefined) return null;
    if (node.opType === 'Cast' && !FLOAT_CASTS.has(node.intAttributes.to ?? 0)) return null;
    return kind === 'all' ? inputs : inputs.slice(0, 1);
  }

  /**
   * Stored tensors inside what the node runs, and what its body reads from outside: an If/Loop/Scan body, or the
   * model-local function it calls (whose constants are its own; its arguments are the node's inputs).
   */
  private innerTensors(node: NativeNodeInfo): ModelTensor[] {
    if (!isStandardDomain(node.domain)) {
      return this.functionTensors.get(`function:${node.domain === '' ? '' : `${node.domain}.`}${node.opType}`) ?? [];
    }
    if (!SUBGRAPH_OWNERS.has(node.opType)) return [];
    const prefix = `${node.graph === '' ? '' : `${node.graph}/`}${node.name || node.opType}.`;
    const inner = this.graph.tensors.filter((tensor) => tensor.graph.startsWith(prefix));
    for (const bodyNode of this.graph.info.nodes) {
      if (!bodyNode.graph.startsWith(prefix)) continue;
      for (const input of bodyNode.inputs) {
        if (input === '' || this.producers.get(input)?.graph.startsWith(prefix) || inner.some((tensor) => tensor.name === input)) continue;
        inner.push(...this.of(input).sources);
      }
    }
    return inner;
  }
}

function largestOf<T extends { origin: Origin }>(inputs: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const input of inputs) {
    if (input.origin.largest === null) continue;
    const [size, bestSize] = [input.origin.largest.elementCount, best?.origin.largest?.elementCount ?? -1];
    // On a tie the codes, not the codebook: what a disguise stores its weights in.
    if (size > bestSize || (size === bestSize && best!.origin.largest!.category === 'float' && input.origin.largest.category !== 'float')) best = input;
  }
  return best;
}
