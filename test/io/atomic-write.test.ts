/** Outputs are written whole or not at all: a temporary file beside the target, renamed; removed on failure. */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../support/temp-dirs.js';

/** When set, node:fs writeSync writes part of what it is given, then fails as a full disk does. */
const failure = vi.hoisted(() => ({ afterBytes: undefined as number | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const writeSync = (descriptor: number, buffer: Uint8Array, offset: number, length: number): number => {
    if (failure.afterBytes === undefined) return fs.writeSync(descriptor, buffer, offset, length);
    fs.writeSync(descriptor, buffer, offset, Math.min(length, failure.afterBytes));
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});
// Unit tests share a worker (vitest.config.ts): an earlier file may have loaded atomic-write.js with the real
// node:fs, so it is loaded afresh here, and the mock is dropped again for the files after this one.
vi.resetModules();
const { writeFileAtomic } = await import('../../src/io/atomic-write.js');
afterAll(() => {
  vi.doUnmock('node:fs');
  vi.resetModules();
});

const root = makeTempDir('atomic-write');

describe('writeFileAtomic', () => {
  it('creates missing folders and replaces an existing file, leaving nothing else behind', () => {
    const file = path.join(root, 'new', 'deeper', 'results.json');
    writeFileAtomic(file, '{"a":1}\n');
    writeFileAtomic(file, '{"a":2}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"a":2}\n');
    expect(readdirSync(path.dirname(file))).toEqual(['results.json']);
  });

  it('EXPECTED FAILURE – a write that fails midway keeps the old file whole and leaves no temporary file', () => {
    const folder = path.join(root, 'keep');
    mkdirSync(folder);
    const file = path.join(folder, 'results.json');
    writeFileSync(file, 'old complete content\n');
    failure.afterBytes = 5;
    try {
      expect(() => writeFileAtomic(file, 'new content, of which only five bytes reach the disk\n')).toThrow(/ENOSPC/);
    } finally {
      failure.afterBytes = undefined;
    }
    expect(readFileSync(file, 'utf8')).toBe('old complete content\n');
    expect(readdirSync(folder)).toEqual(['results.json']);
  });

  it('EXPECTED FAILURE – a target that is a folder fails at the rename, and the temporary file is removed', () => {
    const folder = path.join(root, 'collide');
    mkdirSync(path.join(folder, 'out.json'), { recursive: true });
    writeFileSync(path.join(folder, 'out.json', 'inner'), 'x');
    expect(() => writeFileAtomic(path.join(folder, 'out.json'), 'content')).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(folder)).toEqual(['out.json']);
  });
});
