/**
 * Batch sizing. A fixed --batch-size N caps rows per forward pass (lm-eval's meaning). `auto` derives the
 * cap from a memory budget instead of trial and error. The estimate covers what ORT holds at once for one
 * forward pass:
 *   - logits: [scored positions, V] fp32 when the LM head is sliced, else the full [rows, T, V];
 *   - per-token hidden activations (q, k, v, attention output, the MLP's 4× expansion …);
 *   - the attention score matrices, [rows, heads, T, past + T], twice (scores and softmax);
 *   - with a reused prefix, its KV copied to every row and the concatenated present KV ORT builds.
 * The budget keeps peak memory predictable; a token budget per pass (below) keeps passes at the size that
 * runs fastest per token. With fused attention the score matrices are never materialized and drop out.
 */
import type { BatchFits } from './collator.js';

export interface ModelDimensions {
  readonly vocabSize: number;
  readonly hiddenSize: number | null;
  readonly attentionHeads: number | null;
  /** Logits are gathered at scored positions only (LM-head slicing). */
  readonly logitsSliced?: boolean;
  /** Floats of KV cache per token over all layers (0 when the graph has no KV inputs). */
  readonly kvFloatsPerToken?: number;
  /** Attention runs as fused kernels (no [rows, heads, T, T] tensors). */
  readonly attentionFused?: boolean;
}

export interface PrefixShape {
  /** Tokens of the reused prefix every row continues. */
  readonly pastLength: number;
}

export const DEFAULT_MEMORY_BUDGET_BYTES = 256 * 1024 * 1024;
// When config.json does not say, assume a GPT-2-small-like width so the estimate errs large.
export const FALLBACK_HIDDEN = 768;
export const FALLBACK_HEADS = 12;
/**
 * Tokens per forward pass under `auto` (a batch's first row may exceed it alone). On CPU a pass of a few
 * hundred tokens already feeds ORT's GEMMs at full speed, while larger passes push the element-wise ops'
 * [tokens, 4 × hidden] tensors out of cache and run slower per token (measured in bench/RESULTS.md).
 */
export const DEFAULT_TOKENS_PER_BATCH = 512;
/**
 * A pass's working set, and so the token count that runs fastest, depends on the graph:
 *   - its activations, [tokens, hidden]: the budget is set in activation elements, what 512 tokens of GPT-2
 *     small (hidden 768) hold, the size measured fastest there; narrow models batch more tokens (stories260K,
 *     hidden 64: 6,144), which amortizes ORT's per-operator cost;
 *   - unless attention is fused, its [rows, heads, T, T] scores too: rows × T² ≤ 512 × 256 (two 256-token rows),
 *     so short rows (BLiMP) batch more and long ones (MMLU) stay at 512 tokens.
 * Batching never changes a row's numbers: each row's results are those of the same row alone.
 */
export const ACTIVATIONS_PER_BATCH = 512 * 768;
/**
 * On a GPU a pass needs far more tokens than on a CPU before its matrix products run at full speed, and
 * memory is plentiful: `auto` there plans passes of this many tokens (measured on an H100, bench/RESULTS.md)
 * within GPU_MEMORY_SHARE of the device memory left free once the model is loaded.
 */
export const GPU_TOKENS_PER_BATCH = 16_384;
export const GPU_MEMORY_SHARE = 0.5;
/** When the device cannot be asked (a build without CUDA kernels), a budget any datacenter GPU has. */
export const GPU_FALLBACK_BUDGET_BYTES = 8 * 1024 ** 3;

/** The `auto` memory budget on a GPU with `freeBytes` free (null: unknown). */
export function gpuMemoryBudgetBytes(freeBytes: number | null): number {
  return freeBytes === null ? GPU_FALLBACK_BUDGET_BYTES : Math.floor(freeBytes * GPU_MEMORY_SHARE);
}
export const SCORE_ROWS_PER_BATCH = 512 * 256;
export const MAX_TOKENS_PER_BATCH = 8192;

/** The token budget of an `auto` pass whose rows are padded to `paddedLength`, when the caller sets none. */
export function defaultTokensPerBatch(dims: ModelDimensions, paddedLength: number): number {
  const hidden = dims.hiddenSize ?? FALLBACK_HIDDEN;
  const byActivations = Math.floor(ACTIVATIONS_PER_BATCH / hidden);
  const byScores = dims.attentionFused ? Number.POSITIVE_INFINITY : Math.floor(SCORE_ROWS_PER_BATCH / Math.max(1, paddedLength));
  return Math.max(DEFAULT_TOKENS_PER_BATCH, Math.min(MAX_TOKENS_PER_BATCH, byActivations, byScores));
}
// Live fp32 activations per token per hidden unit across a layer (q, k, v, attention output, MLP ×4 …).
export const ACTIVATION_FLOATS_PER_HIDDEN = 16;
export const FLOAT_BYTES = 4;

export function estimateBatchBytes(
  rows: number,
  paddedLength: number,
  dims: ModelDimensions,
  scoredPositions = rows * paddedLength,
  prefix: PrefixShape = { pastLength: 0 },
): number {
  const tokens = rows * paddedLength;
  const logitRows = dims.logitsSliced ? scoredPositions : tokens;
  const logits = logitRows * dims.vocabSize * FLOAT_BYTES;
  const activations = tokens * (dims.hiddenSize ?? FALLBACK_HIDDEN) * ACTIVATION_FLOATS_PER_HIDDEN * FLOAT_BYTES;
  const keyLength = prefix.pastLength + paddedLength;
  const attention = dims.attentionFused ? 0 : rows * (dims.attentionHeads ?? FALLBACK_HEADS) * paddedLength * keyLength * FLOAT_BYTES * 2;
  // The past fed to every layer, and the present KV ORT concatenates from it (graph outputs, so they may
  // all stay allocated until the run ends even when not requested): twice the KV of past + new tokens.
  const kvCache = prefix.pastLength > 0 ? 2 * rows * (dims.kvFloatsPerToken ?? 0) * keyLength * FLOAT_BYTES : 0;
  return logits + activations + attention + kvCache;
}

/**
 * tokensPerBatch fixes the token budget of `auto` passes; without it the budget is defaultTokensPerBatch(),
 * capped at maxTokensPerBatch (small jobs lower it so every concurrent pass gets work).
 */
export function batchFitsFor(
  batchSize: number | 'auto',
  dims: ModelDimensions,
  memoryBudgetBytes = DEFAULT_MEMORY_BUDGET_BYTES,
  prefix: PrefixShape = { pastLength: 0 },
  tokensPerBatch?: number,
  maxTokensPerBatch = Number.POSITIVE_INFINITY,
): BatchFits {
  if (batchSize !== 'auto') {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batch size must be a positive integer or 'auto', got ${batchSize}`);
    return (rows) => rows <= batchSize;
  }
  const tokenBudget = (paddedLength: number): number => tokensPerBatch ?? Math.min(defaultTokensPerBatch(dims, paddedLength), maxTokensPerBatch);
  return (rows, paddedLength, scoredPositions) =>
    rows * paddedLength <= tokenBudget(paddedLength) && estimateBatchBytes(rows, paddedLength, dims, scoredPositions, prefix) <= memoryBudgetBytes;
}
