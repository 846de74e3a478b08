/**
 * Runs planned batches through a model and maps the per-request results back to request order. Work is a
 * list of jobs (one forward pass each); the next job is packed while the current one runs on the native
 * worker thread. When the model has a KV cache, rows that share a long prompt prefix are scored as
 * suffixes after the prefix's KV has been computed once (see prefix-plan.ts).
 */
import type { GraphSignature, PrefixId } from '../native/binding.js';
import type { LanguageModel } from '../model/onnx-model.js';
import { batchFitsFor, type ModelDimensions } from './batch-size.js';
import { DEFAULT_MAX_PADDING_FRACTION, packBatch, planBatches, planRows, type PackedPlan, type PlannedRow } from './collator.js';
import { runJobs } from './job-runner.js';
import { filePassResults, passProgressReporter } from './pass-results.js';
import { autoBudgets, concurrentPasses, spreadTokenCap } from './pass-budgets.js';
import { DEFAULT_MIN_PREFIX_TOKENS, planPrefixGroups, type PrefixGroup } from './prefix-plan.js';
import { assertInVocabulary, type LoglikelihoodResult, type ModelInput } from './model-input.js';
import { scoreSeq2SeqInputs } from './seq2seq-scoring.js';
import type { ScoreOptions, ScoreOutput } from './score-types.js';

export type { ScoreOptions, ScoreOutput, ScoreProgress, ScoreStats } from './score-types.js';

/** One forward pass: rows to pack, and the prefix group whose KV they continue, if any. */
interface Job {
  readonly rows: readonly PlannedRow[];
  readonly group?: PrefixGroup;
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

function planJobs(model: LanguageModel, rows: readonly PlannedRow[], options: ScoreOptions, concurrency: number): { jobs: Job[]; groups: PrefixGroup[] } {
  const dims = modelDimensions(model);
  const cap = spreadTokenCap(
    rows.reduce((sum, row) => sum + row.tokens.length, 0),
    concurrency,
  );
  const budgets = autoBudgets(model.provider, options, cap);
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

  constructor(
    private readonly model: LanguageModel,
    jobs: readonly Job[],
  ) {
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
 * native worker); the next batch is packed while the launched ones run. An encoder-decoder's inputs go to its
 * own planner (seq2seq-scoring.ts).
 */
export async function scoreModelInputs(
  model: LanguageModel,
  inputs: readonly ModelInput[],
  options: ScoreOptions = {},
  describe: (index: number) => string = (index) => `request ${index}`,
): Promise<ScoreOutput> {
  if (model.backend === 'seq2seq') return scoreSeq2SeqInputs(model, inputs, options, describe);
  assertInVocabulary(inputs, model.vocabSize, describe);
  const concurrency = concurrentPasses(options, model.parallelBatches);
  const started = performance.now();
  const rows = planRows(inputs, { mergePrefixRows: options.mergePrefixRows ?? true });
  const { jobs, groups } = planJobs(model, rows, options, concurrency);
  const tokensTotal = rows.reduce((sum, row) => sum + row.tokens.length, 0);
  const results = new Array<LoglikelihoodResult>(inputs.length);
  const totals = { requestsDone: 0, tokensDone: 0, paddedTokens: 0, logitRows: 0, reusedPrefixTokens: 0 };
  const reportProgress = passProgressReporter(options.onProgress, { requestsTotal: inputs.length, tokensTotal, startedMs: started });
  const prefixes = new PrefixLoader(model, jobs);

  const run = async (job: Job, packed: PackedPlan): Promise<void> => {
    const prefix = job.group ? await prefixes.acquire(job.group) : undefined;
    const scores = await model.scoreBatch(packed.batch, prefix);
    if (job.group) await prefixes.finished(job.group);
    filePassResults(scores, packed.requestIndices, results, options.onBatchScored);
    const prefixLength = job.group?.prefix.length ?? 0;
    totals.requestsDone += packed.requestIndices.length;
    totals.tokensDone += packed.inputTokenCount + prefixLength * job.rows.length;
    totals.reusedPrefixTokens += prefixLength * job.rows.length;
    totals.paddedTokens += scores.paddedTokens;
    totals.logitRows += scores.logitRows;
    reportProgress(totals);
  };

  try {
    await runJobs(jobs, (job) => packBatch(job.rows, inputs, job.group?.prefix.length ?? 0), run, concurrency);
  } finally {
    // runJobs lets every pass settle first, so no prefix goes while a pass still reads it.
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
