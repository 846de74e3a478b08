/**
 * The token cache never feeds a damaged entry to the scorer: each entry carries a sha256 of its ids, a
 * mismatch is a warning and a rebuild; entries of the old format are replaced quietly; temporary files a
 * crashed writer left are swept once they are stale.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTokenCache, type CacheKeyModel } from '../../src/cache/cached-tokenize.js';
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
/** openTokenCache needs only the tokenizer's hash and the empty-context id. */
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

  it('a changed id fails the checksum: warned, not used, and rebuilt on the next store', () => {
    const { cacheDir, file } = storedEntry('flipped');
    const bytes = readFileSync(file);
    // The last int32 is the last continuation id (10); make it 11, a plausible id that would score silently.
    bytes.writeInt32LE(11, bytes.length - 4);
    writeFileSync(file, bytes);
    const warnings: string[] = [];
    const reopened = openTokenCache(model, requests, { cacheDir, onWarning: (message) => warnings.push(message) });
    expect(reopened.cached).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/token cache entry .*\.bin is damaged \(its checksum does not match its content\); tokenizing again/)]);
    reopened.store(tokenized);
    expect(openTokenCache(model, requests, { cacheDir, onWarning: (message) => warnings.push(message) }).cached).toEqual(tokenized);
    expect(warnings).toHaveLength(1);
  });

  it('a sound entry reads back exactly; a truncated one is damaged; an old-format one is replaced without a warning', () => {
    const { cacheDir, file } = storedEntry('formats');
    expect(readTokenCacheEntry(file, 2, cacheDir)).toEqual({ status: 'hit', requests: tokenized });
    writeFileSync(file, readFileSync(file).subarray(0, 20));
    expect(readTokenCacheEntry(file, 2, cacheDir)).toEqual({ status: 'corrupt', reason: 'it is truncated' });
    const oldFormat = Buffer.alloc(12);
    oldFormat.write('MLRBTOK1', 0, 'latin1');
    oldFormat.writeInt32LE(2, 8);
    writeFileSync(file, oldFormat);
    expect(readTokenCacheEntry(file, 2, cacheDir)).toEqual({ status: 'stale' });
    const warnings: string[] = [];
    expect(openTokenCache(model, requests, { cacheDir, onWarning: (message) => warnings.push(message) }).cached).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('EXPECTED FAILURE – an entry that links out of the cache folder is damaged, not read', () => {
    const cacheDir = path.join(root, 'escape');
    const outside = path.join(root, 'outside.bin');
    writeTokenCache(outside, tokenized);
    const { file } = storedEntry('escape');
    rmSync(file);
    symlinkSync(outside, file);
    const read = readTokenCacheEntry(file, 2, cacheDir);
    expect(read).toMatchObject({ status: 'corrupt', reason: expect.stringMatching(/resolves outside/) });
  });

  it('stale temporary files are swept, fresh ones (a writer at work) are kept', () => {
    const cacheDir = path.join(root, 'sweep');
    const shard = path.join(cacheDir, 'tokens', 'ab');
    mkdirSync(shard, { recursive: true });
    const stale = path.join(shard, '.abcd.bin.4242.0a0b0c.tmp');
    const fresh = path.join(shard, '.abcd.bin.4243.0d0e0f.tmp');
    const entry = path.join(shard, 'abcd.bin');
    for (const file of [stale, fresh, entry]) writeFileSync(file, 'x');
    const now = Date.now();
    const old = new Date(now - STALE_TEMPORARY_MS - 60_000);
    utimesSync(stale, old, old);
    utimesSync(entry, old, old);
    expect(sweepStaleTemporaries(cacheDir, now)).toBe(1);
    expect([existsSync(stale), existsSync(fresh), existsSync(entry)]).toEqual([false, true, true]);
  });
});
