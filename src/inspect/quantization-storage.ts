/**
 * The check that does not trust the graph: how much of the stored bytes the graph reads is integer data whose values
 * enter float computation. A graph can hide where weights come from (make them look input-dependent, route
 * them through an op nobody lists), but it cannot hide how they are stored.
 */
import type { ModelGraph, ModelTensor } from './model-graph.js';
import type { IntegerTrace } from './quantization-dataflow.js';

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
  /** The payload of every stored tensor the graph reads: initializers, sparse initializers and Constant nodes. */
  readonly storedBytes: number;
  /** Stored tensors no node reads and no output names: ONNX Runtime drops them at load, so they are not in the share. */
  readonly unreadBytes: number;
  /** The integer tensors counted, largest first. */
  readonly tensors: readonly string[];
  readonly exceeded: boolean;
}

/**
 * A tensor nothing reads would otherwise dilute the share for free: float padding left unused lowers it below the
 * limit without costing a byte of memory, since ONNX Runtime removes unused initializers when it loads the model.
 */
function isRead(graph: ModelGraph, tensor: ModelTensor, outputs: ReadonlySet<string>): boolean {
  return graph.consumers.has(tensor.name) || outputs.has(tensor.name);
}

export function measureIntegerStorage(graph: ModelGraph, traces: readonly IntegerTrace[]): IntegerStorage {
  const counted = traces.filter((trace) => trace.carriesValues).map((trace) => trace.tensor).sort((a, b) => b.length - a.length);
  const integerValueBytes = counted.reduce((sum, tensor) => sum + tensor.length, 0);
  const outputs = new Set(graph.info.outputs.map((output) => output.name));
  const read = graph.tensors.filter((tensor) => isRead(graph, tensor, outputs));
  const storedBytes = read.reduce((sum, tensor) => sum + tensor.length, 0);
  const unreadBytes = graph.tensors.reduce((sum, tensor) => sum + tensor.length, 0) - storedBytes;
  const share = storedBytes === 0 ? 0 : integerValueBytes / storedBytes;
  return {
    share,
    limit: INTEGER_STORAGE_SHARE_LIMIT,
    integerValueBytes,
    storedBytes,
    unreadBytes,
    tensors: counted.map((tensor) => tensor.name),
    exceeded: share > INTEGER_STORAGE_SHARE_LIMIT,
  };
}
