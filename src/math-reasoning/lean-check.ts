/**
 * Does a generated Lean file compile? Model output is hostile input here: it is written to a file whose name
 * comes from the problem's position only, inside a private temporary folder, and handed to the user's `lean`
 * (or `lake env lean`) as one argv entry, never through a shell. The compiler gets a wall-clock limit (its
 * whole process group is killed at the limit: lake starts lean as a child) and its output is kept up to a cap,
 * since a file can make Lean print without end. Nothing here needs Lean unless the caller asks for the check.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MlrbError } from '../errors.js';

export interface LeanCheckOptions {
  /** The user's `lean` or `lake` executable (a `lake` runs the file as `lake env lean FILE`). */
  readonly executable: string;
  readonly timeoutMs: number;
  /** Where Lean runs: a Lean project's root, so its imports resolve. */
  readonly cwd: string;
  /** Output bytes kept per run (stdout and stderr together). */
  readonly maxOutputBytes?: number;
}

export type LeanOutcome =
  | { readonly status: 'compiled' }
  | { readonly status: 'failed'; readonly first_error: string }
  | { readonly status: 'timed_out' };

const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
/** The first error line is quoted into reports; a line longer than this is cut. */
const MAX_ERROR_LINE_CHARS = 400;

/**
 * Refuses an executable that is not there or cannot be run, before hours of generation make it matter.
 * A bare name is not looked up on PATH: the check runs exactly the file the user named.
 */
export function checkLeanExecutable(executable: string): void {
  try {
    if (!statSync(executable).isFile()) throw new Error('not a regular file');
    accessSync(executable, constants.X_OK);
  } catch (cause) {
    throw new MlrbError('LEAN_RUN', `the Lean executable ${executable} cannot be run (${cause instanceof Error ? cause.message : String(cause)})`, { executable }, { cause });
  }
}

/** One temporary folder for a run's files; `close()` removes it with everything in it. */
export class LeanWorkspace {
  private readonly folder = mkdtempSync(path.join(tmpdir(), 'mlrb-lean-'));

  constructor(private readonly options: LeanCheckOptions) {}

  /** Compiles `source` as problem `index`'s file; the name is `problem_<index>.lean`, whatever the source says. */
  async check(index: number, source: string): Promise<LeanOutcome> {
    if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`problem index must be a whole number, got ${index}`);
    const file = path.join(this.folder, `problem_${index}.lean`);
    writeFileSync(file, source, { encoding: 'utf8', flag: 'wx', mode: 0o600 });
    try {
      return await runLean(this.options, file);
    } finally {
      rmSync(file, { force: true });
    }
  }

  close(): void {
    rmSync(this.folder, { recursive: true, force: true });
  }
}

function leanArguments(executable: string, file: string): string[] {
  const base = path.basename(executable).toLowerCase().replace(/\.exe$/u, '');
  return base === 'lake' ? ['env', 'lean', file] : [file];
}

function runLean(options: LeanCheckOptions, file: string): Promise<LeanOutcome> {
  const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return new Promise((resolve, reject) => {
    const child = spawn(options.executable, leanArguments(options.executable, file), {
      cwd: options.cwd,
      shell: false,
      // Its own process group, so the limit kills lake's lean child as well.
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    const keep = (chunk: Buffer): void => {
      if (kept >= cap) return;
      const part = chunk.subarray(0, cap - kept);
      chunks.push(part);
      kept += part.length;
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new MlrbError('LEAN_RUN', `cannot run ${options.executable}: ${error.message}`, { executable: options.executable }, { cause: error }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return resolve({ status: 'timed_out' });
      if (code === 0) return resolve({ status: 'compiled' });
      const output = Buffer.concat(chunks).toString('utf8');
      resolve({ status: 'failed', first_error: firstErrorLine(output, file) ?? (signal !== null ? `killed by ${signal}` : `exit code ${code}`) });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * The first line that reports an error (Lean 3 and 4 write `FILE:LINE:COL: error: …`), else the first
 * non-blank line. The temporary path is replaced by the file's bare name so reports do not depend on it.
 */
export function firstErrorLine(output: string, file: string): string | undefined {
  const lines = output.split(/\r?\n/u).map((line) => line.replaceAll(file, path.basename(file)).trim()).filter((line) => line !== '');
  const line = lines.find((candidate) => /\berror:/iu.test(candidate)) ?? lines[0];
  return line === undefined ? undefined : line.slice(0, MAX_ERROR_LINE_CHARS);
}
