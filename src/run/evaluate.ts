/**
 * evaluate(): suites in, lm-eval-compatible results out. Every log-likelihood request of every task goes to the
 * model at once (as lm-eval's evaluator does), so batching and row sharing work across tasks; then every
 * generate_until request goes through the generation route (generation-route.ts). evaluateShard() scores one
 * shard's documents (src/run/shard.ts) for mergeShards() to join; scoreDocuments() scores any chosen documents
 * (the merge's --verify re-scores a sample of each shard's).
 */
import { defaultCacheDir } from '../cache/token-cache.js';
import { documentOutcomes } from '../eval/document-outcomes.js';
import { describeScoringRequest } from '../eval/instance.js';
import type { EncodingRules } from '../eval/request-encoding.js';
import { modelEncodingRules } from '../eval/text-requests.js';
import { requestsForTask, scoringRequests, type ScoringContext } from '../eval/task-kinds.js';
import type { Task } from '../tasks/types.js';
import { parseEvaluateOptions, type EvaluateOptions, type ResolvedEvaluateOptions } from './evaluate-options.js';
import { runGenerationRoute } from './generation-route.js';
import { scoreLoglikelihoods } from './loglikelihood-scoring.js';
import { splitMemoryPeaks, wholeRunPeakRssBytes } from './memory-peaks.js';
import { modelFactsOf, startModelDigests } from './model-facts.js';
import { loadRunInputs } from './run-inputs.js';
import { buildRunResults, type EvaluateResult, type ScoredRun, type WorkFacts } from './run-results.js';
import { buildShardRecord, type ShardRecord } from './shard-record.js';
import { shardDocuments } from './shard.js';

export type { EvaluateResult } from './run-results.js';

/**
 * Which documents of each task to score, by task name (a task without an entry scores none); undefined: all.
 * Requests are still built for whole tasks first: few-shot draws depend on every earlier document.
 */
export type DocumentSelection = (tasks: readonly Task[]) => ReadonlyMap<string, ReadonlySet<number>>;

/**
 * A run, start to end: load the model and the suites, build every request, score the log-likelihood requests
 * (through the caches) and generate the generate_until ones, match results back to documents, and record the
 * model and the work. Every document is scored, or the selected ones when a selection is given.
 */
async function scoreRun(options: ResolvedEvaluateOptions, select?: DocumentSelection): Promise<ScoredRun> {
  const startMs = performance.now();
  const startedAtUnixSeconds = Date.now() / 1000;
  const { model, suites, tasks } = await loadRunInputs(options);
  const memoryPeaks = splitMemoryPeaks();
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const warn = options.onWarning ?? options.onLog ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
  const digests = startModelDigests(model, cacheDir, warn);
  try {
    const requestsByTask = new Map(tasks.map((task) => [task.name, requestsForTask(task)]));
    const selected = select?.(tasks);
    const isSelected = (taskName: string, docId: number): boolean => selected === undefined || selected.get(taskName)?.has(docId) === true;
    let rules: EncodingRules | undefined;
    const scoringContext: ScoringContext = {
      rules: () => (rules ??= modelEncodingRules(model, options.lmEvalVersion)),
      maxLength: model.maxLength,
    };
    const requests = [...requestsByTask].flatMap(([taskName, taskRequests]) =>
      scoringRequests(taskRequests, (docId) => isSelected(taskName, docId), scoringContext),
    );
    const describe = (index: number): string => {
      const request = requests[index];
      return request === undefined ? `request ${index}` : describeScoringRequest(request);
    };
    const label = suites.map((suite) => suite.name).join('+');
    const { scored, scoreCache } = await scoreLoglikelihoods(model, requests, { options, cacheDir, label, warn, describe });
    const generated = await runGenerationRoute(model, tasks, requestsByTask, isSelected, {
      rules: scoringContext.rules,
      batchSize: options.batchSize === 'auto' ? undefined : options.batchSize,
      onWarning: warn,
      onProgress: options.onProgress ? (progress) => options.onProgress?.({ ...progress, label: `${label} (generating)` }) : undefined,
    });
    const loglikTasks = tasks.filter((task) => task.kind !== 'generate_until');
    const outcomes = new Map([...documentOutcomes(loglikTasks, requests, scored?.results ?? [], selected), ...generated.outcomes]);
    const memory = memoryPeaks();
    const endMs = performance.now();
    const work: WorkFacts = {
      startedAtUnixSeconds,
      startMs,
      endMs,
      scoringSeconds: (scored?.stats.wallMs ?? 0) / 1000,
      tokensScored: scored?.stats.inputTokens ?? 0,
      requests: scored?.stats.requests ?? 0,
      forwardRows: scored?.stats.rows ?? 0,
      paddedTokens: scored?.stats.paddedTokens ?? 0,
      generation: { requests: generated.requests, generatedTokens: generated.generatedTokens, seconds: generated.seconds },
      peakRssBytes: wholeRunPeakRssBytes(memory),
      memory,
      scoreCache,
    };
    return { suites, requestsByTask, outcomes, model: await modelFactsOf(model, options.model, digests), work };
  } finally {
    model.dispose();
  }
}

/** Options are checked synchronously (TypeError / RangeError); the work itself is async. */
export function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  const resolved = parseEvaluateOptions(options);
  if (resolved.shard !== undefined)
    throw new TypeError('a shard has no results of its own: score it with evaluateShard() and join the shards with mergeShards()');
  return scoreRun(resolved).then((scored) => buildRunResults({ ...scored, settings: resolved }));
}

/**
 * Scores the documents of `options.shard` (required) and returns what mergeShards() needs to rebuild the whole
 * run's results: every scored document's log-likelihoods and the facts that identify the run.
 */
export function evaluateShard(options: EvaluateOptions): Promise<ShardRecord> {
  const resolved = parseEvaluateOptions(options);
  const { shard } = resolved;
  if (shard === undefined) throw new TypeError('evaluateShard() needs the shard option ({ index, count })');
  return scoreRun(resolved, (tasks) => shardDocuments(tasks, shard)).then((scored) => buildShardRecord({ ...scored, shard, options: resolved }));
}

/**
 * Scores the documents `select` chooses, as a run with these options scores them (the same prompts, truncation
 * and scorer), and returns the scored run: its outcomes hold those documents only.
 */
export function scoreDocuments(options: EvaluateOptions, select: DocumentSelection): Promise<ScoredRun> {
  const resolved = parseEvaluateOptions(options);
  if (resolved.shard !== undefined) throw new TypeError('scoreDocuments() takes its documents from `select`, not from a shard option');
  return scoreRun(resolved, select);
}
