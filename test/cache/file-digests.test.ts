/**
 * Model hashes remembered between runs: trusted only while the file's identity (inode, size, times) holds, and
 * only from their writer (an HMAC under the user's cache key).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rememberedSha256 } from '../../src/cache/file-digests.js';

const root = mkdtempSync(path.join(tmpdir(), 'mlrb-file-digests-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const sha256 = (bytes: string): string => createHash('sha256').update(bytes).digest('hex');

describe('rememberedSha256', () => {
  it('hashes, remembers the hash in the cache, and hashes again after an in-place rewrite of the same size', async () => {
    const cacheDir = path.join(root, 'cache');
    const file = path.join(root, 'model.onnx');
    writeFileSync(file, 'weights version 1');
    expect(await rememberedSha256(file, cacheDir)).toBe(sha256('weights version 1'));
    const entries = readdirSync(path.join(cacheDir, 'file-hashes'));
    expect(entries).toHaveLength(1);
    expect(JSON.parse(readFileSync(path.join(cacheDir, 'file-hashes', entries[0] as string), 'utf8'))).toMatchObject({
      path: file,
      sha256: sha256('weights version 1'),
    });

    writeFileSync(file, 'weights version 2');
    expect(await rememberedSha256(file, cacheDir)).toBe(sha256('weights version 2'));
  });

  it('ignores a damaged entry and hashes the file', async () => {
    const cacheDir = path.join(root, 'damaged');
    const file = path.join(root, 'other.onnx');
    writeFileSync(file, 'other weights');
    await rememberedSha256(file, cacheDir);
    const folder = path.join(cacheDir, 'file-hashes');
    for (const entry of readdirSync(folder)) writeFileSync(path.join(folder, entry), '{"path": 1');
    writeFileSync(file, 'other weightz');
    expect(await rememberedSha256(file, cacheDir)).toBe(sha256('other weightz'));
  });

  it('EXPECTED FAILURE – an entry rewritten to give the file another digest fails its MAC: warned, and the file hashed', async () => {
    const cacheDir = path.join(root, 'forged');
    const file = path.join(root, 'forged.onnx');
    writeFileSync(file, 'model A');
    await rememberedSha256(file, cacheDir);
    // Model B takes A's place; the entry is rewritten to B's identity (anyone can stat it) but keeps A's digest.
    writeFileSync(file, 'model B');
    const stats = statSync(file, { bigint: true });
    const folder = path.join(cacheDir, 'file-hashes');
    const [entry] = readdirSync(folder) as [string];
    const value = JSON.parse(readFileSync(path.join(folder, entry), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(folder, entry), JSON.stringify({ ...value, identity: [stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join(':') }));
    const warnings: string[] = [];
    expect(await rememberedSha256(file, cacheDir, { onWarning: (message) => warnings.push(message) })).toBe(sha256('model B'));
    expect(warnings).toEqual([expect.stringMatching(/file hash entry .*\.json is not used: its MAC does not match/)]);
  });
});
