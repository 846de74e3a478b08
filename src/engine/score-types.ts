/**
 * What scoring takes and gives, whatever the model: options, progress, statistics and results. A leaf (types
 * only), so the causal scorer (score-requests.ts) and the encoder-decoder one (seq2seq-scoring.ts) share it.
 */
import type { LoglikelihoodResult } from './model-input.js';

export interface ScoreProgress {
  readonly requestsDone: number;
  readonly requestsTotal: number;
  /** Real input tokens processed so far (padding excluded, shared rows counted once). */
  readonly tokensDone: number;
  readonly tokensTotal: number;
  /** False while later requests are still being tokenized, so tokensTotal is only a lower bound. */
  readonly tokensTotalFinal?: boolean;
  /** Requests whose tokens tokensTotal counts (all of them when absent), to extrapolate the final total. */
  readonly requestsTokenized?: number;
  /** Of requestsDone, those whose scores came from the score cache (no model work; tokens count only the rest). */
  readonly requestsFromCache?: number;
  readonly elapsedMs: number;
}

export interface ScoreOptions {
  readonly batchSize?: number | 'auto';
  readonly memoryBudgetBytes?: number;
  /** Under `auto`, tokens (rows × padded length) per forward pass; default defaultTokensPerBatch(). */
  readonly tokensPerBatch?: number;
  readonly onProgress?: (progress: ScoreProgress) => void;
  /**
   * Called as each forward pass finishes, with the indices (into the inputs) of the requests it scored and
   * their results in the same order: the score cache stores them here, so a killed run loses one pass at most.
   */
  readonly onBatchScored?: (requestIndices: readonly number[], results: readonly LoglikelihoodResult[]) => void;
  /** Compute a shared prompt prefix once and reuse its KV, when the model has KV inputs (default true). */
  readonly prefixReuse?: boolean;
  /** Shortest shared prefix worth reusing. */
  readonly minPrefixTokens?: number;
  /** Score a request whose input is a prefix of another's from the longer row (default true; see collator.ts). */
  readonly mergePrefixRows?: boolean;
  /**
   * Forward passes in flight at once (default: the model's parallelBatches). With one intra-op thread per
   * pass, N passes keep N cores busy without ORT's per-op thread synchronisation. The memory budget is
   * shared between them.
   */
  readonly concurrentBatches?: number;
}

/** Options of the entries that tokenize text requests themselves. */
export interface ScoreStats {
  readonly requests: number;
  /** Of those, the requests answered from the score cache; every other figure here is the model's work. */
  readonly requestsFromCache?: number;
  /** Forward-pass rows after sharing identical inputs and folding prefix rows into longer ones. */
  readonly rows: number;
  readonly batches: number;
  /** Tokens of the unique rows: what a forward pass per row without reuse would process. */
  readonly inputTokens: number;
  /** Tokens the forward passes computed, padding included (prefix passes counted once each). */
  readonly paddedTokens: number;
  /** Rows of logits the model produced (scored positions when the LM head is sliced). */
  readonly logitRows: number;
  readonly prefixGroups: number;
  /**
   * Tokens not recomputed thanks to prefix reuse; for an encoder-decoder, the encoder tokens of contexts shared
   * between requests (each distinct context is encoded once per pass).
   */
  readonly reusedPrefixTokens: number;
  readonly wallMs: number;
}

export interface ScoreOutput {
  readonly results: LoglikelihoodResult[];
  readonly stats: ScoreStats;
}
