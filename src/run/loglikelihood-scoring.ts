/**
 * A run's log-likelihood requests through both caches and the engine. A token-cache hit scores at once; a miss
 * tokenizes chunk by chunk while earlier chunks score (pipelined-scoring.ts), then stores the tokens. Either way
 * the scorer is the engine's wrapped in the score cache, so requests the cache knows are filled in and only the
 * rest reach the model.
 */
import { cachedScorer } from '../cache/cached-scoring.js';
import { openTokenCache } from '../cache/cached-tokenize.js';
import { DEFAULT_SCORE_CACHE_MAX_BYTES, openScoreCache, type ScoreCacheCounts } from '../cache/score-cache.js';
import { modelInputFor } from '../engine/model-input.js';
import type { ScoreOptions, ScoreOutput } from '../engine/score-requests.js';
import { modelScorer } from '../engine/scorer.js';
import type { ScoringRequest } from '../eval/instance.js';
import type { LanguageModel } from '../model/onnx-model.js';
import type { ResolvedEvaluateOptions } from './evaluate-options.js';
import { tokenizeAndScore } from './pipelined-scoring.js';

export interface LoglikelihoodScoring {
  /** Undefined when there was nothing to score (a run of generate_until tasks alone). */
  readonly scored: ScoreOutput | undefined;
  /** Hits and misses of the score cache; null with the cache off. */
  readonly scoreCache: ScoreCacheCounts | null;
}

export interface LoglikelihoodScoringSettings {
  readonly options: ResolvedEvaluateOptions;
  /** The cache folder, or false for none. */
  readonly cacheDir: string | false;
  /** What progress lines call the run (the suites' names). */
  readonly label: string;
  readonly warn: (message: string) => void;
  /** Names a request by its index, in errors. */
  readonly describe: (index: number) => string;
}

export async function scoreLoglikelihoods(
  model: LanguageModel,
  requests: readonly ScoringRequest[],
  { options, cacheDir, label, warn, describe }: LoglikelihoodScoringSettings,
): Promise<LoglikelihoodScoring> {
  const scoreOptions: ScoreOptions = {
    batchSize: options.batchSize,
    ...(options.memoryBudgetBytes !== undefined ? { memoryBudgetBytes: options.memoryBudgetBytes } : {}),
    ...(options.onProgress ? { onProgress: (progress) => options.onProgress?.({ ...progress, label }) } : {}),
  };
  const logging = options.onLog ? { onLog: options.onLog } : {};
  const tokenCache = openTokenCache(model, requests, { cacheDir, lmEvalVersion: options.lmEvalVersion, onWarning: warn, ...logging });
  const scoreCache = await openScoreCache(model, {
    cacheDir,
    maxBytes: options.scoreCacheMaxBytes ?? DEFAULT_SCORE_CACHE_MAX_BYTES,
    onWarning: warn,
    ...logging,
  });
  try {
    const scoreInputs = cachedScorer(modelScorer(model), scoreCache);
    const cached = tokenCache.cached;
    const scored =
      requests.length === 0
        ? undefined
        : cached
          ? await scoreInputs(
              cached.map((request, index) => modelInputFor(request, model.maxLength, () => describe(index), model.backend)),
              scoreOptions,
              describe,
            )
          : await tokenizeAndScore(model, requests, { ...scoreOptions, lmEvalVersion: options.lmEvalVersion }, describe, scoreInputs).then((output) => {
              tokenCache.store(output.tokenized);
              return output;
            });
    return { scored, scoreCache: scoreCache.enabled ? { ...scoreCache.counts() } : null };
  } finally {
    scoreCache.close();
  }
}
