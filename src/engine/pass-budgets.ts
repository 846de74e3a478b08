/**
 * How many forward passes run at once, and the budgets an `auto` batch size plans them within, whatever the model
 * kind: CPU-sized, or GPU-sized on CUDA, and split so that a small job still gives every concurrent pass work.
 */
import type { ExecutionProvider } from '../native/binding.js';
import { loadBinding } from '../native/binding.js';
import { DEFAULT_MEMORY_BUDGET_BYTES, DEFAULT_TOKENS_PER_BATCH, GPU_TOKENS_PER_BATCH, gpuMemoryBudgetBytes } from './batch-size.js';
import type { ScoreOptions } from './score-types.js';

const BATCHES_PER_CONCURRENT_PASS = 8;

/**
 * The most tokens an `auto` pass may take so that a job of `totalTokens` still splits into enough passes to keep
 * every concurrent pass busy until the end (BATCHES_PER_CONCURRENT_PASS each; passes vary in cost).
 */
export function spreadTokenCap(totalTokens: number, concurrency: number): number {
  return Math.max(DEFAULT_TOKENS_PER_BATCH, Math.ceil(totalTokens / (concurrency * BATCHES_PER_CONCURRENT_PASS)));
}

/**
 * The memory and per-pass token budgets `auto` plans for, unless the caller set them: CPU-sized, or GPU-sized
 * on CUDA (where `spreadCap` still splits a small job so that every concurrent pass gets work).
 */
export function autoBudgets(
  provider: ExecutionProvider,
  options: ScoreOptions,
  spreadCap: number,
): { memoryBytes: number; tokensPerBatch: number | undefined } {
  if (provider !== 'cuda') return { memoryBytes: options.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET_BYTES, tokensPerBatch: options.tokensPerBatch };
  return {
    memoryBytes: options.memoryBudgetBytes ?? gpuMemoryBudgetBytes(loadBinding().cudaDevice()?.freeBytes ?? null),
    tokensPerBatch: options.tokensPerBatch ?? Math.min(GPU_TOKENS_PER_BATCH, spreadCap),
  };
}

/** Forward passes in flight at once: the caller's concurrentBatches, else the model's; RangeError unless a positive integer. */
export function concurrentPasses(options: Pick<ScoreOptions, 'concurrentBatches'>, modelDefault: number): number {
  const concurrency = options.concurrentBatches ?? modelDefault;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrentBatches must be a positive integer, got ${concurrency}`);
  return concurrency;
}
