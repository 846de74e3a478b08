/** The tokenized-request disk cache: round trip, keys that change with tokenizer or data, foreign files. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CacheKey } from '../../src/cache/cache-key.js';
import { readTokenCache, requestsFingerprint, tokenCacheFile, tokenizerFingerprint, writeTokenCache } from '../../src/cache/token-cache.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mlrb-token-cache-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const key = new CacheKey(Buffer.alloc(32, 7));

describe('token cache', () => {
  const tokenized = [
    { contextTokens: [1, 2, 3], continuationTokens: [4] },
    { contextTokens: [], continuationTokens: [5, 6] },
    { contextTokens: [2 ** 31 - 1], continuationTokens: [0] },
  ];

  it('reads back exactly what it wrote', () => {
    const file = path.join(dir, 'round-trip', 'entry.bin');
    writeTokenCache(dir, file, tokenized, key);
    expect(readTokenCache(file, tokenized.length, key)).toEqual(tokenized);
  });

  it('EXPECTED MISS – a missing file, another request count or foreign bytes read as no entry', () => {
    const file = path.join(dir, 'miss', 'entry.bin');
    expect(readTokenCache(file, 3, key)).toBeUndefined();
    writeTokenCache(dir, file, tokenized, key);
    expect(readTokenCache(file, 2, key)).toBeUndefined();
    writeFileSync(file, 'not a cache file at all!');
    expect(readTokenCache(file, 3, key)).toBeUndefined();
  });

  it('keys on the tokenizer files, the lm-eval release and every request text', () => {
    const tokenizerA = path.join(dir, 'a', 'tokenizer.json');
    const tokenizerB = path.join(dir, 'b', 'tokenizer.json');
    for (const [file, content] of [
      [tokenizerA, '{"a":1}'],
      [tokenizerB, '{"a":2}'],
    ] as const) {
      rmSync(path.dirname(file), { recursive: true, force: true });
      writeTokenCache(dir, path.join(path.dirname(file), 'x.bin'), [], key); // creates the folder
      writeFileSync(file, content);
    }
    expect(tokenizerFingerprint(tokenizerA, '0.4.4-0.4.8')).not.toBe(tokenizerFingerprint(tokenizerB, '0.4.4-0.4.8'));
    // ids built under one lm-eval release's rules never serve the other
    expect(tokenizerFingerprint(tokenizerA, '0.4.4-0.4.8')).not.toBe(tokenizerFingerprint(tokenizerA, '0.4.13'));
    const requests = [
      { context: 'Q: 1+1?', continuation: ' 2' },
      { context: 'Q: 1+1?', continuation: ' 3' },
    ];
    const changed = [
      { context: 'Q: 1+1?', continuation: ' 2' },
      { context: 'Q: 1+2?', continuation: ' 3' },
    ];
    expect(requestsFingerprint(requests)).not.toBe(requestsFingerprint(changed));
    expect(requestsFingerprint(requests)).toBe(requestsFingerprint([...requests]));
    expect(tokenCacheFile(dir, 't', 'r', 1, key)).not.toBe(tokenCacheFile(dir, 't', 'r', 2, key));
    // Each user's entries have names of their own: users sharing a folder never share (or overwrite) an entry.
    expect(tokenCacheFile(dir, 't', 'r', 1, key)).not.toBe(tokenCacheFile(dir, 't', 'r', 1, new CacheKey(Buffer.alloc(32, 8))));
  });
});
