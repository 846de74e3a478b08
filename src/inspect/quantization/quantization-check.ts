/**
 * The edge tracks' "no quantization" rule, by allow-list: what a weight may be is defined (quantization/weight-provenance.ts:
 * stored float data reaching its reader through layout-only ops, small constants, tables read by position) and
 * everything else fails, named with its path and the reason. Two views back it up:
 * - the graph's ops and stored types: quantization nodes in every domain (subgraphs and functions included) and
 *   low-bit tensors anywhere;
 * - storage (quantization/storage.ts): the share of stored bytes that is integer, bool or string data whose values
 *   enter float computation, which a graph cannot hide by making its weights look input-dependent.
 * Float weights on a small grid (fake quantization) are a warning. Weights that are floats but not FP16/FP32
 * (bfloat16, float64) are no quantization: the weight-dtype check (quantization/weight-dtypes.ts, returned by checkWeights from
 * the same provenance) judges them, warn or fail as configured; this verdict only lists them (`bf16Tensors`).
 */
import { isAlwaysQuantized } from '../graph/dtypes.js';
import { effectiveConsumers, type ModelGraph, type ModelTensor } from '../graph/model-graph.js';
import { inputDependentValues, traceIntegerTensors } from './dataflow.js';
import { isQuantizationOp } from './ops.js';
import { INTEGER_STORAGE_SHARE_LIMIT, measureIntegerStorage, type IntegerStorage } from './storage.js';
import { subgraphOwners } from '../graph/subgraph-owners.js';
import { verdictOf, type Verdict } from '../verdict.js';
import { FAKE_QUANTIZATION_MAX_DISTINCT, lowCardinalityWeights, type LowCardinalityWeight } from './weight-cardinality.js';
import { checkWeightDtypes, type WeightDtypeCheck } from './weight-dtypes.js';
import { SMALL_CONSTANT, traceWeightProvenance, type WeightFinding } from './weight-provenance.js';

export { isQuantizationOp } from './ops.js';
export type { PathStep } from '../graph/path-step.js';
export type { IntegerStorage } from './storage.js';
export type { WeightFinding } from './weight-provenance.js';
export type { LowCardinalityWeight } from './weight-cardinality.js';
export type { WeightDtypeCheck } from './weight-dtypes.js';

export interface QuantizationOptions {
  /** What weights that are floats but not FP16/FP32 (bfloat16, float64) do to the weight-dtype verdict. Default 'warn'. */
  readonly bf16?: 'warn' | 'fail';
}

export interface QuantizedTensor {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  /** "OpType node-name" of each reader. */
  readonly usedBy: readonly string[];
}

export interface QuantizationNode {
  readonly name: string;
  readonly opType: string;
  readonly domain: string;
  readonly graph: string;
}

export interface QuantizationCheck {
  readonly verdict: Verdict;
  /** The rules as applied: the size rule for constants, the storage limit, the fake-quantization grid. */
  readonly rules: { readonly smallConstant: typeof SMALL_CONSTANT; readonly storageShareLimit: number; readonly fakeQuantizationMaxDistinct: number };
  /** Stored low-bit tensors (fp8, int4 …) anywhere, and 8/16-bit integer matrices that weights are made of. */
  readonly quantizedTensors: readonly QuantizedTensor[];
  readonly quantizationNodes: readonly QuantizationNode[];
  /** Weights the allow-list does not admit, one per stored tensor they are made of, with path and reason. */
  readonly disallowedWeights: readonly WeightFinding[];
  /** The share of stored bytes held as integer, bool or string data that carries values, against its limit. */
  readonly integerStorage: IntegerStorage;
  /** Float weight matrices with at most fakeQuantizationMaxDistinct distinct values: a warning. */
  readonly lowCardinalityWeights: readonly LowCardinalityWeight[];
  /** Weights stored as bfloat16 or cast to it on the way: not FP16/FP32 (listed; checkWeights' weightDtypes judges them). */
  readonly bf16Tensors: readonly string[];
  /** Weights stored as or read as float64: not FP16/FP32 either (listed the same way). */
  readonly otherFloatTensors: readonly string[];
}

export interface WeightChecks {
  readonly quantization: QuantizationCheck;
  readonly weightDtypes: WeightDtypeCheck;
}

const listed = (names: readonly string[]): string => names.slice(0, 8).join(', ') + (names.length > 8 ? `, … (${names.length} in all)` : '');

/** Both weight rules from one pass over the graph: no quantization, and FP16/FP32 weights. */
export function checkWeights(graph: ModelGraph, options: QuantizationOptions = {}): WeightChecks {
  const ownersOf = subgraphOwners(graph);
  const dependent = inputDependentValues(graph, ownersOf);
  const provenance = traceWeightProvenance(graph, dependent);
  const weightDtypes = checkWeightDtypes(provenance.storedWeights, options.bf16 ?? 'warn');
  const traces = traceIntegerTensors(graph, dependent, ownersOf);
  const integerStorage = measureIntegerStorage(graph, traces, dependent);
  const madeInto = new Set(provenance.findings.map((finding) => finding.tensor));
  const quantizedTensors = graph.tensors
    .filter((tensor) => isAlwaysQuantized(tensor.dtype) || (tensor.category === 'low-precision' && tensor.dims.length >= 2 && madeInto.has(tensor.name)))
    .map((tensor) => describeTensor(graph, tensor));
  const quantizationNodes = graph.info.nodes
    .filter((node) => isQuantizationOp(node.opType))
    .map((node) => ({ name: node.name, opType: node.opType, domain: node.domain, graph: node.graph }));
  const lowCardinality = lowCardinalityWeights(provenance.storedWeights.map((read) => read.tensor));

  const reasons: string[] = [];
  if (quantizedTensors.length > 0)
    reasons.push(`${quantizedTensors.length} quantized weight tensor(s): ${listed(quantizedTensors.map((t) => `${t.name} (${t.dtype})`))}`);
  if (quantizationNodes.length > 0) {
    reasons.push(
      `${quantizationNodes.length} quantization node(s): ${listed(quantizationNodes.map((n) => `${n.opType}${n.domain ? `@${n.domain}` : ''} ${n.name}`.trim()))}`,
    );
  }
  if (provenance.findings.length > 0) {
    const described = provenance.findings.map(
      (finding) => `${finding.tensor} (${finding.dtype}) → … → ${finding.reader.opType} ${finding.reader.node}: ${finding.reason}`,
    );
    reasons.push(`${provenance.findings.length} weight(s) are not stored float data read through layout-only ops: ${listed(described)}`);
  }
  if (integerStorage.exceeded) {
    const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
    reasons.push(
      `${percent(integerStorage.share)} of the stored tensor bytes are integer, bool or string data whose values enter float computation (limit ${percent(integerStorage.limit)}): ${listed(integerStorage.tensors)}`,
    );
  }
  const warnings =
    lowCardinality.length === 0
      ? []
      : [
          `${lowCardinality.length} float weight matrix(es) hold at most ${FAKE_QUANTIZATION_MAX_DISTINCT} distinct values (fake quantization: stored at full width, it saves no memory): ${listed(lowCardinality.map((weight) => `${weight.tensor} (${weight.distinctValues} values)`))}`,
        ];
  const isBf16 = (weight: WeightDtypeCheck['offType'][number]): boolean => weight.dtype === 'bfloat16' || weight.storedDtype === 'bfloat16';
  const bf16Tensors = weightDtypes.offType.filter(isBf16).map((weight) => weight.tensor);
  const otherFloatTensors = weightDtypes.offType.filter((weight) => !isBf16(weight)).map((weight) => weight.tensor);
  return {
    quantization: {
      verdict: verdictOf(reasons, warnings),
      rules: { smallConstant: SMALL_CONSTANT, storageShareLimit: INTEGER_STORAGE_SHARE_LIMIT, fakeQuantizationMaxDistinct: FAKE_QUANTIZATION_MAX_DISTINCT },
      quantizedTensors,
      quantizationNodes,
      disallowedWeights: provenance.findings,
      integerStorage,
      lowCardinalityWeights: lowCardinality,
      bf16Tensors,
      otherFloatTensors,
    },
    weightDtypes,
  };
}

export function checkQuantization(graph: ModelGraph, options: QuantizationOptions = {}): QuantizationCheck {
  return checkWeights(graph, options).quantization;
}

function describeTensor(graph: ModelGraph, tensor: ModelTensor): QuantizedTensor {
  return {
    name: tensor.name,
    dtype: tensor.dtype,
    shape: tensor.dims,
    usedBy: effectiveConsumers(graph, tensor.name).map(({ consumer }) => `${consumer.node.opType} ${consumer.node.name}`.trim()),
  };
}
