/**
 * Fuzz targets for the readers of what other hands write: run records (the report), shard files (the merge) and
 * the cache's files (token entries, score databases, file-hash entries, lock files), for data-loaders.ts. Each
 * target writes one mutated input where its reader looks and runs the reader; its contract:
 *   - records and shards: the value, or an MlrbError (BAD_RECORD / BAD_SHARD; the driver counts it as refused),
 *     and never a log-likelihood that is no log-probability;
 *   - cache files: never an error at all (a bad entry costs the cache, never the run), and never a value other
 *     than the one stored: a token entry that reads back is the ids written, a cached score is the loglik stored,
 *     a remembered hash is the file's sha256.
 * A broken contract throws ContractBroken, which the driver reports as a finding.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type CacheKey, userCacheKey } from '../../src/cache/cache-key.js';
import { acquireCacheLock } from '../../src/cache/cache-lock.js';
import { rememberedSha256 } from '../../src/cache/file-digests.js';
import { openScoreCacheFor } from '../../src/cache/score-cache.js';
import { scoreDatabaseFile } from '../../src/cache/score-folder.js';
import { readTokenCacheEntry, tokenCacheFile, writeTokenCache } from '../../src/cache/token-cache.js';
import { readShardRecord, shardOutcomes, SHARD_FORMAT, SHARD_FORMAT_VERSION } from '../../src/run/shard-record.js';
import { readRunRecords, toReportRuns } from '../../src/report/report-run.js';
import { syntheticRunRecord } from '../../test/support/run-records.js';

export class ContractBroken extends Error {}

export interface ReaderTarget {
  readonly name: string;
  /** A sound input; the driver mutates it (as text when it is a string, as bytes otherwise). */
  readonly seed: string | Uint8Array;
  /** Runs the reader on `input`, in the empty folder `dir`; an MlrbError is a refusal, ContractBroken a finding. */
  run(input: string | Uint8Array, dir: string): Promise<void>;
}

/** A cache reader must not throw at all. */
async function neverThrows(what: string, read: () => unknown): Promise<void> {
  try {
    await read();
  } catch (error) {
    throw new ContractBroken(`${what} threw ${String(error)}`);
  }
}

const TOKENIZED = [
  { contextTokens: [5, 6, 7], continuationTokens: [8] },
  { contextTokens: [5, 6, 7], continuationTokens: [9, 10] },
];
const LOGLIKS = [-0.5, -12.25, -Infinity];
const NAMESPACE = { modelDigest: 'a'.repeat(64), scorer: '{"provider":"cpu"}' };
const INPUTS = LOGLIKS.map((_, index) => ({ inputTokens: [1, 2, index], continuationTokens: [3] }));

function shardSeed(): string {
  const token = { text: null, id: null };
  return `${JSON.stringify({
    format: SHARD_FORMAT,
    format_version: SHARD_FORMAT_VERSION,
    shard: { index: 0, count: 2 },
    identity: {
      tool_version: '0.1.0',
      lm_eval_rules: '0.4.4-0.4.8',
      model_sha256: 'ab'.repeat(32),
      model_content_sha256: 'cd'.repeat(32),
      tokenizer_sha256: 'ef'.repeat(32),
      data_fingerprint: '01'.repeat(32),
      tasks: 'blimp',
      num_fewshot: null,
      limit: null,
      allow_partial: true,
      batch_size: 'auto',
      max_length: 64,
      provider: 'cpu',
      ort_version: '1.30.0',
      attention_fused: true,
      bos: token,
      eos: token,
    },
    run: {
      model_path: 'model',
      model_file: 'model.onnx',
      data_dir: '/data',
      environment: 'OS: linux',
      started_at_unix_s: 1,
      wall_time_s: 2,
      scoring_time_s: 1,
      tokens_scored: 10,
      requests: 4,
      forward_rows: 2,
      padded_tokens: 0,
      peak_rss_bytes: 1,
      memory: { load_peak_rss_bytes: null, scoring_peak_rss_bytes: null },
      score_cache: null,
      rewrites: [{ name: 'cpuFusion', applied: true, reason: 'fused' }],
      cpu: { model: 'cpu', features: ['avx2'], kernel_path: 'avx2', mlas_path: 'avx2', kernel_path_forced: false },
    },
    documents: { blimp_toy: { requests_sha256: '23'.repeat(32), docs: [{ doc_id: 0, logliks: [-1.5, '-Infinity'], is_greedy: [true, false] }] } },
  })}\n`;
}

function tokenEntrySeed(): Uint8Array {
  const dir = mkdtempSync(path.join(tmpdir(), 'mlrb-fuzz-seed-'));
  const file = tokenCacheFile(dir, 't', 'r', 1, userCacheKey());
  writeTokenCache(dir, file, TOKENIZED, userCacheKey());
  const bytes = readFileSync(file);
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

function scoreDatabaseSeed(): Uint8Array {
  const dir = mkdtempSync(path.join(tmpdir(), 'mlrb-fuzz-seed-'));
  const cache = openScoreCacheFor(NAMESPACE, { cacheDir: dir, maxBytes: 1 << 30, onWarning: () => undefined });
  const { digests } = cache.lookup(INPUTS);
  cache.store(INPUTS.map((_, index) => ({ digest: digests[index] as Uint8Array, result: { loglik: LOGLIKS[index] as number, isGreedy: index === 0 } })));
  cache.close();
  const bytes = readFileSync(scoreDatabaseFile(dir, NAMESPACE.modelDigest));
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

const MODEL_BYTES = 'the model file whose hash is remembered';

export function readerTargets(): ReaderTarget[] {
  return [
    {
      name: 'run record',
      seed: `${JSON.stringify(syntheticRunRecord({ task: 'edge_llm_compression', agent: 'a', score: 0.41, eligibility: 'eligible', parameters: 7e9, dramUsedBytes: 5e9, startMinute: 0 }))}\n`,
      run: (input, dir) => {
        const file = path.join(dir, 'record.json');
        writeFileSync(file, input);
        toReportRuns(readRunRecords([file]));
        return Promise.resolve();
      },
    },
    {
      name: 'shard file',
      seed: shardSeed(),
      run: (input, dir) => {
        const file = path.join(dir, 'shard.json');
        writeFileSync(file, input);
        for (const documents of shardOutcomes(readShardRecord(file)).values()) {
          for (const { logliks } of documents)
            if (logliks.some((loglik) => Number.isNaN(loglik) || loglik > 0)) throw new ContractBroken('a shard served a loglik that is no log-probability');
        }
        return Promise.resolve();
      },
    },
    {
      name: 'token cache entry',
      seed: tokenEntrySeed(),
      run: (input, dir) =>
        neverThrows('reading a token cache entry', () => {
          const file = tokenCacheFile(dir, 't', 'r', 1, userCacheKey());
          mkdirSync(path.dirname(file), { recursive: true });
          writeFileSync(file, input);
          const read = readTokenCacheEntry(file, TOKENIZED.length, dir, userCacheKey());
          if (read.status === 'hit' && JSON.stringify(read.requests) !== JSON.stringify(TOKENIZED))
            throw new ContractBroken('a token entry served other ids than were stored');
        }),
    },
    {
      name: 'score database',
      seed: scoreDatabaseSeed(),
      run: (input, dir) =>
        neverThrows('opening and reading a score database', () => {
          const file = scoreDatabaseFile(dir, NAMESPACE.modelDigest);
          mkdirSync(path.dirname(file), { recursive: true });
          writeFileSync(file, input);
          const cache = openScoreCacheFor(NAMESPACE, { cacheDir: dir, maxBytes: 1 << 30, onWarning: () => undefined });
          const { results } = cache.lookup(INPUTS);
          cache.close();
          results.forEach((result, index) => {
            if (result !== undefined && (!Object.is(result.loglik, LOGLIKS[index]) || result.isGreedy !== (index === 0)))
              throw new ContractBroken(`a score database served ${result.loglik} for a stored ${LOGLIKS[index]}`);
          });
        }),
    },
    {
      name: 'file hash entry',
      seed: '{"version":2,"path":"/m/model.onnx","identity":"1:2:3:4:5","sha256":"' + 'ab'.repeat(32) + '","mac":"' + 'cd'.repeat(32) + '"}',
      run: (input, dir) =>
        neverThrows('remembering a file hash', async () => {
          const model = path.join(dir, 'model.onnx');
          // A new file per input, so the in-process memo (keyed by the file's identity) never answers for the entry.
          writeFileSync(model, `${MODEL_BYTES} ${dir}`);
          const key: CacheKey = userCacheKey();
          const entry = path.join(dir, 'cache', 'file-hashes', `${createHash('sha256').update(`${key.id}\n${model}`).digest('hex')}.json`);
          mkdirSync(path.dirname(entry), { recursive: true });
          writeFileSync(entry, input);
          const hash = await rememberedSha256(model, path.join(dir, 'cache'), { onWarning: () => undefined });
          if (hash !== createHash('sha256').update(`${MODEL_BYTES} ${dir}`).digest('hex'))
            throw new ContractBroken('a file hash entry replaced hashing the file');
        }),
    },
    {
      name: 'cache lock file',
      seed: JSON.stringify({ pid: 1, host: 'elsewhere', started: null, token: '0011223344556677' }),
      run: (input, dir) =>
        neverThrows('taking a cache lock', () => {
          const file = path.join(dir, `${'a'.repeat(64)}.sqlite.owner`);
          writeFileSync(file, input);
          const attempt = acquireCacheLock(file);
          if (attempt.acquired) attempt.lock.release();
        }),
    },
  ];
}
