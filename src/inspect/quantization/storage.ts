/**
 * The check that does not trust the graph: how much of the stored bytes held at run time is integer data whose values
 * enter float computation. A graph can hide where weights come from (make them look input-dependent, route
 * them through an op nobody lists), but it cannot hide how they are stored.
 */
import type { ModelGraph } from '../graph/model-graph.js';
import type { IntegerTrace } from './dataflow.js';
import { isStandardDomain } from './slots.js';

/**
 * Fail above 10% of stored bytes. An fp16/fp32 language model stores no integer data that carries values into
 * float math except position-id buffers and additive-mask tables: 8 bytes per position (16 KB at a 2,048
 * context) or one byte per position pair (4 MB), against at least tens of MB of float weights for any model
 * these tracks take, well under 1%; tables read only as indices or Where conditions do not count at all. A
 * quantization that matters moves whole families of matrices (all attention or all MLP projections) into
 * integers: 30–80% of the bytes of a model that keeps its embeddings in fp16. 10% sits an order of magnitude
 * above the first and below the second; the data-flow check catches the small quantizations this one lets by.
 */
export const INTEGER_STORAGE_SHARE_LIMIT = 0.1;

export interface IntegerStorage {
  /** integerValueBytes / storedBytes (0 for a model with no tensors). */
  readonly share: number;
  readonly limit: number;
  readonly integerValueBytes: number;
  /** The payload of the stored tensors held at run time (initializers, sparse initializers and Constant nodes). */
  readonly storedBytes: number;
  /** Stored tensors left out: read by nothing, or only by computation on constants that ONNX Runtime folds at load. */
  readonly droppedBytes: number;
  /** The integer tensors counted, largest first. */
  readonly tensors: readonly string[];
  readonly exceeded: boolean;
}

// Ops that only re-present a tensor (its bytes in another shape, layout or type): folding them at load makes a
// constant as large as the tensor, so what they feed decides whether the tensor is held.
const RE_PRESENTING_OPS = new Set(['Cast', 'Transpose', 'Reshape', 'Identity', 'Squeeze', 'Unsqueeze', 'Flatten']);
const MAX_RE_PRESENTATIONS = 8;

/**
 * Whether a stored tensor is held while the model runs: it is an output, or a node reads it (directly or re-presented)
 * together with a value that depends on the input, which ONNX Runtime cannot fold away. The others would dilute the
 * share without costing a byte of memory: ONNX Runtime removes tensors nothing reads at load and folds computation
 * on constants alone into its result, so padding read by nothing, or by ReduceSum(padding) · 0, is gone at run time.
 */
function isHeld(graph: ModelGraph, value: string, outputs: ReadonlySet<string>, dependent: ReadonlySet<string>, depth = 0): boolean {
  if (outputs.has(value)) return true;
  return (graph.consumers.get(value) ?? []).some(({ node }) => {
    if (node.inputs.some((input) => dependent.has(input))) return true;
    const rePresents = RE_PRESENTING_OPS.has(node.opType) && isStandardDomain(node.domain) && depth < MAX_RE_PRESENTATIONS;
    return rePresents && node.outputs.some((output) => output !== '' && isHeld(graph, output, outputs, dependent, depth + 1));
  });
}

export function measureIntegerStorage(graph: ModelGraph, traces: readonly IntegerTrace[], dependent: ReadonlySet<string>): IntegerStorage {
  const counted = traces
    .filter((trace) => trace.carriesValues)
    .map((trace) => trace.tensor)
    .sort((a, b) => b.length - a.length);
  const integerValueBytes = counted.reduce((sum, tensor) => sum + tensor.length, 0);
  const outputs = new Set(graph.info.outputs.map((output) => output.name));
  // The integer tensors counted are always in the total, so the share never exceeds 1 (a constant-only dequantization
  // is folded into float weights of at least their size).
  const countedNames = new Set(counted.map((tensor) => tensor.name));
  const held = graph.tensors.filter((tensor) => countedNames.has(tensor.name) || isHeld(graph, tensor.name, outputs, dependent));
  const storedBytes = held.reduce((sum, tensor) => sum + tensor.length, 0);
  const droppedBytes = graph.tensors.reduce((sum, tensor) => sum + tensor.length, 0) - storedBytes;
  const share = storedBytes === 0 ? 0 : integerValueBytes / storedBytes;
  return {
    share,
    limit: INTEGER_STORAGE_SHARE_LIMIT,
    integerValueBytes,
    storedBytes,
    droppedBytes,
    tensors: counted.map((tensor) => tensor.name),
    exceeded: share > INTEGER_STORAGE_SHARE_LIMIT,
  };
}
