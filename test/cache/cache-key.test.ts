/** The per-user cache key: created private, refused when anyone else could read or plant it. */
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CacheKey, cacheKeyFile, userCacheKey } from '../../src/cache/cache-key.js';
import { makeTempDir } from '../support/temp-dirs.js';

const testStateHome = process.env.XDG_STATE_HOME;
afterEach(() => {
  process.env.XDG_STATE_HOME = testStateHome;
});

/** A fresh state folder for one case; the key file's path in it. */
function freshStateHome(): string {
  process.env.XDG_STATE_HOME = makeTempDir('cache-key-state');
  return cacheKeyFile();
}

describe('cache key', () => {
  it('is created once with mode 0600 in a 0700 folder, and read back the same', () => {
    const file = freshStateHome();
    const key = userCacheKey();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(key.id).toMatch(/^[0-9a-f]{16}$/);
    expect(new CacheKey(Buffer.from(readFileSync(file, 'latin1'), 'hex')).id).toBe(key.id);
  });

  it('MACs differ by key, purpose and the split into parts', () => {
    const a = new CacheKey(Buffer.alloc(32, 1));
    const b = new CacheKey(Buffer.alloc(32, 2));
    expect(a.mac('p', 'x').equals(b.mac('p', 'x'))).toBe(false);
    expect(a.mac('p', 'x').equals(a.mac('q', 'x'))).toBe(false);
    expect(a.mac('p', 'ab', 'c').equals(a.mac('p', 'a', 'bc'))).toBe(false);
    expect(a.mac('p', 'x').equals(new CacheKey(Buffer.alloc(32, 1)).mac('p', 'x'))).toBe(true);
  });

  it('EXPECTED FAILURE – a key file others can read, a link, or a damaged one is refused, naming the file', () => {
    const open = freshStateHome();
    mkdirSync(path.dirname(open), { recursive: true });
    writeFileSync(open, 'ab'.repeat(32), { mode: 0o644 });
    chmodSync(open, 0o644);
    expect(() => userCacheKey()).toThrow(/can be read or written by others \(mode 644\); make it 0600/);

    const linked = freshStateHome();
    mkdirSync(path.dirname(linked), { recursive: true });
    const planted = path.join(path.dirname(linked), 'planted');
    writeFileSync(planted, 'ab'.repeat(32), { mode: 0o600 });
    symlinkSync(planted, linked);
    expect(() => userCacheKey()).toThrow(/cannot read the cache key .*cache-key/);

    const damaged = freshStateHome();
    mkdirSync(path.dirname(damaged), { recursive: true });
    writeFileSync(damaged, 'not hex', { mode: 0o600 });
    expect(() => userCacheKey()).toThrow(/the cache key .* is damaged/);
  });
});
