import { execFileSync, spawn } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

describe('writeResultOutput through links and special files', () => {
  it('a symlinked target keeps its link; the file it leads to gets the content', () => {
    const real = path.join(root, 'kept', 'real.json');
    mkdirSync(path.dirname(real), { recursive: true });
    writeFileSync(real, 'old\n');
    const link = path.join(root, 'kept', 'link.json');
    symlinkSync('real.json', link);
    writeResultOutput(link, '{"a":2}\n', '--output');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('{"a":2}\n');
  });

  it('a FIFO (as /dev/null or a pipe would be) is written into, not replaced by a regular file', async () => {
    const fifo = path.join(root, 'results.fifo');
    execFileSync('mkfifo', [fifo]);
    // A reader in another process, as a shell's `--output >(jq …)` has one; it ends when the writer closes.
    const reader = spawn('cat', [fifo]);
    let received = '';
    reader.stdout.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => reader.on('close', resolve));
    // Were the FIFO replaced, the reader would wait for a writer forever.
    const guard = setTimeout(() => reader.kill(), 5_000);
    writeResultOutput(fifo, '{"a":3}\n', '--output');
    const code = await exited;
    clearTimeout(guard);
    expect(code).toBe(0);
    expect(received).toBe('{"a":3}\n');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });
});
