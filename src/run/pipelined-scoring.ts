/**
 * Tokenization overlapped with scoring. Requests are split at task boundaries into chunks; while the
 * native worker runs chunk k's forward passes, the JS thread tokenizes chunk k+1 in short slices, yielding
 * between slices so finished passes are collected and the next ones launched without delay. Rows are
 * shared only between requests of one document, and few-shot prefixes only within one task, so chunking
 * at task boundaries loses no sharing.
 */
import type { LanguageModel } from '../model/onnx-model.js';
import type { ScoringRequest } from '../eval/instance.js';
import type { LoglikelihoodResult, TokenizedRequest } from '../engine/model-input.js';
import { modelScorer, type InputScorer } from '../engine/scorer.js';
import { modelInputFor } from '../engine/model-input.js';
import type { ScoreStats } from '../engine/score-requests.js';
import { tokenizeRequests, type TextScoreOptions } from '../eval/text-requests.js';
import type { LmEvalVersion } from '../eval/lm-eval-version.js';

/** Requests per chunk, at least; a chunk always ends at a task boundary. */
export const DEFAULT_CHUNK_REQUESTS = 4096;
// Requests tokenized between two yields: a few milliseconds of work.
const TOKENIZE_SLICE = 64;

export interface PipelinedOutput {
  readonly results: LoglikelihoodResult[];
  readonly stats: ScoreStats;
  readonly tokenized: TokenizedRequest[];
}

function chunkAtTaskBoundaries(requests: readonly ScoringRequest[], minimum: number): [number, number][] {
  const chunks: [number, number][] = [];
  let start = 0;
  for (let index = 1; index <= requests.length; index += 1) {
    const boundary = index === requests.length || requests[index]?.taskName !== requests[index - 1]?.taskName;
    if (boundary && (index - start >= minimum || index === requests.length)) {
      chunks.push([start, index]);
      start = index;
    }
  }
  return chunks;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function tokenizeCooperatively(
  model: LanguageModel,
  requests: readonly ScoringRequest[],
  lmEvalVersion: LmEvalVersion | undefined,
): Promise<TokenizedRequest[]> {
  const tokenized: TokenizedRequest[] = [];
  for (let start = 0; start < requests.length; start += TOKENIZE_SLICE) {
    tokenized.push(...tokenizeRequests(model, requests.slice(start, start + TOKENIZE_SLICE), lmEvalVersion));
    await yieldToEventLoop();
  }
  return tokenized;
}

function addStats(total: ScoreStats | undefined, next: ScoreStats): ScoreStats {
  if (!total) return next;
  return {
    requests: total.requests + next.requests,
    requestsFromCache: (total.requestsFromCache ?? 0) + (next.requestsFromCache ?? 0),
    rows: total.rows + next.rows,
    batches: total.batches + next.batches,
    inputTokens: total.inputTokens + next.inputTokens,
    paddedTokens: total.paddedTokens + next.paddedTokens,
    logitRows: total.logitRows + next.logitRows,
    prefixGroups: total.prefixGroups + next.prefixGroups,
    reusedPrefixTokens: total.reusedPrefixTokens + next.reusedPrefixTokens,
    wallMs: total.wallMs + next.wallMs,
  };
}

/**
 * Requests (text pairs and token windows) in, results in request order out; `describe` names a request (by global index) in errors.
 * Progress counts requests across all chunks; token totals grow as chunks are tokenized. Each chunk goes
 * through `scoreInputs` (the score cache's, in evaluate()).
 */
export async function tokenizeAndScore(
  model: LanguageModel,
  requests: readonly ScoringRequest[],
  options: TextScoreOptions & { readonly chunkRequests?: number },
  describe: (index: number) => string,
  scoreInputs: InputScorer = modelScorer(model),
): Promise<PipelinedOutput> {
  const started = performance.now();
  const chunks = chunkAtTaskBoundaries(requests, options.chunkRequests ?? DEFAULT_CHUNK_REQUESTS);
  const results: LoglikelihoodResult[] = [];
  const tokenized: TokenizedRequest[] = [];
  let stats: ScoreStats | undefined;
  let pending: Promise<TokenizedRequest[]> = tokenizeCooperatively(model, requests.slice(...(chunks[0] ?? [0, 0])), options.lmEvalVersion);
  let tokensBefore = 0;
  let fromCacheBefore = 0;
  for (const [chunkIndex, [start]] of chunks.entries()) {
    const chunkTokens = await pending;
    tokenized.push(...chunkTokens);
    const inputs = chunkTokens.map((request, offset) => modelInputFor(request, model.maxLength, () => describe(start + offset), model.backend));
    const scoring = scoreInputs(
      inputs,
      {
        ...options,
        onProgress: (progress) =>
          options.onProgress?.({
            ...progress,
            requestsDone: start + progress.requestsDone,
            requestsTotal: requests.length,
            tokensDone: tokensBefore + progress.tokensDone,
            tokensTotal: tokensBefore + progress.tokensTotal,
            tokensTotalFinal: chunkIndex === chunks.length - 1,
            requestsTokenized: start + progress.requestsTotal,
            requestsFromCache: fromCacheBefore + (progress.requestsFromCache ?? 0),
            elapsedMs: performance.now() - started,
          }),
      },
      (offset) => describe(start + offset),
    );
    const next = chunks[chunkIndex + 1];
    pending = next ? tokenizeCooperatively(model, requests.slice(...next), options.lmEvalVersion) : Promise.resolve([]);
    // If scoring fails first, the tokenization still settles; its own failure must not go unhandled.
    pending.catch(() => undefined);
    const output = await scoring;
    results.push(...output.results);
    stats = addStats(stats, output.stats);
    tokensBefore += output.stats.inputTokens;
    fromCacheBefore += output.stats.requestsFromCache ?? 0;
  }
  return { results, tokenized, stats: { ...(stats ?? emptyStats()), wallMs: performance.now() - started } };
}

function emptyStats(): ScoreStats {
  return { requests: 0, rows: 0, batches: 0, inputTokens: 0, paddedTokens: 0, logitRows: 0, prefixGroups: 0, reusedPrefixTokens: 0, wallMs: 0 };
}
