/**
 * Scores remembered between runs (lm-eval's `--use_cache`), so a run that was killed resumes where it
 * stopped and a rerun scores nothing it has scored before. A score is a pure function of
 *   - the model's bytes (score-namespace.ts): one database per model digest (score-folder.ts), so runs of
 *     different models never share or contend for a file;
 *   - the scorer (score-namespace.ts): a namespace inside that database;
 *   - the request's model input: its input and scored token ids after lm-eval's truncation (the row key).
 * Batch size, padding and row sharing are not in the key: they never change a row's numbers (README "Design").
 *
 * The cache never costs the run and never serves a wrong number. Any failure to open, lock or write it turns
 * it off for the run with one warning; a damaged file is set aside (score-store.ts); a batch whose MAC fails
 * (damaged, or not written by this user: the folder may be shared) is dropped with a warning and its requests
 * scored again; a cache another live process holds is left alone. Each user's batches live in a namespace of
 * their own (the cache key's id is part of it), so users sharing a folder never drop each other's batches.
 */
import { utimesSync } from 'node:fs';
import path from 'node:path';
import type { LoglikelihoodResult } from '../engine/model-input.js';
import type { ModelInput } from '../engine/model-input.js';
import type { LanguageModel } from '../model/onnx-model.js';
import { ensureCacheFolder } from './cache-folders.js';
import { userCacheKey, type CacheKey } from './cache-key.js';
import { acquireCacheLock, type CacheLock } from './cache-lock.js';
import { databaseBytes, LOCK_SUFFIX, removeScoreDatabase, scoreDatabaseFile, scoreDatabases, SCORES_FOLDER } from './score-folder.js';
import { scoreNamespace, type ScoreNamespace } from './score-namespace.js';
import { batchMac, digestKey, RECORD_BYTES, requestDigest, type ScoredRecord } from './score-records.js';
import { ScoreStore, type RecordsMac } from './score-store.js';

export const DEFAULT_SCORE_CACHE_MAX_BYTES = 1024 * 1024 * 1024;

export interface ScoreCacheOptions {
  /** The cache root (shared with the token cache); false turns the score cache off. */
  readonly cacheDir: string | false;
  /** Bytes all score databases together may hold; older models' files are dropped first. */
  readonly maxBytes: number;
  readonly onLog?: (message: string) => void;
  readonly onWarning: (message: string) => void;
}

export interface ScoreCacheCounts {
  /** Requests whose scores came from the cache. */
  readonly hits: number;
  /** Requests the model scored. */
  readonly misses: number;
}

export interface CacheLookup {
  /** The stored result of each input, undefined where there is none. */
  readonly results: readonly (LoglikelihoodResult | undefined)[];
  /** Each input's request digest, to store its result under (empty when the cache is off). */
  readonly digests: readonly Uint8Array[];
}

export interface ScoreCache {
  readonly enabled: boolean;
  lookup(inputs: readonly ModelInput[]): CacheLookup;
  /** Stores one batch's fresh results in one transaction. */
  store(records: readonly ScoredRecord[]): void;
  counts(): ScoreCacheCounts;
  /** Flushes and unlocks; safe to call twice. */
  close(): void;
}

const DISABLED: ScoreCache = {
  enabled: false,
  lookup: (inputs) => ({ results: new Array<undefined>(inputs.length), digests: [] }),
  store: () => undefined,
  counts: () => ({ hits: 0, misses: 0 }),
  close: () => undefined,
};

/** Opens this model's score cache, or a disabled one (with a warning saying why) when it cannot be used. */
export async function openScoreCache(model: LanguageModel, options: ScoreCacheOptions): Promise<ScoreCache> {
  if (options.cacheDir === false) return DISABLED;
  let namespace: ScoreNamespace;
  try {
    namespace = await scoreNamespace(model, path.resolve(options.cacheDir), { onWarning: options.onWarning });
  } catch (cause) {
    options.onWarning(`the score cache is off for this run: ${describe(cause)}`);
    return DISABLED;
  }
  return openScoreCacheFor(namespace, options);
}

/** The cache of one namespace; openScoreCache() derives it from a loaded model. */
export function openScoreCacheFor(namespace: ScoreNamespace, options: ScoreCacheOptions): ScoreCache {
  if (options.cacheDir === false) return DISABLED;
  let lock: CacheLock | undefined;
  let store: ScoreStore | undefined;
  try {
    const key = userCacheKey();
    const cacheDir = path.resolve(options.cacheDir);
    ensureCacheFolder(cacheDir, [SCORES_FOLDER]);
    const file = scoreDatabaseFile(cacheDir, namespace.modelDigest);
    const attempt = acquireCacheLock(file + LOCK_SUFFIX);
    if (!attempt.acquired) {
      const holder = attempt.owner ? `process ${attempt.owner.pid} on ${attempt.owner.host}` : 'another process';
      options.onWarning(`the score cache ${file} is in use by ${holder}; this run scores without it (remove ${attempt.file} if that process is gone)`);
      return DISABLED;
    }
    lock = attempt.lock;
    store = ScoreStore.open(file, options.onWarning);
    return new OpenScoreCache(file, store, lock, namespace, key, options);
  } catch (cause) {
    closeQuietly(store);
    lock?.release();
    options.onWarning(`the score cache is off for this run: ${describe(cause)}`);
    return DISABLED;
  }
}

class OpenScoreCache implements ScoreCache {
  readonly enabled = true;
  private readonly known = new Map<string, LoglikelihoodResult>();
  private readonly namespaceId: number;
  private readonly macOf: RecordsMac;
  private hits = 0;
  private misses = 0;
  private writing = true;
  private closed = false;
  private projectedBytes: number;

  constructor(
    private readonly file: string,
    private readonly database: ScoreStore,
    private readonly lock: CacheLock,
    namespace: ScoreNamespace,
    key: CacheKey,
    private readonly options: ScoreCacheOptions,
  ) {
    // The writer's key id keeps each user's batches apart; the MAC binds a batch to its model and scorer.
    const identity = `writer ${key.id}\n${namespace.scorer}`;
    this.macOf = (records) => batchMac(key, `${namespace.modelDigest}\n${identity}`, records);
    this.namespaceId = database.namespace(identity);
    const loaded = database.load(this.namespaceId, this.macOf);
    for (const record of loaded.records) this.known.set(digestKey(record.digest), record.result);
    if (loaded.damagedBatches > 0) {
      options.onWarning(
        `score cache ${file}: ${loaded.damagedBatches} stored batch(es) failed their MAC (damaged, or not written by this user); dropped, their requests are scored again`,
      );
    }
    options.onLog?.(`score cache ${file}: ${this.known.size.toLocaleString('en-US')} scores of this model and scorer`);
    touch(file);
    this.projectedBytes = this.fitWithinCap();
  }

  lookup(inputs: readonly ModelInput[]): CacheLookup {
    const digests = inputs.map(requestDigest);
    const results = digests.map((digest) => this.known.get(digestKey(digest)));
    const found = results.filter((result) => result !== undefined).length;
    this.hits += found;
    this.misses += inputs.length - found;
    return { results, digests };
  }

  store(records: readonly ScoredRecord[]): void {
    if (!this.writing || records.length === 0) return;
    const bytes = records.length * RECORD_BYTES;
    if (this.projectedBytes + bytes > this.options.maxBytes) {
      return this.stopWriting(`it would grow past its cap of ${formatMb(this.options.maxBytes)} (--cache-max-mb); scores already stored are kept`);
    }
    if (!this.lock.stillHeld()) return this.stopWriting(`another process took over its lock ${this.lock.file}`);
    try {
      this.database.append(this.namespaceId, this.macOf, records);
      this.projectedBytes += bytes;
    } catch (cause) {
      this.stopWriting(describe(cause));
    }
  }

  counts(): ScoreCacheCounts {
    return { hits: this.hits, misses: this.misses };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.writing = false;
    try {
      this.database.close();
    } catch (cause) {
      this.options.onWarning(`score cache ${this.file}: closing failed: ${describe(cause)}`);
    }
    this.lock.release();
  }

  private stopWriting(reason: string): void {
    this.writing = false;
    this.options.onWarning(`score cache ${this.file}: no further scores are stored in this run: ${reason}`);
  }

  /**
   * Brings the score folder within the cap: other models' databases go first, least recently used first
   * (a file's mtime moves whenever it is opened or written), skipping any another process holds; then this
   * database's other scorers. Returns the bytes this run starts from.
   */
  private fitWithinCap(): number {
    const cap = this.options.maxBytes;
    const folder = path.dirname(this.file);
    const others = scoreDatabases(folder)
      .filter((entry) => entry.file !== this.file)
      .sort((a, b) => a.mtimeMs - b.mtimeMs);
    let total = databaseBytes(this.file) + others.reduce((sum, entry) => sum + entry.bytes, 0);
    for (const entry of others) {
      if (total <= cap) break;
      if (removeScoreDatabase(entry.file)) {
        total -= entry.bytes;
        this.options.onLog?.(`score cache over ${formatMb(cap)}: removed ${entry.file}`);
      }
    }
    if (total > cap) {
      const ownBefore = databaseBytes(this.file);
      this.database.evictNamespaces(this.namespaceId, () => total - ownBefore + databaseBytes(this.file) <= cap);
      total += databaseBytes(this.file) - ownBefore;
    }
    return total;
  }
}

function closeQuietly(store: ScoreStore | undefined): void {
  try {
    store?.close();
  } catch {
    // Already failing; the first error is the one reported.
  }
}

function touch(file: string): void {
  const now = new Date();
  try {
    utimesSync(file, now, now);
  } catch {
    // Only eviction order depends on it.
  }
}

function formatMb(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
