/**
 * The file policy every JS reader of outside files goes through (src/io/regular-file.ts): FIFOs, devices and
 * links out of the folder are refused, caps hold, and no message carries a foreign file's bytes. Inputs that
 * would hang or exhaust a process if the guard regressed run in a child with a time limit.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILE_SIZE_CAPS, type FilePolicy } from '../../src/io/file-policy.js';
import { pathEntryExists, readRegularFile, sha256OfRegularFile } from '../../src/io/regular-file.js';
import { readJsonFileUnder } from '../../src/io/text-file.js';
import { runHostile } from '../support/run-hostile.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { thrownMlrbError } from '../support/expect-mlrb-error.js';

const root = makeTempDir('regular-file');
const inside = path.join(root, 'folder');
mkdirSync(inside);
const policy = (what: string, extra: Partial<FilePolicy> = {}): FilePolicy => ({ kind: 'data', root: inside, what, ...extra });
/** Bytes that must never show up in a message: they stand for a foreign file's content. */
const SECRET = 'root:x:0:0:SECRET-CONTENT';

describe('readRegularFile', () => {
  it('reads a regular file and a symlink that stays inside the folder', () => {
    writeFileSync(path.join(inside, 'plain.jsonl'), 'abc');
    symlinkSync('plain.jsonl', path.join(inside, 'alias.jsonl'));
    expect(readRegularFile(path.join(inside, 'plain.jsonl'), policy('data file')).toString()).toBe('abc');
    expect(readRegularFile(path.join(inside, 'alias.jsonl'), policy('data file')).toString()).toBe('abc');
  });

  it('EXPECTED FAILURE – a symlink out of the folder is refused, and its target is not read', () => {
    const foreign = path.join(root, 'passwd');
    writeFileSync(foreign, `${SECRET}\n`);
    symlinkSync(foreign, path.join(inside, 'escape.jsonl'));
    const error = thrownMlrbError(() => readRegularFile(path.join(inside, 'escape.jsonl'), policy('BLiMP file for escape')));
    expect(error.code).toBe('BAD_DATA');
    expect(error.message).toMatch(/BLiMP file for escape resolves outside .*folder.*escape\.jsonl/);
    expect(error.message).not.toContain('SECRET');
    expect(error.details).toEqual({ file: path.join(inside, 'escape.jsonl') });
  });

  it('hashes a data file read since it last changed without reading it again, and a changed one afresh', () => {
    const file = path.join(inside, 'remembered.jsonl');
    const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
    // A whole-second modification time, so that it can be put back exactly after the rewrite below.
    const mtimeSeconds = 1_000_000_000;
    writeFileSync(file, '{"a":1}\n');
    utimesSync(file, mtimeSeconds, mtimeSeconds);
    readRegularFile(file, policy('f'));
    expect(sha256OfRegularFile(file, policy('f'))).toBe(sha256(readFileSync(file)));
    // Same inode and size, and the modification time put back: only the change time tells the contents apart.
    writeFileSync(file, '{"a":2}\n');
    utimesSync(file, mtimeSeconds, mtimeSeconds);
    expect(sha256OfRegularFile(file, policy('f'))).toBe(sha256(readFileSync(file)));
  });

  it('hashes a file in chunks to the same sha256 as hashing it whole, under the same rules', () => {
    const content = Buffer.alloc(3 * 1024 * 1024 + 17, 'ab');
    writeFileSync(path.join(inside, 'large.jsonl'), content);
    expect(sha256OfRegularFile(path.join(inside, 'large.jsonl'), policy('f'))).toBe(createHash('sha256').update(content).digest('hex'));
    expect(() => sha256OfRegularFile(path.join(inside, 'large.jsonl'), policy('f', { maxBytes: 1024 }))).toThrow(/over the 1024 bytes limit/);
  });

  it('EXPECTED FAILURE – a file over the cap names the cap; the kind decides the error code', () => {
    writeFileSync(path.join(inside, 'big.json'), 'x'.repeat(2049));
    const error = thrownMlrbError(() => readRegularFile(path.join(inside, 'big.json'), policy('config.json', { kind: 'config', maxBytes: 2048 })));
    expect(error.code).toBe('BAD_MODEL');
    expect(error.message).toMatch(/config\.json is 2049 bytes, over the 2048 bytes limit/);
    expect(FILE_SIZE_CAPS.tokenizer).toBe(64 * 1024 * 1024);
  });

  it('EXPECTED FAILURE – a directory, a missing file and a dangling link each say what they are', () => {
    mkdirSync(path.join(inside, 'dir.jsonl'));
    symlinkSync(path.join(inside, 'nothing'), path.join(inside, 'dangling.jsonl'));
    expect(thrownMlrbError(() => readRegularFile(path.join(inside, 'dir.jsonl'), policy('f'))).message).toMatch(/is not a regular file \(it is a directory\)/);
    expect(thrownMlrbError(() => readRegularFile(path.join(inside, 'absent.jsonl'), policy('f'))).message).toMatch(/f not found: .*absent\.jsonl/);
    expect(thrownMlrbError(() => readRegularFile(path.join(inside, 'dangling.jsonl'), policy('f'))).message).toMatch(/symlink to a file that does not exist/);
    expect(pathEntryExists(path.join(inside, 'dangling.jsonl'))).toBe(true);
    expect(pathEntryExists(path.join(inside, 'absent.jsonl'))).toBe(false);
  });

  it("EXPECTED FAILURE – a JSON syntax error says where, never quotes the file's text", () => {
    writeFileSync(path.join(inside, 'config.json'), SECRET);
    const error = thrownMlrbError(() => readJsonFileUnder(path.join(inside, 'config.json'), policy('config.json', { kind: 'config' })));
    expect(error.message).toMatch(/config\.json is not valid JSON \(a syntax error/);
    expect(error.message).not.toMatch(/root|SECRET/);
  });

  it('EXPECTED FAILURE – a FIFO, a link to /dev/zero and /dev/zero itself each end in an error within seconds', async () => {
    const fifo = path.join(inside, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    symlinkSync('/dev/zero', path.join(inside, 'zero.jsonl'));
    // A link to /dev/zero inside a folder that is /dev itself still fails: it is not a regular file.
    const outcomes = await runHostile([
      { op: 'readRegularFile', file: fifo, policy: policy('BLiMP file for fifo') },
      { op: 'readRegularFile', file: path.join(inside, 'zero.jsonl'), policy: policy('BLiMP file for zero') },
      { op: 'readRegularFile', file: '/dev/zero', policy: { kind: 'tokenizer', root: '/dev', what: 'tokenizer.json' } },
      { op: 'sha256OfRegularFile', file: fifo, policy: policy('BLiMP file for fifo') },
    ]);
    const [fromFifo, fromLink, fromDevice, hashOfFifo] = outcomes;
    expect(hashOfFifo).toMatchObject({ ok: false, code: 'BAD_DATA', message: expect.stringMatching(/it is a FIFO/) });
    expect(fromFifo).toMatchObject({
      ok: false,
      code: 'BAD_DATA',
      message: expect.stringMatching(/BLiMP file for fifo is not a regular file \(it is a FIFO\): .*fifo\.jsonl/),
    });
    expect(fromLink).toMatchObject({ ok: false, code: 'BAD_DATA', message: expect.stringMatching(/zero\.jsonl/) });
    expect(fromLink?.ok === false && fromLink.message).toMatch(/resolves outside/);
    expect(fromDevice).toMatchObject({ ok: false, code: 'BAD_TOKENIZER', message: expect.stringMatching(/not a regular file \(it is a character device\)/) });
    for (const outcome of outcomes) expect(outcome.ms).toBeLessThan(2000);
  });
});
