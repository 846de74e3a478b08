/**
 * The score cache without a model: exact round trips of float64 logliks, keys kept apart by model, scorer
 * and request, damaged rows and files never served, the size cap, and the lock that keeps two processes
 * off one database.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import sqlite from 'node-sqlite3-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireCacheLock } from '../../src/cache/cache-lock.js';
import { openScoreCacheFor, type ScoreCacheOptions } from '../../src/cache/score-cache.js';
import { LOCK_SUFFIX, scoreDatabaseFile } from '../../src/cache/score-folder.js';
import type { ScoreNamespace } from '../../src/cache/score-namespace.js';
import { requestDigest } from '../../src/cache/score-records.js';
import type { ModelInput } from '../../src/engine/model-input.js';

const root = mkdtempSync(path.join(tmpdir(), 'mlrb-score-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const MODEL_A = 'a'.repeat(64);
const MODEL_B = 'b'.repeat(64);
const CPU_SCORER = JSON.stringify({ provider: 'cpu', attentionFused: true });
const CUDA_SCORER = JSON.stringify({ provider: 'cuda', attentionFused: true });

/** Logliks whose every bit must survive: signed zero, a subnormal, 17 significant digits, extremes. */
const LOGLIKS = [-0, -5e-324, -1.2345678901234567, -0.1 - 0.2, -1e300, -Number.MAX_VALUE, -Infinity];
const INPUTS: ModelInput[] = LOGLIKS.map((_, index) => ({ inputTokens: [1, 2, index], continuationTokens: [7, index] }));

let folderCount = 0;
function freshFolder(): string {
  folderCount += 1;
  return path.join(root, `cache-${folderCount}`);
}

function options(cacheDir: string, extra: Partial<ScoreCacheOptions> = {}): ScoreCacheOptions & { warnings: string[] } {
  const warnings: string[] = [];
  return { cacheDir, maxBytes: 64 * 1024 * 1024, onWarning: (message) => warnings.push(message), warnings, ...extra };
}

function storeAll(namespace: ScoreNamespace, cacheDir: string, inputs: readonly ModelInput[] = INPUTS): void {
  const cache = openScoreCacheFor(namespace, options(cacheDir));
  expect(cache.enabled).toBe(true);
  const { digests } = cache.lookup(inputs);
  cache.store(inputs.map((_, index) => ({ digest: digests[index] as Uint8Array, result: { loglik: LOGLIKS[index] as number, isGreedy: index % 2 === 0 } })));
  cache.close();
}

function lookupAll(namespace: ScoreNamespace, cacheDir: string, inputs: readonly ModelInput[] = INPUTS) {
  const opened = options(cacheDir);
  const cache = openScoreCacheFor(namespace, opened);
  const { results } = cache.lookup(inputs);
  const counts = cache.counts();
  cache.close();
  return { results, counts, warnings: opened.warnings };
}

/** Runs SQL against a closed cache database, as damage from outside would. */
function tamper(file: string, sql: string): void {
  const db = new sqlite.Database(file);
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL');
    db.exec(sql);
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

describe('score cache: what it returns', () => {
  it('returns every stored loglik bit for bit, with its greedy flag, and nothing for unknown requests', () => {
    const dir = freshFolder();
    const namespace = { modelDigest: MODEL_A, scorer: CPU_SCORER };
    storeAll(namespace, dir);
    const unknown: ModelInput = { inputTokens: [1, 2], continuationTokens: [3] };
    const { results, counts, warnings } = lookupAll(namespace, dir, [...INPUTS, unknown]);
    expect(warnings).toEqual([]);
    expect(counts).toEqual({ hits: LOGLIKS.length, misses: 1 });
    LOGLIKS.forEach((loglik, index) => {
      expect(Object.is(results[index]?.loglik, loglik)).toBe(true);
      expect(results[index]?.isGreedy).toBe(index % 2 === 0);
    });
    expect(results.at(-1)).toBeUndefined();
  });

  it('keeps models, scorers (provider) and requests apart', () => {
    const dir = freshFolder();
    storeAll({ modelDigest: MODEL_A, scorer: CPU_SCORER }, dir);
    expect(lookupAll({ modelDigest: MODEL_B, scorer: CPU_SCORER }, dir).counts.hits).toBe(0);
    expect(lookupAll({ modelDigest: MODEL_A, scorer: CUDA_SCORER }, dir).counts.hits).toBe(0);
    // The same ids split differently between input and continuation are another request.
    const shifted = INPUTS.map((input) => ({
      inputTokens: input.inputTokens.slice(0, -1),
      continuationTokens: [...input.inputTokens.slice(-1), ...input.continuationTokens],
    }));
    expect(lookupAll({ modelDigest: MODEL_A, scorer: CPU_SCORER }, dir, shifted).counts.hits).toBe(0);
    expect(lookupAll({ modelDigest: MODEL_A, scorer: CPU_SCORER }, dir).counts.hits).toBe(INPUTS.length);
  });

  it('the request digest covers the ids and where the continuation starts', () => {
    const digest = (inputTokens: number[], continuationTokens: number[]) => requestDigest({ inputTokens, continuationTokens }).toString('hex');
    expect(digest([1, 2], [3])).not.toBe(digest([1], [2, 3]));
    expect(digest([1, 2], [3])).not.toBe(digest([1, 2], [4]));
    expect(digest([1, 2], [3])).toBe(digest([1, 2], [3]));
  });
});

describe('score cache: damage is never served', () => {
  it('drops a batch whose bytes changed (a flipped loglik bit) and scores its requests again', () => {
    const dir = freshFolder();
    const namespace = { modelDigest: MODEL_A, scorer: CPU_SCORER };
    storeAll(namespace, dir);
    // Byte 33 is inside the first record's loglik.
    tamper(scoreDatabaseFile(dir, MODEL_A), "UPDATE batches SET records = substr(records, 1, 33) || x'FF' || substr(records, 35)");
    const { counts, warnings } = lookupAll(namespace, dir);
    expect(counts.hits).toBe(0);
    expect(warnings.join('\n')).toMatch(/1 stored batch\(es\) failed their MAC \(damaged, or not written by this user\)/);
    // The damaged batch is gone: the next open has nothing to warn about.
    expect(lookupAll(namespace, dir).warnings).toEqual([]);
  });

  it("does not serve a batch moved into another scorer's namespace", () => {
    const dir = freshFolder();
    storeAll({ modelDigest: MODEL_A, scorer: CPU_SCORER }, dir);
    lookupAll({ modelDigest: MODEL_A, scorer: CUDA_SCORER }, dir);
    tamper(scoreDatabaseFile(dir, MODEL_A), 'UPDATE batches SET namespace = (SELECT MAX(id) FROM namespaces)');
    const { counts, warnings } = lookupAll({ modelDigest: MODEL_A, scorer: CUDA_SCORER }, dir);
    expect(counts.hits).toBe(0);
    expect(warnings.join('\n')).toMatch(/failed their MAC/);
  });

  const damagedFiles: [string, (file: string) => void][] = [
    ['a file that is not SQLite', (file) => writeFileSync(file, 'not a database at all, just text\n'.repeat(200))],
    ['a truncated database', (file) => writeFileSync(file, Buffer.from(execFileSync('head', ['-c', '3000', file])))],
    [
      "another application's SQLite database",
      (file) => {
        rmSync(file);
        const db = new sqlite.Database(file);
        db.exec('CREATE TABLE people (name TEXT)');
        db.close();
      },
    ],
    [
      'a FIFO',
      (file) => {
        rmSync(file);
        execFileSync('mkfifo', [file]);
      },
    ],
  ];
  for (const [name, damage] of damagedFiles) {
    it(`sets aside ${name}, names it, and starts a fresh database`, () => {
      const dir = freshFolder();
      const namespace = { modelDigest: MODEL_A, scorer: CPU_SCORER };
      storeAll(namespace, dir);
      const file = scoreDatabaseFile(dir, MODEL_A);
      damage(file);
      const opened = options(dir);
      const cache = openScoreCacheFor(namespace, opened);
      expect(cache.enabled).toBe(true);
      expect(cache.lookup(INPUTS).results.every((result) => result === undefined)).toBe(true);
      cache.close();
      expect(opened.warnings).toHaveLength(1);
      expect(opened.warnings[0]).toContain(file);
      expect(opened.warnings[0]).toMatch(/moved it to .*\.damaged-\d+/);
      expect(readdirSync(path.dirname(file)).filter((entry) => entry.includes('.damaged-'))).not.toHaveLength(0);
      // The fresh database works.
      storeAll(namespace, dir);
      expect(lookupAll(namespace, dir).counts.hits).toBe(INPUTS.length);
    });
  }
});

describe('score cache: size cap', () => {
  it("removes the least recently used models' databases first, and never the one in use", () => {
    const dir = freshFolder();
    const old = { modelDigest: MODEL_A, scorer: CPU_SCORER };
    const recent = { modelDigest: MODEL_B, scorer: CPU_SCORER };
    storeAll(old, dir);
    storeAll(recent, dir);
    const oldFile = scoreDatabaseFile(dir, MODEL_A);
    const recentFile = scoreDatabaseFile(dir, MODEL_B);
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(oldFile, hourAgo, hourAgo);
    const oneDatabase = statSync(recentFile).size;
    // Room for two databases: opening a third model's removes the oldest.
    const third = { modelDigest: 'c'.repeat(64), scorer: CPU_SCORER };
    const cache = openScoreCacheFor(third, options(dir, { maxBytes: 2 * oneDatabase + oneDatabase / 2 }));
    cache.close();
    expect(existsSync(oldFile)).toBe(false);
    expect(existsSync(recentFile)).toBe(true);
  });

  it('stops storing at the cap with one warning, keeping what was stored', () => {
    const dir = freshFolder();
    const namespace = { modelDigest: MODEL_A, scorer: CPU_SCORER };
    storeAll(namespace, dir);
    const size = statSync(scoreDatabaseFile(dir, MODEL_A)).size;
    const opened = options(dir, { maxBytes: size + 10 });
    const cache = openScoreCacheFor(namespace, opened);
    const more: ModelInput[] = Array.from({ length: 4 }, (_, index) => ({ inputTokens: [9, index], continuationTokens: [9] }));
    const { digests } = cache.lookup(more);
    for (const digest of digests) cache.store([{ digest, result: { loglik: -1, isGreedy: false } }]);
    cache.close();
    expect(opened.warnings).toHaveLength(1);
    expect(opened.warnings[0]).toMatch(/no further scores are stored in this run: .*cap/);
    expect(lookupAll(namespace, dir).counts.hits).toBe(INPUTS.length);
  });
});

describe('score cache: one process per database', () => {
  it('a second opener while the first holds it goes without the cache, naming the holder', () => {
    const dir = freshFolder();
    const namespace = { modelDigest: MODEL_A, scorer: CPU_SCORER };
    const first = openScoreCacheFor(namespace, options(dir));
    const opened = options(dir);
    const second = openScoreCacheFor(namespace, opened);
    expect(second.enabled).toBe(false);
    expect(opened.warnings[0]).toMatch(new RegExp(`in use by process ${process.pid} `));
    first.close();
    const third = openScoreCacheFor(namespace, options(dir));
    expect(third.enabled).toBe(true);
    third.close();
  });

  it('takes over a lock whose process is gone (kill -9), not one whose process lives', () => {
    const dir = freshFolder();
    const lockFile = `${scoreDatabaseFile(dir, MODEL_A)}${LOCK_SUFFIX}`;
    storeAll({ modelDigest: MODEL_A, scorer: CPU_SCORER }, dir);
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout);
    writeFileSync(lockFile, JSON.stringify({ pid: deadPid, host: hostname(), started: null, token: 'x' }));
    const taken = acquireCacheLock(lockFile);
    expect(taken.acquired).toBe(true);
    if (taken.acquired) {
      expect(taken.lock.stillHeld()).toBe(true);
      taken.lock.release();
    }
    writeFileSync(lockFile, JSON.stringify({ pid: process.pid, host: hostname(), started: null, token: 'y' }));
    expect(acquireCacheLock(lockFile).acquired).toBe(false);
    rmSync(lockFile);
  });

  it('treats an unreadable lock as a writer mid-write at first and as debris later', () => {
    const lockFile = path.join(freshFolder(), 'x.owner');
    mkdirSync(path.dirname(lockFile), { recursive: true });
    writeFileSync(lockFile, '');
    expect(acquireCacheLock(lockFile).acquired).toBe(false);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lockFile, minuteAgo, minuteAgo);
    const taken = acquireCacheLock(lockFile);
    expect(taken.acquired).toBe(true);
    if (taken.acquired) taken.lock.release();
  });

  it('a holder whose lock was taken over stops writing', () => {
    const dir = freshFolder();
    const namespace = { modelDigest: MODEL_A, scorer: CPU_SCORER };
    const opened = options(dir);
    const cache = openScoreCacheFor(namespace, opened);
    writeFileSync(`${scoreDatabaseFile(dir, MODEL_A)}${LOCK_SUFFIX}`, JSON.stringify({ pid: 1, host: 'elsewhere', started: null, token: 'z' }));
    const { digests } = cache.lookup(INPUTS);
    cache.store([{ digest: digests[0] as Uint8Array, result: { loglik: -1, isGreedy: true } }]);
    cache.close();
    expect(opened.warnings.join('\n')).toMatch(/another process took over its lock/);
  });
});
