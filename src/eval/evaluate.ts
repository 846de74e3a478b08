/**
 * evaluate(): suites in, lm-eval-compatible results out. Every log-likelihood request of every task goes to the
 * model at once (as lm-eval's evaluator does), so batching and row sharing work across tasks; then every
 * generate_until request goes through the generation route (generation-route.ts). evaluateShard() scores one
 * shard's documents (src/eval/shard.ts) for mergeShards() to join; scoreDocuments() scores any chosen documents
 * (the merge's --verify re-scores a sample of each shard's).
 */
import { parseEvaluateOptions, requestedRewrites, type EvaluateOptions, type ResolvedEvaluateOptions } from '../config/evaluate-options.js';
import { loadModel, type LanguageModel } from '../model/onnx-model.js';
import { loadBinding } from '../native/binding.js';
import { describeScoringRequest } from './instance.js';
import { documentOutcomes } from './document-outcomes.js';
import { loadSuites } from './load-suites.js';
import type { Suite, Task } from '../tasks/types.js';
import { splitMemoryPeaks, wholeRunPeakRssBytes } from './memory-peaks.js';
import { modelContentSha256, modelFilesLabel, modelFilesSha256 } from './model-digest.js';
import { cpuRunFacts, environmentSummary } from './run-facts.js';
import { buildRunResults, type EvaluateResult, type ScoredRun } from './run-results.js';
import { defaultCacheDir } from '../cache/token-cache.js';
import { openTokenCache } from '../cache/cached-tokenize.js';
import { DEFAULT_SCORE_CACHE_MAX_BYTES, openScoreCache, type ScoreCache } from '../cache/score-cache.js';
import { cachedScorer } from './cached-scoring.js';
import { tokenizeAndScore } from './pipelined-scoring.js';
import { encodingRulesFor, modelInputFor, type EncodingRules } from './request-encoding.js';
import type { ScoreOptions } from './score-requests.js';
import { buildShardRecord, type ShardRecord } from './shard-record.js';
import { shardDocuments } from './shard.js';
import { requestsForTask, scoringRequests, type ScoringContext } from './task-kinds.js';
import { checkGenerationFits, checkGenerationTasks, runGenerationRoute } from './generation-route.js';

export type { EvaluateResult } from './run-results.js';

/** The suites and their tasks, checked; on a data error the model being loaded is disposed once it is there. */
async function loadSuitesWhile(modelLoading: Promise<LanguageModel>, options: ResolvedEvaluateOptions): Promise<{ suites: Suite[]; tasks: Task[] }> {
  try {
    const suites = await loadSuites(options);
    const tasks = suites.flatMap((suite) => suite.tasks);
    checkGenerationTasks(tasks);
    return { suites, tasks };
  } catch (error) {
    modelLoading.then((model) => model.dispose(), () => undefined);
    throw error;
  }
}

/**
 * Which documents of each task to score, by task name (a task without an entry scores none); undefined: all.
 * Requests are still built for whole tasks first: few-shot draws depend on every earlier document.
 */
export type DocumentSelection = (tasks: readonly Task[]) => ReadonlyMap<string, ReadonlySet<number>>;

/** Loads the suites and the model and scores every document, or the selected documents when a selection is given. */
async function scoreRun(options: ResolvedEvaluateOptions, select?: DocumentSelection): Promise<ScoredRun> {
  const started = performance.now();
  const startedAtUnixSeconds = Date.now() / 1000;
  // The model's session is built on a native worker while the data is read here, so the two overlap. A data
  // problem is still the error reported (and the model, once loaded, is let go); a model problem surfaces after.
  const modelLoading = loadModel({
    model: options.model,
    config: options.config,
    tokenizer: options.tokenizer,
    maxLength: options.maxLength,
    threads: options.threads,
    provider: options.provider,
    ortLibrary: options.ortLibrary,
    rewrites: requestedRewrites(options),
    onLog: options.onLog,
    onWarning: options.onWarning,
  });
  // Handled here so a failed load is not an unhandled rejection while the data is still being read.
  modelLoading.catch(() => undefined);
  const { suites, tasks } = await loadSuitesWhile(modelLoading, options);
  const model: LanguageModel = await modelLoading;
  try {
    // Refused before any model time (and before hashing the model starts).
    checkGenerationFits(tasks, model.maxLength, model.backend);
  } catch (error) {
    model.dispose();
    throw error;
  }
  const memoryPeaks = splitMemoryPeaks();
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const warn = options.onWarning ?? options.onLog ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
  // Hashing a multi-GB model takes seconds (remembered between runs); it starts once the file is known good.
  const modelHash = modelFilesSha256(model.graphFiles, cacheDir, { onWarning: warn });
  const modelContentHash = modelContentSha256(model.graphFiles, cacheDir, { onWarning: warn });
  let scoreCache: ScoreCache | undefined;
  try {
    const requestsByTask = new Map(tasks.map((task) => [task.name, requestsForTask(task)]));
    const selected = select?.(tasks);
    let rules: EncodingRules | undefined;
    const scoringContext: ScoringContext = {
      rules: () => (rules ??= encodingRulesFor(options.lmEvalVersion, model.requireTokenizer(), () => model.prefixTokenId(), model.backend)),
      maxLength: model.maxLength,
    };
    const requests = [...requestsByTask].flatMap(([taskName, taskRequests]) =>
      scoringRequests(taskRequests, (docId) => selected === undefined || selected.get(taskName)?.has(docId) === true, scoringContext),
    );
    const describe = (index: number): string => {
      const request = requests[index];
      return request === undefined ? `request ${index}` : describeScoringRequest(request);
    };
    const label = suites.map((suite) => suite.name).join('+');
    const scoreOptions: ScoreOptions = {
      batchSize: options.batchSize,
      ...(options.memoryBudgetBytes !== undefined ? { memoryBudgetBytes: options.memoryBudgetBytes } : {}),
      ...(options.onProgress ? { onProgress: (progress) => options.onProgress?.({ ...progress, label }) } : {}),
    };
    // A token-cache hit scores at once; a miss tokenizes chunk by chunk while earlier chunks score, then stores.
    const tokenCache = openTokenCache(model, requests, {
      cacheDir,
      lmEvalVersion: options.lmEvalVersion,
      onWarning: warn,
      ...(options.onLog ? { onLog: options.onLog } : {}),
    });
    const cached = tokenCache.cached;
    // Either way, requests the score cache knows are filled in and only the rest reach the model.
    scoreCache = await openScoreCache(model, {
      cacheDir,
      maxBytes: options.scoreCacheMaxBytes ?? DEFAULT_SCORE_CACHE_MAX_BYTES,
      onWarning: warn,
      ...(options.onLog ? { onLog: options.onLog } : {}),
    });
    const scoreInputs = cachedScorer(model, scoreCache);
    // A run of generate_until tasks alone has nothing to score.
    const scored =
      requests.length === 0
        ? undefined
        : cached
          ? await scoreInputs(cached.map((request, index) => modelInputFor(request, model.maxLength, () => describe(index), model.backend)), scoreOptions, describe)
          : await tokenizeAndScore(model, requests, { ...scoreOptions, lmEvalVersion: options.lmEvalVersion }, describe, scoreInputs).then((output) => {
              tokenCache.store(output.tokenized);
              return output;
            });
    const generated = await runGenerationRoute(model, tasks, requestsByTask, (taskName, docId) => selected === undefined || selected.get(taskName)?.has(docId) === true, {
      rules: scoringContext.rules,
      batchSize: options.batchSize === 'auto' ? undefined : options.batchSize,
      onWarning: warn,
      onProgress: options.onProgress ? (progress) => options.onProgress?.({ ...progress, label: `${label} (generating)` }) : undefined,
    });
    const loglikTasks = tasks.filter((task) => task.kind !== 'generate_until');
    const outcomes = new Map([...documentOutcomes(loglikTasks, requests, scored?.results ?? [], selected), ...generated.outcomes]);
    const memory = memoryPeaks();
    const finished = performance.now();
    return {
      suites,
      requestsByTask,
      outcomes,
      model: {
        modelPath: options.model,
        modelFile: modelFilesLabel(model.graphFiles),
        modelSha256: await modelHash,
        modelContentSha256: await modelContentHash,
        tokenizerSha256: model.requireTokenizer().sha256,
        provider: model.provider,
        ortVersion: model.runtime.version,
        attentionFused: model.attentionFused,
        rewrites: model.rewrites.map((outcome) => ({ name: outcome.name, applied: outcome.applied, reason: outcome.reason })),
        cpu: cpuRunFacts(loadBinding().buildInfo().cpu),
        maxLength: model.maxLength,
        bos: { text: model.metadata.bosToken, id: model.metadata.bosTokenId },
        eos: { text: model.metadata.eosToken, id: model.metadata.eosTokenId },
        environment: environmentSummary(model.runtime.version, model.provider),
      },
      work: {
        startedAtUnixSeconds,
        startMs: started,
        endMs: finished,
        scoringSeconds: (scored?.stats.wallMs ?? 0) / 1000,
        tokensScored: scored?.stats.inputTokens ?? 0,
        requests: scored?.stats.requests ?? 0,
        forwardRows: scored?.stats.rows ?? 0,
        paddedTokens: scored?.stats.paddedTokens ?? 0,
        generation: { requests: generated.requests, generatedTokens: generated.generatedTokens, seconds: generated.seconds },
        peakRssBytes: wholeRunPeakRssBytes(memory),
        memory,
        scoreCache: scoreCache.enabled ? { ...scoreCache.counts() } : null,
      },
    };
  } finally {
    scoreCache?.close();
    model.dispose();
  }
}

/** Options are checked synchronously (TypeError / RangeError); the work itself is async. */
export function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  const resolved = parseEvaluateOptions(options);
  if (resolved.shard !== undefined) throw new TypeError('a shard has no results of its own: score it with evaluateShard() and join the shards with mergeShards()');
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
