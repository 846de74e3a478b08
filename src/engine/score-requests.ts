/**
 * Runs planned batches through a model and maps the per-request results back to request order. Work is a
 * list of jobs (one forward pass each); the next job is packed while the current one runs on the native
 * worker thread. When the model has a KV cache, rows that share a long prompt prefix are scored as
 * suffixes after the prefix's KV has been computed once (see prefix-plan.ts).
 */
import { MlrbError } from '../errors.js';
import type { GraphSignature, PrefixId } from '../native/binding.js';
import type { LanguageModel } from '../model/onnx-model.js';
import type { LoglikelihoodResult } from './model-input.js';
import {
  batchFitsFor, DEFAULT_MEMORY_BUDGET_BYTES, DEFAULT_TOKENS_PER_BATCH, GPU_TOKENS_PER_BATCH, gpuMemoryBudgetBytes, type ModelDimensions,
} from './batch-size.js';
import { loadBinding } from '../native/binding.js';
import { DEFAULT_MAX_PADDING_FRACTION, packBatch, planBatches, planRows, type PackedPlan, type PlannedRow } from './collator.js';
import { DEFAULT_MIN_PREFIX_TOKENS, planPrefixGroups, type PrefixGroup } from './prefix-plan.js';
import type { ModelInput } from './model-input.js';

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
  /** Tokens not recomputed thanks to prefix reuse. */
  readonly reusedPrefixTokens: number;
  readonly wallMs: number;
}

export interface ScoreOutput {
  readonly results: LoglikelihoodResult[];
  readonly stats: ScoreStats;
}

/** One forward pass: rows to pack, and the prefix group whose KV they continue, if any. */
interface Job {
  readonly rows: readonly PlannedRow[];
  readonly group?: PrefixGroup;
}

function assertInVocabulary(inputs: readonly ModelInput[], vocabSize: number | null, describe: (index: number) => string): void {
  if (vocabSize === null) return;
  inputs.forEach((input, index) => {
    for (const id of [...input.inputTokens, ...input.continuationTokens]) {
      if (!Number.isInteger(id) || id < 0 || id >= vocabSize) {
        throw new MlrbError(
          'BAD_DATA',
          `${describe(index)}: token id ${id} is outside the model's vocabulary of ${vocabSize} ids (does the tokenizer belong to this model?)`,
          { tokenId: id, vocabSize, request: index },
        );
      }
    }
  });
}

/** KV floats per token over all layers, from the past inputs' shapes (config.json fills symbolic dims). */
function kvFloatsPerToken(signature: GraphSignature, fallbackHeads: number | null, fallbackHeadDim: number | null): number {
  const dim = (value: number | string | undefined, fallback: number | null): number => (typeof value === 'number' ? value : (fallback ?? 0));
  return signature.inputs.reduce((sum, input) => {
    if (input.role === 'past_key_value') return sum + dim(input.shape[1], fallbackHeads) * dim(input.shape[3], fallbackHeadDim);
    if (input.role === 'past_stacked') return sum + 2 * dim(input.shape[2], fallbackHeads) * dim(input.shape[4], fallbackHeadDim);
    return sum;
  }, 0);
}

export function modelDimensions(model: LanguageModel): ModelDimensions {
  return {
    vocabSize: model.vocabSize ?? 50_000,
    hiddenSize: model.metadata.hiddenSize,
    attentionHeads: model.metadata.attentionHeads,
    logitsSliced: model.signature.logitsSliced,
    attentionFused: model.attentionFused,
    kvFloatsPerToken: kvFloatsPerToken(model.signature, model.metadata.numKeyValueHeads, model.metadata.headDim),
  };
}

const BATCHES_PER_CONCURRENT_PASS = 8;

/**
 * The most tokens an `auto` pass may take so that a small job still splits into enough passes to keep every
 * concurrent pass busy until the end (BATCHES_PER_CONCURRENT_PASS each; passes vary in cost).
 */
function spreadTokenCap(rows: readonly PlannedRow[], concurrency: number): number {
  const totalTokens = rows.reduce((sum, row) => sum + row.tokens.length, 0);
  return Math.max(DEFAULT_TOKENS_PER_BATCH, Math.ceil(totalTokens / (concurrency * BATCHES_PER_CONCURRENT_PASS)));
}

/**
 * The memory and per-pass token budgets `auto` plans for, unless the caller set them: CPU-sized, or GPU-sized
 * on CUDA (where `spreadCap` still splits a small job so that every concurrent pass gets work).
 */
function autoBudgets(model: LanguageModel, options: ScoreOptions, spreadCap: number): { memoryBytes: number; tokensPerBatch: number | undefined } {
  if (model.provider !== 'cuda') return { memoryBytes: options.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET_BYTES, tokensPerBatch: options.tokensPerBatch };
  return {
    memoryBytes: options.memoryBudgetBytes ?? gpuMemoryBudgetBytes(loadBinding().cudaDevice()?.freeBytes ?? null),
    tokensPerBatch: options.tokensPerBatch ?? Math.min(GPU_TOKENS_PER_BATCH, spreadCap),
  };
}

function planJobs(model: LanguageModel, rows: readonly PlannedRow[], options: ScoreOptions, concurrency: number): { jobs: Job[]; groups: PrefixGroup[] } {
  const dims = modelDimensions(model);
  const cap = spreadTokenCap(rows, concurrency);
  const budgets = autoBudgets(model, options, cap);
  const budget = budgets.memoryBytes / concurrency;
  const batchSize = options.batchSize ?? 'auto';
  const reuse = (options.prefixReuse ?? true) && model.supportsPrefix;
  const plan = reuse ? planPrefixGroups(rows, options.minPrefixTokens ?? DEFAULT_MIN_PREFIX_TOKENS) : { groups: [], plainRows: [...rows] };
  // A fixed --batch-size keeps lm-eval's meaning (N rows per pass); auto also bounds padding.
  const padding = batchSize === 'auto' ? DEFAULT_MAX_PADDING_FRACTION : 1;
  const fits = batchFitsFor(batchSize, dims, budget, undefined, budgets.tokensPerBatch, cap);
  const jobs: Job[] = planBatches(plan.plainRows, fits, padding).map((batch) => ({ rows: batch }));
  for (const group of plan.groups) {
    const groupFits = batchFitsFor(batchSize, dims, budget, { pastLength: group.prefix.length }, budgets.tokensPerBatch, cap);
    for (const batch of planBatches(group.suffixRows, groupFits, padding)) jobs.push({ rows: batch, group });
  }
  return { jobs, groups: plan.groups };
}

/**
 * Prefix KV per group, computed when the group's first job launches and released after its last job
 * finishes, so that concurrent jobs of one group share it.
 */
class PrefixLoader {
  private readonly loaded = new Map<PrefixGroup, Promise<PrefixId>>();
  private readonly remaining = new Map<PrefixGroup, number>();
  computedTokens = 0;

  constructor(private readonly model: LanguageModel, jobs: readonly Job[]) {
    for (const job of jobs) if (job.group) this.remaining.set(job.group, (this.remaining.get(job.group) ?? 0) + 1);
  }

  acquire(group: PrefixGroup): Promise<PrefixId> {
    let prefix = this.loaded.get(group);
    if (!prefix) {
      prefix = this.model.computePrefix(group.prefix);
      this.loaded.set(group, prefix);
      this.computedTokens += group.prefix.length;
    }
    return prefix;
  }

  async finished(group: PrefixGroup): Promise<void> {
    const left = (this.remaining.get(group) ?? 1) - 1;
    this.remaining.set(group, left);
    if (left === 0) await this.release(group);
  }

  async releaseAll(): Promise<void> {
    for (const group of [...this.loaded.keys()]) await this.release(group);
  }

  private async release(group: PrefixGroup): Promise<void> {
    const prefix = this.loaded.get(group);
    this.loaded.delete(group);
    if (prefix) this.model.releasePrefix(await prefix);
  }
}

/**
 * Scores already-built model inputs. Up to `concurrentBatches` forward passes run at once (each on its own
 * native worker); the next batch is packed while the launched ones run.
 */
export async function scoreModelInputs(
  model: LanguageModel,
  inputs: readonly ModelInput[],
  options: ScoreOptions = {},
  describe: (index: number) => string = (index) => `request ${index}`,
): Promise<ScoreOutput> {
  assertInVocabulary(inputs, model.vocabSize, describe);
  const concurrency = options.concurrentBatches ?? model.parallelBatches;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrentBatches must be a positive integer, got ${concurrency}`);
  const started = performance.now();
  const rows = planRows(inputs, { mergePrefixRows: options.mergePrefixRows ?? true });
  const { jobs, groups } = planJobs(model, rows, options, concurrency);
  const tokensTotal = rows.reduce((sum, row) => sum + row.tokens.length, 0);
  const results = new Array<LoglikelihoodResult>(inputs.length);
  const totals = { requestsDone: 0, tokensDone: 0, paddedTokens: 0, logitRows: 0, reusedPrefixTokens: 0 };
  const prefixes = new PrefixLoader(model, jobs);

  const run = async (job: Job, packed: PackedPlan): Promise<void> => {
    const prefix = job.group ? await prefixes.acquire(job.group) : undefined;
    const scores = await model.scoreBatch(packed.batch, prefix);
    if (job.group) await prefixes.finished(job.group);
    const requestIndices = Array.from(packed.requestIndices);
    const batchResults = requestIndices.map((requestIndex, position) => {
      const result = { loglik: scores.logliks[position] as number, isGreedy: scores.greedy[position] === 1 };
      results[requestIndex] = result;
      return result;
    });
    options.onBatchScored?.(requestIndices, batchResults);
    const prefixLength = job.group?.prefix.length ?? 0;
    totals.requestsDone += packed.requestIndices.length;
    totals.tokensDone += packed.inputTokenCount + prefixLength * job.rows.length;
    totals.reusedPrefixTokens += prefixLength * job.rows.length;
    totals.paddedTokens += scores.paddedTokens;
    totals.logitRows += scores.logitRows;
    options.onProgress?.({
      requestsDone: totals.requestsDone, requestsTotal: inputs.length, tokensDone: totals.tokensDone, tokensTotal, elapsedMs: performance.now() - started,
    });
  };

  const inFlight = new Set<Promise<void>>();
  try {
    const pack = (job: Job): PackedPlan => packBatch(job.rows, inputs, job.group?.prefix.length ?? 0);
    let packed = jobs.length > 0 ? pack(jobs[0] as Job) : undefined;
    for (let index = 0; index < jobs.length && packed; index += 1) {
      while (inFlight.size >= concurrency) await Promise.race(inFlight);
      const running: Promise<void> = run(jobs[index] as Job, packed).finally(() => inFlight.delete(running));
      inFlight.add(running);
      packed = index + 1 < jobs.length ? pack(jobs[index + 1] as Job) : undefined;
    }
    await Promise.all(inFlight);
  } finally {
    // A failed pass leaves others running; they must settle before their prefixes go.
    await Promise.allSettled(inFlight);
    await prefixes.releaseAll();
  }
  // Each prefix ran once: what reuse saved is every other row's copy of it.
  const reusedPrefixTokens = totals.reusedPrefixTokens - groups.reduce((sum, group) => sum + group.prefix.length, 0);
  return {
    results,
    stats: {
      requests: inputs.length,
      rows: rows.length,
      batches: jobs.length,
      inputTokens: tokensTotal,
      paddedTokens: totals.paddedTokens + prefixes.computedTokens,
      logitRows: totals.logitRows,
      prefixGroups: groups.length,
      reusedPrefixTokens,
      wallMs: performance.now() - started,
    },
  };
}
