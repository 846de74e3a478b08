/**
 * A process ended by a signal it can catch (Ctrl-C, a scheduler's SIGTERM) releases its score-cache locks on
 * the way out, and still ends as that signal ends it. A lock left behind is taken over on the same host, but
 * a run on another host sharing the cache folder cannot tell its holder is gone and would go without the cache.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dirs.js';

const childScript = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'cache-lock-holder-child.ts');
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

interface Ended {
  /** Whether the lock file was there when the signal was sent. */
  readonly lockedWhenSignalled: boolean;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
}

/** Starts a lock holder, sends it `signal` once it holds the lock, and resolves when it has ended. */
function holdThenSignal(lockFile: string, signal: NodeJS.Signals, mode: string[] = []): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', tsxLoader, childScript, lockFile, ...mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    let lockedWhenSignalled = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout === 'held\n') {
        lockedWhenSignalled = existsSync(lockFile);
        child.kill(signal);
      }
    });
    child.on('error', reject);
    child.on('close', (code, endedBy) => {
      clearTimeout(timer);
      resolve({ lockedWhenSignalled, code, signal: endedBy, stdout });
    });
  });
}

describe('score-cache locks and signals', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('a holder ended by %s removes its lock and is still ended by the signal', async (signal) => {
    const lockFile = path.join(makeTempDir('lock-signal'), 'model.sqlite.owner');
    const ended = await holdThenSignal(lockFile, signal);
    expect(ended).toEqual({ lockedWhenSignalled: true, code: null, signal, stdout: 'held\n' });
    expect(existsSync(lockFile)).toBe(false);
  });

  it("leaves the decision to a program's own handler, the lock released all the same", async () => {
    const lockFile = path.join(makeTempDir('lock-signal'), 'model.sqlite.owner');
    const ended = await holdThenSignal(lockFile, 'SIGINT', ['own-handler']);
    expect(ended).toEqual({ lockedWhenSignalled: true, code: 0, signal: null, stdout: 'held\nown handler\n' });
    expect(existsSync(lockFile)).toBe(false);
  });
});
