/**
 * The DRAM estimate of what the measurement (dram/probe.ts) will find: one plain batch-1 forward pass of
 * C tokens through ONNX Runtime's CPU provider, the graph as submitted, full logits. Its formula and numbers
 * are spelled out so an operator can check it by hand:
 *   total       = runtime + 1.5·W + KV + attention + hidden + logits
 *   runtime     = 15 MB: an ORT session's own footprint (thread pools, kernels), measured 14–18 MB on
 *                 models of under 1 MB of weights
 *   1.5·W       = the weights as ORT holds them: measured 1.40–1.55 × the tensor bytes in RSS after loading
 *                 (MLAS keeps prepacked copies of MatMul weights; loading leaves buffers behind)
 *   KV          = 2·L·C·kvH·hd·b when the graph returns its KV cache (outputs besides the logits, held to the
 *                 end of the pass); 0 otherwise, since each layer's keys and values are freed after it
 *   attention   = k·A·C²·b: one layer's [A, C, C] tensors. Decomposed attention (MatMul, scale, mask,
 *                 Softmax) makes four (scores, scaled, masked, probabilities); ORT's planner reuses some of
 *                 their buffers and its arena keeps every page it touched: 2.6–4.3 such tensors were
 *                 measured resident, so k = 3.5. A fused attention op holds one buffer, k = 1
 *   hidden      = b·(4·C·H + 2·C·I): hidden states, the MLP's intermediate and its activation
 *   logits      = C·V·l, l the logits' bytes per element (+ C·V·4 when they are not float32: the host widens
 *                 them to float32 for the reduction). ORT's arena never returns memory, so logits no larger
 *                 than the attention memory freed before them reuse it (counted 0); larger logits do not fit
 *                 there and are new memory on top.
 * b = 2 bytes for fp16/bf16 models, else 4. The coefficients were fitted to RSS measurements of generated
 * and real models on ORT's CPU provider (README, "DRAM estimate"); on CUDA, the device holds the weights once.
 */
import type { PositionTable } from '../graph/graph-facts.js';
import type { InspectReport } from '../report/inspect-report.js';
import { formatBytes, formatCount } from '../units.js';

/** The NeurIPS'24 Edge-LLM measurement's input length; never shortened to what config.json claims. */
export const DEFAULT_CONTEXT_TOKENS = 2000;

/** An ORT CPU session's footprint apart from the model (see the module comment). */
export const RUNTIME_OVERHEAD_BYTES = 15e6;
/** Resident bytes per weight byte once ORT has loaded the graph, as measured (see the module comment). */
export const LOADED_WEIGHT_FACTOR = 1.5;
const DECOMPOSED_ATTENTION_TENSORS = 3.5;
const FUSED_ATTENTION_TENSORS = 1;

export interface DramEstimate {
  readonly contextTokens: number;
  readonly batch: 1;
  /** Bytes of every tensor in the file. */
  readonly weightBytes: number;
  /** The runtime's own footprint plus what loading adds to the weights (0.5·W). */
  readonly runtimeBytes: number;
  readonly kvCacheBytes: number;
  /** attention + hidden + logits (as counted: 0 when they reuse freed attention memory). */
  readonly activationBytes: number;
  /** Full logits [1, C, vocab] (and their float32 copy when not float32), whether or not counted on top. */
  readonly logitsBytes: number;
  readonly totalBytes: number;
  /** The graph's position table when it has fewer rows than the context: the graph cannot run this input. */
  readonly inputLimit: PositionTable | null;
  readonly formula: string;
  readonly assumptions: readonly string[];
}

export interface DramEstimateOptions {
  /** Default: 2,000 tokens, whatever the model's config states. */
  readonly contextTokens?: number;
}

/** 2 when half-precision floats hold most of the weight bytes, else 4. */
function activationBytesPerElement(report: InspectReport): 2 | 4 {
  const half = (report.bytesByDtype.float16?.bytes ?? 0) + (report.bytesByDtype.bfloat16?.bytes ?? 0);
  return half > (report.bytesByDtype.float32?.bytes ?? 0) ? 2 : 4;
}

/** Bytes per logit the pass holds: the graph's type, plus the float32 copy the reduction reads when it differs. */
function logitsBytesPerElement(report: InspectReport, b: 2 | 4): number {
  const type = report.graph.logitsType;
  const own = type === 'float32' ? 4 : type === 'float16' || type === 'bfloat16' ? 2 : type === 'float64' ? 8 : b;
  return own === 4 ? 4 : own + 4;
}

export function estimateDram(report: InspectReport, options: DramEstimateOptions = {}): DramEstimate {
  const C = options.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
  if (!Number.isInteger(C) || C < 1) throw new RangeError(`contextTokens must be a positive integer, got ${C}`);
  const { hidden, layers, kvHeads, headDim, intermediate, vocab } = report.architecture;
  const W = report.tensorBytes;
  const assumptions = [...report.architecture.assumptions];
  const b = activationBytesPerElement(report);
  const n = formatCount;
  const runtime = RUNTIME_OVERHEAD_BYTES + (LOADED_WEIGHT_FACTOR - 1) * W;
  const V = vocab ?? 0;
  if (vocab === null) assumptions.push('vocabulary unknown: no logits counted');
  const l = logitsBytesPerElement(report, b);
  const logits = C * V * l;
  const runtimeText = `weights ${formatBytes(W)} + runtime ${formatBytes(RUNTIME_OVERHEAD_BYTES)} + 0.5·W ${formatBytes(W / 2)}`;
  const limit = report.graph.positionLimit;
  const inputLimit = limit !== null && limit.rows < C ? limit : null;
  if (inputLimit) assumptions.push(`the graph's position table ${inputLimit.tensor} has ${n(inputLimit.rows)} rows: it cannot run ${n(C)} tokens`);
  const heads = report.graph.fusedHeads ?? report.architecture.heads;
  if (hidden === null || heads === null || kvHeads === null || headDim === null || layers === 0) {
    assumptions.push('no transformer layers recognized: the estimate is the weights, the runtime and the logits');
    const total = W + runtime + logits;
    return {
      contextTokens: C,
      batch: 1,
      weightBytes: W,
      runtimeBytes: runtime,
      kvCacheBytes: 0,
      activationBytes: logits,
      logitsBytes: logits,
      totalBytes: total,
      inputLimit,
      formula: `${runtimeText} + logits C·V·${l} = ${n(C)}·${n(V)}·${l} B ${formatBytes(logits)} = ${formatBytes(total)} (architecture unknown)`,
      assumptions,
    };
  }
  const I = intermediate ?? 4 * hidden;
  if (intermediate === null) assumptions.push(`intermediate size 4 x hidden = ${I} assumed`);
  const k = report.graph.attention === 'fused' ? FUSED_ATTENTION_TENSORS : DECOMPOSED_ATTENTION_TENSORS;
  const scoreBytes = heads * C * C * b;
  // Outputs besides the logits are the KV cache (present.*): they live until the pass ends.
  const returnsKv = report.outputs.length > 1;
  const kv = returnsKv ? 2 * layers * C * kvHeads * headDim * b : 0;
  const attention = k * scoreBytes;
  const hiddenStates = b * (4 * C * hidden + 2 * C * I);
  const logitsOnTop = logits > attention ? logits : 0;
  const activations = attention + hiddenStates + logitsOnTop;
  const total = W + runtime + kv + activations;
  const formula =
    `${runtimeText}` +
    (returnsKv
      ? ` + KV cache 2·L·C·kvH·hd·b = 2·${n(layers)}·${n(C)}·${n(kvHeads)}·${n(headDim)}·${b} B = ${formatBytes(kv)}`
      : ' + KV cache 0 (not returned)') +
    ` + attention k·A·C²·b = ${k}·${n(heads)}·${n(C)}²·${b} B = ${formatBytes(attention)} (${report.graph.attention === 'fused' ? 'fused attention op' : 'decomposed attention'})` +
    ` + hidden b·(4·C·H + 2·C·I) = ${b}·(4·${n(C)}·${n(hidden)} + 2·${n(C)}·${n(I)}) B = ${formatBytes(hiddenStates)}` +
    ` + logits C·V·${l} = ${n(C)}·${n(V)}·${l} B = ${formatBytes(logits)}${logitsOnTop === 0 && logits > 0 ? ' (in freed attention memory: +0)' : ''}` +
    ` = ${formatBytes(total)}`;
  return {
    contextTokens: C,
    batch: 1,
    weightBytes: W,
    runtimeBytes: runtime,
    kvCacheBytes: kv,
    activationBytes: activations,
    logitsBytes: logits,
    totalBytes: total,
    inputLimit,
    formula,
    assumptions,
  };
}
