/**
 * Scored documents → the results an evaluation returns (metrics, groups, breakdowns, run facts, samples). Both
 * evaluate() and the shard merge end here, so a merged run is built by the very code an unsharded one is.
 */
import type { Suite } from '../tasks/types.js';
import { breakdownByTag, type TagBreakdown } from '../eval/aggregate.js';
import { dataFingerprint, toolVersion } from '../io/fingerprint.js';
import type { TaskRequests } from '../eval/instance.js';
import type { LmEvalVersion } from '../eval/lm-eval-version.js';
import type { DocOutcome, TaskMetrics } from '../eval/metrics.js';
import { buildResults } from '../eval/results.js';
import type { JsonValue, LmEvalResults } from '../eval/result-types.js';
import type { MemoryPeaks } from './memory-peaks.js';
import { lmEvalRunFacts, type CpuRunFacts, type TokenFacts } from '../eval/run-facts.js';
import { taskHashes } from '../eval/sample-hashes.js';
import type { LoggedSample } from '../eval/samples.js';
import { requestsOf } from '../eval/instance.js';
import { samplesFor, taskMetricsFor } from '../eval/task-kinds.js';

export interface EvaluateResult {
  readonly results: LmEvalResults;
  /** Per-task document records, when logSamples was set. */
  readonly samples?: ReadonlyMap<string, readonly LoggedSample[]>;
}

/** What loading the model established; every shard of one run must agree on it (see shard-record.ts). */
export interface ModelFacts {
  /** The model as the user named it. */
  readonly modelPath: string;
  readonly modelFile: string;
  readonly modelSha256: string;
  /** The graph file and its external-data files together (model-digest.ts). */
  readonly modelContentSha256: string;
  readonly tokenizerSha256: string;
  /** What ran, not what was asked: 'auto' resolves to cuda or cpu. */
  readonly provider: string;
  readonly ortVersion: string;
  readonly attentionFused: boolean;
  /** Every load-time graph rewrite, in the order they ran: applied or not, and what it rewrote or why not. */
  readonly rewrites: readonly RewriteRecord[];
  /** The CPU and the kernel path the fused attention rounded as (run-facts.ts). */
  readonly cpu: CpuRunFacts;
  readonly maxLength: number;
  readonly bos: TokenFacts;
  readonly eos: TokenFacts;
  readonly environment: string;
}

/** How the scoring went: times and work counters, the facts that legitimately differ between runs. */
export interface WorkFacts {
  readonly startedAtUnixSeconds: number;
  /** Start and end on one clock (lm-eval's start_time / end_time); only their difference means anything. */
  readonly startMs: number;
  readonly endMs: number;
  readonly scoringSeconds: number;
  readonly tokensScored: number;
  readonly requests: number;
  readonly forwardRows: number;
  readonly paddedTokens: number;
  /** High-water mark of the process's resident memory, in bytes. */
  readonly peakRssBytes: number;
  /** The same, split at the end of loading (memory-peaks.ts). */
  readonly memory: MemoryPeaks;
  /** The generation route's work (generate_until requests, tokens generated, seconds); absent from older shards. */
  readonly generation?: GenerationWork;
  /** Requests answered from the score cache (hits) and scored by the model (misses); null with the cache off. */
  readonly scoreCache: { readonly hits: number; readonly misses: number } | null;
}

export interface GenerationWork {
  readonly requests: number;
  readonly generatedTokens: number;
  readonly seconds: number;
}

/** One rewrite pass's outcome, as the results file records it. */
export type RewriteRecord = { readonly name: string; readonly applied: boolean; readonly reason: string };

/** The options that shape the results file. */
export interface ResultSettings {
  readonly batchSize: number | 'auto';
  readonly limit?: number | undefined;
  /** As given (--num-fewshot); absent: each task's default, and the config's num_fewshot is null as lm-eval's. */
  readonly numFewshot?: number | undefined;
  readonly lmEvalVersion: LmEvalVersion;
  readonly logSamples: boolean;
}

/** A run's scores and facts: what evaluate() scored, what a shard writes, what a merge joins. */
export interface ScoredRun {
  readonly suites: readonly Suite[];
  /** Every request of every task, by task name (few-shot prompts are only right when built for whole tasks). */
  readonly requestsByTask: ReadonlyMap<string, TaskRequests>;
  /** The scored documents' outcomes, by task: every document for results, the shard's for a shard file. */
  readonly outcomes: ReadonlyMap<string, readonly DocOutcome[]>;
  readonly model: ModelFacts;
  readonly work: WorkFacts;
}

export interface RunResultsInput extends ScoredRun {
  readonly settings: ResultSettings;
  /** Extra `mlrb` facts (a merge says which shards it joined). */
  readonly extraMlrb?: Readonly<Record<string, JsonValue>>;
}

/** Tags that get an unweighted breakdown when the suite's tasks carry them (BLiMP). */
const BREAKDOWN_TAGS = ['field', 'linguistics_term'] as const;

export function buildRunResults(input: RunResultsInput): EvaluateResult {
  const { suites, model, work, settings } = input;
  const tasks = suites.flatMap((suite) => suite.tasks);
  const taskMetrics = new Map(tasks.map((task) => [task.name, taskMetricsFor(task, input.outcomes.get(task.name) ?? [])]));
  const samples = settings.logSamples
    ? new Map(tasks.map((task) => [task.name, samplesFor(task, requestsOf(input.requestsByTask, task.name), taskMetrics.get(task.name) as TaskMetrics)]))
    : undefined;
  const wallSeconds = (work.endMs - work.startMs) / 1000;
  const results = buildResults({
    suites,
    taskMetrics,
    run: {
      modelPath: model.modelPath,
      batchSize: settings.batchSize,
      device: model.provider,
      ...(settings.limit !== undefined ? { limit: settings.limit } : {}),
      ...(settings.numFewshot !== undefined ? { numFewshot: settings.numFewshot } : {}),
    },
    facts: lmEvalRunFacts({
      modelSource: 'mlrb-onnx',
      modelName: model.modelPath,
      startedAtUnixSeconds: work.startedAtUnixSeconds,
      startMs: work.startMs,
      endMs: work.endMs,
      environment: model.environment,
      bos: model.bos,
      eos: model.eos,
      maxLength: model.maxLength,
      taskHashes: samples ? taskHashes(samples) : {},
      lmEvalVersion: settings.lmEvalVersion,
    }),
    lmEvalVersion: settings.lmEvalVersion,
    mlrb: {
      tool_version: toolVersion(),
      model_sha256: model.modelSha256,
      model_content_sha256: model.modelContentSha256,
      data_fingerprint: dataFingerprint(tasks.flatMap((task) => task.sourceFiles)),
      provider: model.provider,
      ort_version: model.ortVersion,
      // Whether attention ran as the fused CPU kernel (the default on the CPU, for graphs it applies to).
      attention_fused: model.attentionFused,
      cpu: model.cpu,
      rewrites: model.rewrites.map((outcome) => ({ ...outcome })),
      wall_time_s: wallSeconds,
      scoring_time_s: work.scoringSeconds,
      tokens_scored: work.tokensScored,
      // A run of generate_until tasks alone scores nothing, and 0/0 is no rate.
      tokens_per_s: work.scoringSeconds > 0 ? work.tokensScored / work.scoringSeconds : 0,
      requests: work.requests,
      score_cache: work.scoreCache === null ? null : { ...work.scoreCache },
      ...(work.generation !== undefined && work.generation.requests > 0
        ? { generation: { requests: work.generation.requests, generated_tokens: work.generation.generatedTokens, generation_time_s: work.generation.seconds } }
        : {}),
      forward_rows: work.forwardRows,
      padded_tokens: work.paddedTokens,
      max_length: model.maxLength,
      peak_rss_bytes: work.peakRssBytes,
      memory: { ...work.memory },
      model_file: model.modelFile,
      // The lm-eval rules the ids and the file follow (--lm-eval-version); lm_eval_version names the release.
      lm_eval_rules: settings.lmEvalVersion,
      breakdowns: breakdowns(suites, taskMetrics),
      ...input.extraMlrb,
    },
  });
  return samples ? { results, samples } : { results };
}

function breakdowns(suites: readonly Suite[], taskMetrics: ReadonlyMap<string, TaskMetrics>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  const tasks = suites.flatMap((suite) => suite.tasks);
  for (const tag of BREAKDOWN_TAGS) {
    const rows: TagBreakdown[] = breakdownByTag(tasks, taskMetrics, tag);
    if (rows.length === 0) continue;
    out[tag] = Object.fromEntries(
      rows.map((row) => [
        row.tagValue,
        {
          n: row.n,
          tasks: row.tasks.length,
          ...Object.fromEntries(
            row.metrics.flatMap((m) => [
              [`${m.metric},none`, m.value],
              [`${m.metric}_stderr,none`, m.stderr],
            ]),
          ),
        },
      ]),
    );
  }
  return out;
}
