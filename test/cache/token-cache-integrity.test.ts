/**
 * The token cache never feeds a damaged or forged entry to the scorer: each entry carries an HMAC of its ids
 * under the user's cache key, a mismatch is a warning and a rebuild; entries of the old format are replaced
 * quietly; temporary files a crashed writer left are swept once they are stale.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTokenCache, type CacheKeyModel } from '../../src/cache/cached-tokenize.js';
import { CacheKey, userCacheKey } from '../../src/cache/cache-key.js';
import { STALE_TEMPORARY_MS, sweepStaleTemporaries } from '../../src/cache/stale-temporaries.js';
import { readTokenCacheEntry, writeTokenCache } from '../../src/cache/token-cache.js';
import { makeTempDir } from '../support/temp-dirs.js';

const root = makeTempDir('token-cache-integrity');
const tokenized = [
  { contextTokens: [5, 6, 7], continuationTokens: [8] },
  { contextTokens: [5, 6, 7], continuationTokens: [9, 10] },
];
const requests = [
  { context: 'the cat', continuation: ' sat' },
  { context: 'the cat', continuation: ' ran up' },
];
/** openTokenCache needs only the tokenizer's hash, the empty-context id and the model_type. */
const model: CacheKeyModel = {
  requireTokenizer: () => ({
    path: '/models/x/tokenizer.json',
    sha256: 'f'.repeat(64),
    encode: () => [],
    encodeWithSpecialTokens: () => [],
    tokenText: () => '',
    decode: () => '',
    tokenToId: () => undefined,
  }),
  prefixTokenId: () => 1,
  metadata: { modelType: 'llama' },
};

/** Stores `tokenized` under a fresh cache folder; returns the folder and the entry's file. */
function storedEntry(name: string): { cacheDir: string; file: string } {
  const cacheDir = path.join(root, name);
  const logs: string[] = [];
  openTokenCache(model, requests, { cacheDir, onLog: (message) => logs.push(message) }).store(tokenized);
  const file = /cached in (.*)$/.exec(logs.at(-1) ?? '')?.[1] ?? '';
  expect(existsSync(file)).toBe(true);
  return { cacheDir, file };
}

describe('token cache integrity', () => {
  it('an entry stored under the rules of one lm-eval release is never read under the other', () => {
    const { cacheDir } = storedEntry('releases');
    expect(openTokenCache(model, requests, { cacheDir }).cached).toEqual(tokenized);
    expect(openTokenCache(model, requests, { cacheDir, lmEvalVersion: '0.4.4-0.4.8' }).cached).toEqual(tokenized);
    expect(openTokenCache(model, requests, { cacheDir, lmEvalVersion: '0.4.13' }).cached).toBeUndefined();
  });

  it("a Gemma model's entry (v0.4.4–v0.4.8 add BOS for it) and a non-Gemma model's of the same files never share ids", () => {
    const { cacheDir } = storedEntry('gemma');
    const gemma: CacheKeyModel = { ...model, metadata: { modelType: 'gemma2' } };
    expect(openTokenCache(gemma, requests, { cacheDir }).cached).toBeUndefined();
    openTokenCache(gemma, requests, { cacheDir }).store([{ contextTokens: [1, 5], continuationTokens: [6] }, ...tokenized.slice(1)]);
    expect(openTokenCache(gemma, requests, { cacheDir }).cached?.[0]).toEqual({ contextTokens: [1, 5], continuationTokens: [6] });
    expect(openTokenCache(model, requests, { cacheDir }).cached).toEqual(tokenized);
    // No model_type (or none stated) is not Gemma: the plain rules' entry.
    expect(openTokenCache({ ...model, metadata: { modelType: null } }, requests, { cacheDir }).cached).toEqual(tokenized);
  });

  it('a changed id fails the checksum: warned, not used, and rebuilt on the next store', () => {
    const { cacheDir, file } = storedEntry('flipped');
    const bytes = readFileSync(file);
    // The last int32 is the last continuation id (10); make it 11, a plausible id that would score silently.
    bytes.writeInt32LE(11, bytes.length - 4);
    writeFileSync(file, bytes);
    const warnings: string[] = [];
    const reopened = openTokenCache(model, requests, { cacheDir, onWarning: (message) => warnings.push(message) });
    expect(reopened.cached).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringMatching(
        /token cache entry .*\.bin is not used \(its MAC does not match its content \(damaged, or not written by this user\)\); tokenizing again/,
      ),
    ]);
    reopened.store(tokenized);
    expect(openTokenCache(model, requests, { cacheDir, onWarning: (message) => warnings.push(message) }).cached).toEqual(tokenized);
    expect(warnings).toHaveLength(1);
  });

  it('EXPECTED FAILURE – a forged entry (an id changed and the checksum recomputed, or one written under another key) is not used', () => {
    for (const forge of ['recomputed', 'other key'] as const) {
      const { cacheDir, file } = storedEntry(`forged-${forge}`);
      const bytes = readFileSync(file);
      if (forge === 'recomputed') {
        // What anyone who can write a shared folder can do to a plain checksum: change an id, hash the payload again.
        bytes.writeInt32LE(11, bytes.length - 4);
        createHash('sha256').update(bytes.subarray(44)).digest().copy(bytes, 12);
        writeFileSync(file, bytes);
      } else {
        writeTokenCache(cacheDir, file, [tokenized[0]!, { contextTokens: [5, 6, 7], continuationTokens: [9, 11] }], new CacheKey(Buffer.alloc(32, 1)));
      }
      const warnings: string[] = [];
      expect(openTokenCache(model, requests, { cacheDir, onWarning: (message) => warnings.push(message) }).cached).toBeUndefined();
      expect(warnings).toEqual([expect.stringMatching(/is not used \(its MAC does not match its content \(damaged, or not written by this user\)\)/)]);
    }
  });

  it('a sound entry reads back exactly; a truncated one is damaged; an old-format one is replaced without a warning', () => {
    const { cacheDir, file } = storedEntry('formats');
    const key = userCacheKey();
    expect(readTokenCacheEntry(file, 2, cacheDir, key)).toEqual({ status: 'hit', requests: tokenized });
    writeFileSync(file, readFileSync(file).subarray(0, 20));
    expect(readTokenCacheEntry(file, 2, cacheDir, key)).toEqual({ status: 'corrupt', reason: 'it is truncated' });
    const oldFormat = Buffer.alloc(12);
    oldFormat.write('MLRBTOK2', 0, 'latin1');
    oldFormat.writeInt32LE(2, 8);
    writeFileSync(file, oldFormat);
    expect(readTokenCacheEntry(file, 2, cacheDir, key)).toEqual({ status: 'stale' });
    const warnings: string[] = [];
    expect(openTokenCache(model, requests, { cacheDir, onWarning: (message) => warnings.push(message) }).cached).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('EXPECTED FAILURE – an entry that links out of the cache folder is damaged, not read', () => {
    const cacheDir = path.join(root, 'escape');
    const outside = path.join(root, 'outside', 'entry.bin');
    writeTokenCache(root, outside, tokenized, userCacheKey());
    const { file } = storedEntry('escape');
    rmSync(file);
    symlinkSync(outside, file);
    const read = readTokenCacheEntry(file, 2, cacheDir, userCacheKey());
    expect(read).toMatchObject({ status: 'corrupt', reason: expect.stringMatching(/resolves outside/) });
  });

  it('stale temporary files are swept, fresh ones (a writer at work) are kept', () => {
    const cacheDir = path.join(root, 'sweep');
    const shard = path.join(cacheDir, 'tokens', 'ab');
    mkdirSync(shard, { recursive: true });
    const name = `ab${'c'.repeat(62)}.bin`;
    const stale = path.join(shard, `.${name}.4242.0a0b0c0d0e0f.tmp`);
    const fresh = path.join(shard, `.${name}.4243.0d0e0f0a0b0c.tmp`);
    const entry = path.join(shard, name);
    for (const file of [stale, fresh, entry]) writeFileSync(file, 'x');
    const now = Date.now();
    const old = new Date(now - STALE_TEMPORARY_MS - 60_000);
    utimesSync(stale, old, old);
    utimesSync(entry, old, old);
    expect(sweepStaleTemporaries(cacheDir, now)).toBe(1);
    expect([existsSync(stale), existsSync(fresh), existsSync(entry)]).toEqual([false, true, true]);
  });

  it('EXPECTED FAILURE – a tokens folder that is a link is neither swept nor written through', () => {
    const cacheDir = path.join(root, 'linked-tokens');
    const elsewhere = path.join(root, 'elsewhere-tokens');
    mkdirSync(path.join(elsewhere, 'ab'), { recursive: true });
    const victim = path.join(elsewhere, 'ab', `.ab${'c'.repeat(62)}.bin.1.0a0b0c0d0e0f.tmp`);
    writeFileSync(victim, "not the cache's");
    const old = new Date(Date.now() - STALE_TEMPORARY_MS - 60_000);
    utimesSync(victim, old, old);
    mkdirSync(cacheDir);
    symlinkSync(elsewhere, path.join(cacheDir, 'tokens'));
    expect(sweepStaleTemporaries(cacheDir)).toBe(0);
    const warnings: string[] = [];
    const entry = openTokenCache(model, requests, { cacheDir, onWarning: (message) => warnings.push(message) });
    entry.store(tokenized);
    expect(warnings).toEqual([expect.stringMatching(/the token cache is off for this run: .*tokens is a symlink/)]);
    expect(existsSync(victim)).toBe(true);
    expect(readdirSync(path.join(elsewhere, 'ab'))).toEqual([path.basename(victim)]);
  });
});
