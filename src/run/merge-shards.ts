/**
 * mergeShards(): the shard files of one run → the results the unsharded run would have written. The data is
 * read again (not the model): the tasks, their few-shot prompts and the group tree come from the same loaders,
 * and the metrics from the same code, as in evaluate(); the shards contribute only their documents'
 * log-likelihoods. Shards that disagree on any identity fact (model, tokenizer, data, options, tool version),
 * repeat an index, lack one, or hold other documents than their index gets are refused with BAD_SHARD, naming
 * the file and the field.
 *
 * The merged results differ from an unsharded run's only in facts of the processes: date, start_time, end_time
 * and total_evaluation_time_seconds (the earliest start to the latest end over the shards), mlrb.wall_time_s
 * likewise; mlrb.scoring_time_s, tokens_scored, forward_rows and padded_tokens summed over the shards (rows shared
 * between documents are shared within a shard only); tokens_per_s from those sums; peak_rss_bytes, the largest
 * shard's, and memory's split peaks likewise; score_cache's hits and misses summed (null unless every shard had the
 * cache on); pretty_env_info, the model path, the CPU and the rewrite outcomes, the lowest shard's; and mlrb.shards,
 * which only a merge writes.
 */
import { MlrbError } from '../errors.js';
import type { Suite, Task } from '../tasks/types.js';
import { dataFingerprint, toolVersion } from '../io/fingerprint.js';
import { loadSuites } from './load-suites.js';
import type { DocOutcome } from '../eval/metrics.js';
import { buildRunResults, type EvaluateResult, type ModelFacts, type WorkFacts } from './run-results.js';
import type { TaskRequests } from '../eval/instance.js';
import { readShardRecord, requestsDigest, shardOutcomes, type ShardIdentity, type ShardRecord } from './shard-record.js';
import { requestsOf } from '../eval/instance.js';
import { shardDocuments } from './shard.js';
import { keepDocuments, outcomeShapeProblem, requestsForTask } from '../eval/task-kinds.js';

export interface MergeShardsOptions {
  /** The data folder, when it is not where the shards read it (their `run.data_dir`). */
  readonly dataDir?: string;
  /**
   * Join whichever shards are given instead of refusing a set that lacks some: the results then cover only
   * their documents, and `mlrb.shards.missing` lists the absent indices.
   */
  readonly allowPartial?: boolean;
  /** Keep per-document records, as evaluate()'s logSamples. */
  readonly logSamples?: boolean;
}

export interface MergedResult extends EvaluateResult {
  readonly shardCount: number;
  /** Indices of the shards that were not given (only with allowPartial). */
  readonly missingShards: readonly number[];
}

/** A shard record and the file it came from (for messages). */
export interface ShardFile {
  readonly file: string;
  readonly record: ShardRecord;
}

export async function mergeShardFiles(files: readonly string[], options: MergeShardsOptions = {}): Promise<MergedResult> {
  return mergeShards(
    files.map((file) => ({ file, record: readShardRecord(file) })),
    options,
  );
}

export async function mergeShards(shards: readonly ShardFile[], options: MergeShardsOptions = {}): Promise<MergedResult> {
  const ordered = checkShardSet(shards, options.allowPartial === true);
  const reference = ordered[0] as ShardFile;
  const { identity } = reference.record;
  const count = reference.record.shard.count;
  const dataDir = options.dataDir ?? reference.record.run.data_dir;
  const suites = await loadSuites({
    suite: identity.tasks,
    dataDir,
    numFewshot: identity.num_fewshot ?? undefined,
    allowPartial: identity.allow_partial,
    limit: identity.limit ?? undefined,
  });
  const tasks = suites.flatMap((suite) => suite.tasks);
  const fingerprint = dataFingerprint(tasks.flatMap((task) => task.sourceFiles));
  if (fingerprint !== identity.data_fingerprint) {
    throw shardError(
      reference.file,
      'identity.data_fingerprint',
      `the data in ${dataDir} is not the data the shards scored (its fingerprint is ${fingerprint})`,
    );
  }
  // Built for whole tasks, as every shard built them: few-shot draws depend on every earlier document.
  const requestsByTask = new Map(tasks.map((task) => [task.name, requestsForTask(task)]));
  const outcomes = joinOutcomes(ordered, tasks, requestsByTask);
  const present = new Set(ordered.map((shard) => shard.record.shard.index));
  const missing = range(count).filter((index) => !present.has(index));
  const scoredSuites = missing.length === 0 ? suites : suites.map((suite) => restrictToScored(suite, outcomes, missing));
  const merged = buildRunResults({
    suites: scoredSuites,
    requestsByTask,
    outcomes,
    model: modelFacts(reference.record),
    work: mergedWork(ordered.map((shard) => shard.record)),
    settings: {
      batchSize: identity.batch_size,
      limit: identity.limit ?? undefined,
      numFewshot: identity.num_fewshot ?? undefined,
      lmEvalVersion: identity.lm_eval_rules,
      logSamples: options.logSamples === true,
    },
    extraMlrb: { shards: { count, missing } },
  });
  return { ...merged, shardCount: count, missingShards: missing };
}

/** Same run, same count, no index twice, none missing (unless allowed); returns the shards by index. */
function checkShardSet(shards: readonly ShardFile[], allowPartial: boolean): ShardFile[] {
  if (shards.length === 0) throw new MlrbError('BAD_SHARD', 'no shard files to merge', {});
  const ordered = [...shards].sort((a, b) => a.record.shard.index - b.record.shard.index);
  const reference = ordered[0] as ShardFile;
  const { count } = reference.record.shard;
  const byIndex = new Map<number, string>();
  for (const { file, record } of ordered) {
    if (record.shard.count !== count) throw mismatch(file, 'shard.count', record.shard.count, reference.file, count);
    if (record.shard.index >= count) throw shardError(file, 'shard.index', `shard index ${record.shard.index} is not below the shard count ${count}`);
    const other = byIndex.get(record.shard.index);
    if (other !== undefined) throw shardError(file, 'shard.index', `shard ${record.shard.index}/${count} is given twice (also ${other})`);
    byIndex.set(record.shard.index, file);
    for (const field of Object.keys(record.identity) as (keyof ShardIdentity)[]) {
      const value = record.identity[field];
      const expected = reference.record.identity[field];
      if (JSON.stringify(value) !== JSON.stringify(expected)) throw mismatch(file, `identity.${field}`, value, reference.file, expected);
    }
  }
  const ours = toolVersion();
  if (reference.record.identity.tool_version !== ours) {
    throw shardError(
      reference.file,
      'identity.tool_version',
      `the shards were scored by mlrb-eval ${reference.record.identity.tool_version}; this is ${ours}, whose results could differ`,
    );
  }
  const missing = range(count).filter((index) => !byIndex.has(index));
  if (missing.length > 0 && !allowPartial) {
    throw new MlrbError(
      'BAD_SHARD',
      `shards ${missing.map((index) => `${index}/${count}`).join(', ')} are missing (${byIndex.size} of ${count} given); --allow-partial merges what is there and says what is missing`,
      { field: 'shard.index', missing },
    );
  }
  return ordered;
}

/**
 * Every shard must hold exactly the documents its index gets, each with one result per choice (or its generated
 * text), scored from the
 * very requests this merge builds from the data.
 */
function joinOutcomes(shards: readonly ShardFile[], tasks: readonly Task[], requestsByTask: ReadonlyMap<string, TaskRequests>): Map<string, DocOutcome[]> {
  const byTask = new Map<string, Map<number, DocOutcome>>(tasks.map((task) => [task.name, new Map()]));
  for (const { file, record } of shards) {
    const expected = shardDocuments(tasks, record.shard);
    const outcomes = shardOutcomes(record);
    for (const name of outcomes.keys()) {
      if (!expected.has(name)) throw shardError(file, `documents.${name}`, `task ${name} is not among the tasks of ${record.identity.tasks}`);
    }
    for (const task of tasks) {
      const wanted = expected.get(task.name) ?? new Set<number>();
      const given = outcomes.get(task.name) ?? [];
      const seen = new Set<number>();
      for (const outcome of given) {
        const where = `documents.${task.name}`;
        if (!wanted.has(outcome.docId))
          throw shardError(file, where, `document ${outcome.docId} does not belong to shard ${record.shard.index}/${record.shard.count}`);
        if (seen.has(outcome.docId)) throw shardError(file, where, `document ${outcome.docId} appears twice`);
        const problem = outcomeShapeProblem(task, outcome);
        if (problem !== undefined) throw shardError(file, where, problem);
        seen.add(outcome.docId);
        byTask.get(task.name)?.set(outcome.docId, outcome);
      }
      if (seen.size !== wanted.size)
        throw shardError(file, `documents.${task.name}`, `${wanted.size - seen.size} of the shard's ${wanted.size} documents are missing`);
      const digest = requestsDigest(requestsOf(requestsByTask, task.name), wanted);
      if (digest !== record.documents[task.name]?.requests_sha256) {
        throw shardError(
          file,
          `documents.${task.name}.requests_sha256`,
          `the shard scored other prompts for ${task.name} than the ones its documents get in the whole run`,
        );
      }
    }
  }
  // Document order within each task, as evaluate() scores them.
  return new Map(tasks.map((task) => [task.name, task.docs.flatMap((doc) => byTask.get(task.name)?.get(doc.docId) ?? [])]));
}

/** With shards missing, each task keeps the documents that were scored (n-samples then says how many). */
function restrictToScored(suite: Suite, outcomes: ReadonlyMap<string, readonly DocOutcome[]>, missing: readonly number[]): Suite {
  return {
    ...suite,
    tasks: suite.tasks.map((task) => {
      const scored = new Set((outcomes.get(task.name) ?? []).map((outcome) => outcome.docId));
      if (scored.size === 0) {
        throw new MlrbError('BAD_SHARD', `task ${task.name} has no scored documents without shards ${missing.join(', ')}; give more shards`, {
          task: task.name,
          missing,
        });
      }
      return keepDocuments(task, (docId) => scored.has(docId));
    }),
  };
}

function modelFacts(record: ShardRecord): ModelFacts {
  const { identity, run } = record;
  return {
    modelPath: run.model_path,
    modelFile: run.model_file,
    modelSha256: identity.model_sha256,
    modelContentSha256: identity.model_content_sha256,
    tokenizerSha256: identity.tokenizer_sha256,
    provider: identity.provider,
    ortVersion: identity.ort_version,
    attentionFused: identity.attention_fused,
    rewrites: run.rewrites,
    cpu: run.cpu,
    maxLength: identity.max_length,
    bos: identity.bos,
    eos: identity.eos,
    environment: run.environment,
  };
}

/** The shards as one run: from the earliest start to the latest end, work summed, the largest memory peak. */
function mergedWork(records: readonly ShardRecord[]): WorkFacts {
  const runs = records.map((record) => record.run);
  const start = Math.min(...runs.map((run) => run.started_at_unix_s));
  const end = Math.max(...runs.map((run) => run.started_at_unix_s + run.wall_time_s));
  const total = (field: 'scoring_time_s' | 'tokens_scored' | 'requests' | 'forward_rows' | 'padded_tokens'): number =>
    runs.reduce((sum, run) => sum + run[field], 0);
  return {
    startedAtUnixSeconds: start,
    startMs: start * 1000,
    endMs: end * 1000,
    scoringSeconds: total('scoring_time_s'),
    tokensScored: total('tokens_scored'),
    requests: total('requests'),
    forwardRows: total('forward_rows'),
    paddedTokens: total('padded_tokens'),
    peakRssBytes: Math.max(...runs.map((run) => run.peak_rss_bytes)),
    memory: {
      load_peak_rss_bytes: largestOrNull(runs.map((run) => run.memory.load_peak_rss_bytes)),
      scoring_peak_rss_bytes: largestOrNull(runs.map((run) => run.memory.scoring_peak_rss_bytes)),
    },
    generation: {
      requests: runs.reduce((sum, run) => sum + (run.generation?.requests ?? 0), 0),
      generatedTokens: runs.reduce((sum, run) => sum + (run.generation?.generated_tokens ?? 0), 0),
      seconds: runs.reduce((sum, run) => sum + (run.generation?.generation_time_s ?? 0), 0),
    },
    // Counted only when every shard had the cache on.
    scoreCache: runs.every((run) => run.score_cache !== null)
      ? { hits: runs.reduce((sum, run) => sum + (run.score_cache?.hits ?? 0), 0), misses: runs.reduce((sum, run) => sum + (run.score_cache?.misses ?? 0), 0) }
      : null,
  };
}

/** The largest of the shards' figures; null when any shard could not measure it. */
function largestOrNull(values: readonly (number | null)[]): number | null {
  return values.some((value) => value === null) ? null : Math.max(...(values as number[]));
}

function mismatch(file: string, field: string, value: unknown, referenceFile: string, expected: unknown): MlrbError {
  return shardError(
    file,
    field,
    `${field} is ${JSON.stringify(value)} but ${referenceFile} has ${JSON.stringify(expected)}; shards of different runs cannot be merged`,
  );
}

function shardError(file: string, field: string, reason: string): MlrbError {
  return new MlrbError('BAD_SHARD', `${file}: ${reason}`, { file, field });
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}
