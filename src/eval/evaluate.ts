/**
 * evaluate(): suites in, lm-eval-compatible results out. Every request of every task goes to the model at
 * once (as lm-eval's evaluator does), so batching and row sharing work across tasks.
 */
import path from 'node:path';
import { parseEvaluateOptions, type EvaluateOptions, type ResolvedEvaluateOptions } from '../config/evaluate-options.js';
import { loadModel, type LanguageModel } from '../model/onnx-model.js';
import { loadSuite } from '../tasks/registry.js';
import { applySelection, resolveTaskNames, type SuiteSelection } from '../tasks/task-names.js';
import type { Suite } from '../tasks/types.js';
import { breakdownByTag, type TagBreakdown } from './aggregate.js';
import { dataFingerprint, sha256File, toolVersion } from './fingerprint.js';
import type { LoglikelihoodRequest } from './instance.js';
import { computeTaskMetrics, type DocOutcome, type TaskMetrics } from './metrics.js';
import { buildResults, type JsonValue, type LmEvalResults } from './results.js';
import { environmentSummary, lmEvalRunFacts } from './run-facts.js';
import { taskHashes } from './sample-hashes.js';
import { buildTaskSamples, type LoggedSample } from './samples.js';
import { defaultCacheDir } from '../cache/token-cache.js';
import { openTokenCache } from '../cache/cached-tokenize.js';
import { tokenizeAndScore } from './pipelined-scoring.js';
import { modelInputFor } from './request-encoding.js';
import { scoreModelInputs, type ScoreOptions } from './score-requests.js';
import { buildTaskRequests } from './task-requests.js';
import { peakRssBytes } from '../io/peak-rss.js';

export interface EvaluateResult {
  readonly results: LmEvalResults;
  /** Per-task document records, when logSamples was set. */
  readonly samples?: ReadonlyMap<string, readonly LoggedSample[]>;
}

/** Tags that get an unweighted breakdown when the suite's tasks carry them (BLiMP). */
const BREAKDOWN_TAGS = ['field', 'linguistics_term'] as const;

/**
 * `--suite a,b` / `--tasks a,b`: lm-eval's task, group and tag names (src/tasks/task-names.ts), each suite loaded
 * once with the same data folder, limit and few-shot count (a suite whose lm-eval config pins num_fewshot to 0
 * ignores it, as lm-eval does). A task may appear once: `superglue,boolq` is refused.
 */
async function loadSuites(options: ResolvedEvaluateOptions): Promise<Suite[]> {
  const selections = resolveTaskNames(options.suite);
  const common = {
    dataDir: options.dataDir,
    numFewshot: options.numFewshot,
    allowPartial: options.allowPartial,
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
  };
  const suites = await Promise.all(selections.map(async (selection) => applySelection(await loadSelection(selection, common), selection)));
  const owners = new Map<string, string>();
  for (const suite of suites) {
    for (const task of suite.tasks) {
      const owner = owners.get(task.name);
      if (owner !== undefined) throw new RangeError(`task ${task.name} is in both --suite ${owner} and ${suite.name}; name it once`);
      owners.set(task.name, suite.name);
    }
  }
  return suites;
}

type CommonLoadOptions = { readonly dataDir: string; readonly numFewshot: number; readonly allowPartial: boolean; readonly limit?: number };

function loadSelection(selection: SuiteSelection, common: CommonLoadOptions): Promise<Suite> {
  if (selection.suite === 'mmlu') return loadSuite('mmlu', { ...common, ...(selection.subjects ? { subjects: selection.subjects } : {}) });
  if (selection.suite === 'blimp') return loadSuite('blimp', { ...common, ...(selection.paradigms ? { paradigms: selection.paradigms } : {}) });
  return loadSuite(selection.suite, common);
}

function outcomesByTask(requests: readonly LoglikelihoodRequest[], logliks: readonly number[], greedy: readonly boolean[]): Map<string, DocOutcome[]> {
  const byTask = new Map<string, Map<number, { logliks: number[]; isGreedy: boolean[] }>>();
  requests.forEach((request, index) => {
    const docs = byTask.get(request.taskName) ?? new Map<number, { logliks: number[]; isGreedy: boolean[] }>();
    byTask.set(request.taskName, docs);
    const doc = docs.get(request.docId) ?? { logliks: [], isGreedy: [] };
    docs.set(request.docId, doc);
    doc.logliks[request.choiceIndex] = logliks[index] as number;
    doc.isGreedy[request.choiceIndex] = greedy[index] as boolean;
  });
  return new Map([...byTask].map(([task, docs]) => [task, [...docs].map(([docId, doc]) => ({ docId, ...doc }))]));
}

function breakdowns(suites: readonly Suite[], taskMetrics: ReadonlyMap<string, TaskMetrics>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  const tasks = suites.flatMap((suite) => suite.tasks);
  for (const tag of BREAKDOWN_TAGS) {
    const rows: TagBreakdown[] = breakdownByTag(tasks, taskMetrics, tag);
    if (rows.length === 0) continue;
    out[tag] = Object.fromEntries(
      rows.map((row) => [row.tagValue, { n: row.n, tasks: row.tasks.length, ...Object.fromEntries(row.metrics.flatMap((m) => [[`${m.metric},none`, m.value], [`${m.metric}_stderr,none`, m.stderr]])) }]),
    );
  }
  return out;
}

async function run(options: ResolvedEvaluateOptions): Promise<EvaluateResult> {
  const started = performance.now();
  const startedAtUnixSeconds = Date.now() / 1000;
  const suites = await loadSuites(options);
  const model: LanguageModel = await loadModel({
    model: options.model,
    config: options.config,
    tokenizer: options.tokenizer,
    maxLength: options.maxLength,
    threads: options.threads,
    provider: options.provider,
    ortLibrary: options.ortLibrary,
    cpuFusion: options.cpuFusion,
    onLog: options.onLog,
    onWarning: options.onWarning,
  });
  // Hashing a multi-GB model takes seconds; it runs alongside scoring, started once the file is known good.
  const modelHash = sha256File(model.modelPath);
  try {
    const tasks = suites.flatMap((suite) => suite.tasks);
    const requestsByTask = new Map(tasks.map((task) => [task.name, buildTaskRequests(task)]));
    const requests = [...requestsByTask.values()].flat();
    const describe = (index: number): string => {
      const request = requests[index];
      return request ? `${request.taskName} doc ${request.docId} choice ${request.choiceIndex}` : `request ${index}`;
    };
    const label = suites.map((suite) => suite.name).join('+');
    const scoreOptions: ScoreOptions = {
      batchSize: options.batchSize,
      ...(options.memoryBudgetBytes !== undefined ? { memoryBudgetBytes: options.memoryBudgetBytes } : {}),
      ...(options.onProgress ? { onProgress: (progress) => options.onProgress?.({ ...progress, label }) } : {}),
    };
    // A cache hit scores at once; a miss tokenizes chunk by chunk while earlier chunks score, then stores.
    const tokenCache = openTokenCache(model, requests, { cacheDir: options.cacheDir ?? defaultCacheDir(), ...(options.onLog ? { onLog: options.onLog } : {}) });
    const cached = tokenCache.cached;
    const { results, stats } = cached
      ? await scoreModelInputs(model, cached.map((request, index) => modelInputFor(request, model.maxLength, () => describe(index))), scoreOptions, describe)
      : await tokenizeAndScore(model, requests, scoreOptions, describe).then((output) => {
          tokenCache.store(output.tokenized);
          return output;
        });
    const outcomes = outcomesByTask(requests, results.map((result) => result.loglik), results.map((result) => result.isGreedy));
    const taskMetrics = new Map(tasks.map((task) => [task.name, computeTaskMetrics(task, outcomes.get(task.name) ?? [])]));
    const samples = options.logSamples
      ? new Map(tasks.map((task) => [task.name, buildTaskSamples(task, requestsByTask.get(task.name) ?? [], taskMetrics.get(task.name) as TaskMetrics)]))
      : undefined;
    const finished = performance.now();
    const wallSeconds = (finished - started) / 1000;
    const lmEvalResults = buildResults({
      suites,
      taskMetrics,
      run: {
        modelPath: options.model,
        batchSize: options.batchSize,
        device: model.provider,
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
        numFewshot: options.numFewshot,
      },
      facts: lmEvalRunFacts({
        modelSource: 'mlrb-onnx',
        modelName: options.model,
        startedAtUnixSeconds,
        startMs: started,
        endMs: finished,
        environment: environmentSummary(model.runtime.version, model.provider),
        bos: { text: model.metadata.bosToken, id: model.metadata.bosTokenId },
        eos: { text: model.metadata.eosToken, id: model.metadata.eosTokenId },
        maxLength: model.maxLength,
        taskHashes: samples ? taskHashes(samples) : {},
      }),
      mlrb: {
        tool_version: toolVersion(),
        model_sha256: await modelHash,
        data_fingerprint: dataFingerprint(tasks.flatMap((task) => task.sourceFiles)),
        // What ran, not what was asked: 'auto' resolves to cuda or cpu.
        provider: model.provider,
        ort_version: model.runtime.version,
        // Whether attention ran as the fused CPU kernel (the default on the CPU, for graphs it applies to).
        attention_fused: model.attentionFused,
        wall_time_s: wallSeconds,
        scoring_time_s: stats.wallMs / 1000,
        tokens_scored: stats.inputTokens,
        tokens_per_s: stats.inputTokens / (stats.wallMs / 1000),
        requests: stats.requests,
        forward_rows: stats.rows,
        padded_tokens: stats.paddedTokens,
        max_length: model.maxLength,
        // High-water mark of this process's resident memory (the whole run so far), in bytes.
        peak_rss_bytes: peakRssBytes(),
        model_file: path.basename(model.modelPath),
        breakdowns: breakdowns(suites, taskMetrics),
      },
    });
    return samples ? { results: lmEvalResults, samples } : { results: lmEvalResults };
  } finally {
    model.dispose();
  }
}

/** Options are checked synchronously (TypeError / RangeError); the work itself is async. */
export function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  return run(parseEvaluateOptions(options));
}
