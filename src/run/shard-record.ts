/**
 * What one shard writes (`--shard I/N --output FILE`) and the merge reads back: every scored document's
 * log-likelihoods and greedy flags (the metrics, their standard errors and the group scores are recomputed from
 * them by the code an unsharded run uses), the facts that say which run the shard belongs to (`identity`: all
 * shards of one run must agree on every field), and the facts of this process (`run`: paths, host, times).
 *
 * Each task also carries a digest of the shard's requests (every prompt and continuation, in order), which the
 * merge recomputes from the data: a shard whose prompts differ from the unsharded run's (few-shot draws depend on
 * every earlier document of the task) is refused instead of merged.
 *
 * Log-likelihoods round-trip exactly: JSON writes a double's shortest decimal form, which parses back to the same
 * double; -Infinity (log 0: the CPU scorer gives it for a target whose logit is -inf) is written as the string
 * "-Infinity". A shard may come from untrusted hands, so only log-probabilities are read back: a number ≤ 0 or
 * "-Infinity". NaN, +Infinity and positive values (which the scorer never gives: it fails with NUMERIC first)
 * are refused as BAD_SHARD naming the field; argmax over NaN would otherwise count every document as correct.
 * What a merge can and cannot prove beyond that: src/eval/verify-shards.ts.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import type { ResolvedEvaluateOptions } from './evaluate-options.js';
import { MlrbError } from '../errors.js';
import { readJsonFileUnder } from '../io/text-file.js';
import { dataFingerprint, toolVersion } from '../io/fingerprint.js';
import { LM_EVAL_VERSIONS } from '../eval/lm-eval-version.js';
import { requestsOf, type TaskRequests } from '../eval/instance.js';
import { requestIdentities } from '../eval/task-kinds.js';
import type { DocOutcome } from '../eval/metrics.js';
import type { ScoredRun } from './run-results.js';
import type { ShardSpec } from './shard.js';

export const SHARD_FORMAT = 'mlrb-eval-shard';
export const SHARD_FORMAT_VERSION = 1;

const count = z.number().int().nonnegative();
const tokenSchema = z.strictObject({ text: z.string().nullable(), id: z.number().int().nullable() });
// A literal, not z.enum: an enum's declaration would key its values by name, and TypeScript emits the key
// '-Infinity' as a computed property a consumer's compiler rejects (TS1170).
const NOT_A_LOG_PROBABILITY = 'a log-likelihood is a number ≤ 0 or "-Infinity" (NaN, Infinity and positive values are no log-probabilities)';
const loglikSchema = z.union([z.number({ error: NOT_A_LOG_PROBABILITY }).max(0, { error: NOT_A_LOG_PROBABILITY }), z.literal('-Infinity')], {
  error: NOT_A_LOG_PROBABILITY,
});

/** Everything that decides the scores or the results file's content; it must be equal in every shard. */
const identitySchema = z.strictObject({
  tool_version: z.string(),
  lm_eval_rules: z.enum(LM_EVAL_VERSIONS),
  model_sha256: z.string(),
  model_content_sha256: z.string(),
  tokenizer_sha256: z.string(),
  data_fingerprint: z.string(),
  /** The --tasks names, as given. */
  tasks: z.string(),
  /** null: not given, each task took its own default. */
  num_fewshot: count.nullable(),
  limit: z.number().positive().nullable(),
  /** The data folder's --allow-partial (a suite lacking subtasks), not the merge's. */
  allow_partial: z.boolean(),
  batch_size: z.union([z.literal('auto'), z.number().int().positive()]),
  max_length: z.number().int().positive(),
  provider: z.string(),
  ort_version: z.string(),
  attention_fused: z.boolean(),
  bos: tokenSchema,
  eos: tokenSchema,
});

/** Facts of the process that scored the shard; they may differ between shards. */
const runSchema = z.strictObject({
  model_path: z.string(),
  model_file: z.string(),
  /** Absolute; the merge reads the data from here unless told another folder. */
  data_dir: z.string(),
  environment: z.string(),
  started_at_unix_s: z.number(),
  wall_time_s: z.number().nonnegative(),
  scoring_time_s: z.number().nonnegative(),
  tokens_scored: count,
  requests: count,
  forward_rows: count,
  padded_tokens: count,
  peak_rss_bytes: count,
  memory: z.strictObject({ load_peak_rss_bytes: count.nullable(), scoring_peak_rss_bytes: count.nullable() }),
  score_cache: z.strictObject({ hits: count, misses: count }).nullable(),
  /** The generation route's work, when the run had generate_until tasks. */
  generation: z.strictObject({ requests: count, generated_tokens: count, generation_time_s: z.number().nonnegative() }).optional(),
  /** The load-time rewrites and the CPU: the merge reports shard 0's (they follow the model, the options and the host). */
  rewrites: z.array(z.strictObject({ name: z.string(), applied: z.boolean(), reason: z.string() })),
  cpu: z.strictObject({
    model: z.string(),
    features: z.array(z.string()),
    kernel_path: z.enum(['avx512', 'avx2', 'baseline']),
    mlas_path: z.enum(['avx512', 'avx2', 'baseline']),
    kernel_path_forced: z.boolean(),
  }),
});

/** A document's log-likelihoods, or (generate_until) none and its generated texts in `responses`. */
const documentSchema = z.strictObject({
  doc_id: count,
  logliks: z.array(loglikSchema),
  is_greedy: z.array(z.boolean()),
  responses: z.array(z.string()).optional(),
});
const taskDocumentsSchema = z.strictObject({
  /** requestsDigest() of the requests of `docs`. */
  requests_sha256: z.string(),
  /** In document order. */
  docs: z.array(documentSchema),
});

export const shardRecordSchema = z.strictObject({
  format: z.literal(SHARD_FORMAT),
  format_version: z.literal(SHARD_FORMAT_VERSION),
  shard: z.strictObject({ index: count, count: z.number().int().positive() }),
  identity: identitySchema,
  run: runSchema,
  /** Per task, in the run's task order: the shard's documents. */
  documents: z.record(z.string(), taskDocumentsSchema),
});

export type ShardRecord = z.output<typeof shardRecordSchema>;
export type ShardIdentity = ShardRecord['identity'];

export interface ShardRecordInput extends ScoredRun {
  readonly shard: ShardSpec;
  readonly options: ResolvedEvaluateOptions;
}

export function buildShardRecord(input: ShardRecordInput): ShardRecord {
  const { model, work, options } = input;
  const tasks = input.suites.flatMap((suite) => suite.tasks);
  return {
    format: SHARD_FORMAT,
    format_version: SHARD_FORMAT_VERSION,
    shard: { index: input.shard.index, count: input.shard.count },
    identity: {
      tool_version: toolVersion(),
      lm_eval_rules: options.lmEvalVersion,
      model_sha256: model.modelSha256,
      model_content_sha256: model.modelContentSha256,
      tokenizer_sha256: model.tokenizerSha256,
      data_fingerprint: dataFingerprint(tasks.flatMap((task) => task.sourceFiles)),
      tasks: options.suite,
      num_fewshot: options.numFewshot ?? null,
      limit: options.limit ?? null,
      allow_partial: options.allowPartial,
      batch_size: options.batchSize,
      max_length: model.maxLength,
      provider: model.provider,
      ort_version: model.ortVersion,
      attention_fused: model.attentionFused,
      bos: { ...model.bos },
      eos: { ...model.eos },
    },
    run: {
      model_path: model.modelPath,
      model_file: model.modelFile,
      data_dir: path.resolve(options.dataDir),
      environment: model.environment,
      started_at_unix_s: work.startedAtUnixSeconds,
      wall_time_s: (work.endMs - work.startMs) / 1000,
      scoring_time_s: work.scoringSeconds,
      tokens_scored: work.tokensScored,
      requests: work.requests,
      forward_rows: work.forwardRows,
      padded_tokens: work.paddedTokens,
      peak_rss_bytes: work.peakRssBytes,
      memory: { ...work.memory },
      score_cache: work.scoreCache === null ? null : { ...work.scoreCache },
      ...(work.generation !== undefined
        ? { generation: { requests: work.generation.requests, generated_tokens: work.generation.generatedTokens, generation_time_s: work.generation.seconds } }
        : {}),
      rewrites: model.rewrites.map((outcome) => ({ ...outcome })),
      cpu: { ...model.cpu, features: [...model.cpu.features] },
    },
    documents: Object.fromEntries(
      tasks.map((task) => {
        const outcomes = input.outcomes.get(task.name) ?? [];
        const docIds = new Set(outcomes.map((outcome) => outcome.docId));
        return [
          task.name,
          {
            requests_sha256: requestsDigest(requestsOf(input.requestsByTask, task.name), docIds),
            docs: outcomes.map((outcome) => ({
              doc_id: outcome.docId,
              logliks: outcome.logliks.map(encodeLoglik),
              is_greedy: [...outcome.isGreedy],
              ...(outcome.responses !== undefined ? { responses: [...outcome.responses] } : {}),
            })),
          },
        ];
      }),
    ),
  };
}

/**
 * sha256 over the requests of the documents in `docIds`, in order: each one's identity as its kind states it
 * (a multiple-choice request's document, choice, context and continuation; a rolling request's document and text).
 */
export function requestsDigest(requests: TaskRequests, docIds: ReadonlySet<number>): string {
  const hash = createHash('sha256');
  for (const line of requestIdentities(requests, (docId) => docIds.has(docId))) hash.update(`${line}\n`);
  return hash.digest('hex');
}

/** The record's documents as the outcomes evaluate() scores into, by task. */
export function shardOutcomes(record: ShardRecord): Map<string, DocOutcome[]> {
  return new Map(
    Object.entries(record.documents).map(([task, documents]) => [
      task,
      documents.docs.map((document) => ({
        docId: document.doc_id,
        logliks: document.logliks.map(decodeLoglik),
        isGreedy: document.is_greedy,
        ...(document.responses !== undefined ? { responses: document.responses } : {}),
      })),
    ]),
  );
}

/** JSON text of a record; its numbers parse back to the very same doubles. */
export function stringifyShardRecord(record: ShardRecord): string {
  return `${JSON.stringify(record)}\n`;
}

/** Reads and checks one shard file; anything else is BAD_SHARD naming the file and the field at fault. */
export function readShardRecord(file: string): ShardRecord {
  const json = readJsonFileUnder(file, { kind: 'shard', root: path.dirname(path.resolve(file)), what: 'shard file' });
  const parsed = shardRecordSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') ?? '';
  const isOtherFormat = field === 'format' || field === 'format_version';
  throw new MlrbError(
    'BAD_SHARD',
    isOtherFormat
      ? `${file} is not an mlrb-eval shard file of format version ${SHARD_FORMAT_VERSION} (write it with this version's --shard)`
      : `${file} is not a valid shard file: ${field === '' ? '' : `${field}: `}${issue?.message ?? 'unreadable'}`,
    { file, field },
  );
}

/** The scorer gives log-probabilities only (NUMERIC otherwise), so anything else here is a bug upstream. */
function encodeLoglik(value: number): number | '-Infinity' {
  if (value === -Infinity) return '-Infinity';
  if (Number.isFinite(value) && value <= 0) return value;
  throw new MlrbError('INTERNAL', `a scored log-likelihood is ${value}, which is no log-probability`, { value });
}

function decodeLoglik(value: number | '-Infinity'): number {
  return typeof value === 'number' ? value : -Infinity;
}
