import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isMlrbError } from '../../src/errors.js';
import { writeResultOutput } from '../../src/io/result-output.js';

const root = mkdtempSync(path.join(tmpdir(), 'mlrb-result-output-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('writeResultOutput', () => {
  it('writes the whole content to the target', () => {
    const target = path.join(root, 'out', 'results.json');
    writeResultOutput(target, '{"a":1}\n', '--output');
    expect(readFileSync(target, 'utf8')).toBe('{"a":1}\n');
  });

  it('EXPECTED FAILURE – an unwritable target: IO naming it, and the content saved in the rescue folder', () => {
    const blocker = path.join(root, 'a-file');
    writeFileSync(blocker, 'x');
    const target = path.join(blocker, 'results.json'); // a path under a regular file: ENOTDIR / EEXIST
    const rescueDir = mkdtempSync(path.join(root, 'rescue-'));
    let caught: unknown;
    try {
      writeResultOutput(target, '{"score":0.5}\n', '--output', rescueDir);
    } catch (error) {
      caught = error;
    }
    expect(isMlrbError(caught) && caught.code).toBe('IO');
    const message = (caught as Error).message;
    expect(message).toContain(`cannot write --output ${target}`);
    const saved = path.join(rescueDir, `mlrb-eval-${process.pid}-results.json`);
    expect(message).toContain(`saved to ${saved}`);
    expect(readFileSync(saved, 'utf8')).toBe('{"score":0.5}\n');
  });
});
