/**
 * Does a generated Lean file compile? Model output is hostile input here: an output that names a construct known to
 * run code or reach outside Lean is refused before any compiler starts (lean-source-check.ts); the rest is written
 * to a file whose name comes from the problem's position only, inside a private temporary folder, and handed to the
 * user's `lean` (or `lake env lean`) as one argv entry, never through a shell, in a box (lean-box.ts): a minimal
 * environment, no network and no process left running after the compile where the OS allows, a wall-clock limit,
 * and output kept up to a cap. Nothing here needs Lean unless the caller asks for the check.
 */
import { accessSync, constants, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { detectLeanSandbox, runInLeanBox, type LeanSandbox } from './lean-box.js';
import { leanSourceRefusal } from './lean-source-check.js';

export interface LeanCheckOptions {
  /** The user's `lean` or `lake` executable (a `lake` runs the file as `lake env lean FILE`). */
  readonly executable: string;
  readonly timeoutMs: number;
  /** Where Lean runs: a Lean project's root, so its imports resolve. */
  readonly cwd: string;
  /** Output bytes kept per run (stdout and stderr together). */
  readonly maxOutputBytes?: number;
  /** The box to compile in; default the strongest this host allows (detectLeanSandbox()). */
  readonly sandbox?: LeanSandbox;
}

export type LeanOutcome = { readonly status: 'compiled' } | { readonly status: 'failed'; readonly first_error: string } | { readonly status: 'timed_out' };

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
    throw new MlrbError(
      'LEAN_RUN',
      `the Lean executable ${executable} cannot be run (${cause instanceof Error ? cause.message : String(cause)})`,
      { executable },
      { cause },
    );
  }
}

/** One temporary folder for a run's files; `close()` removes it with everything in it. */
export class LeanWorkspace {
  private readonly folder = mkdtempSync(path.join(tmpdir(), 'mlrb-lean-'));
  /** The box every compile of this workspace runs in. */
  readonly sandbox: LeanSandbox;

  constructor(private readonly options: LeanCheckOptions) {
    this.sandbox = options.sandbox ?? detectLeanSandbox();
  }

  /** Compiles `source` as problem `index`'s file; the name is `problem_<index>.lean`, whatever the source says. */
  async check(index: number, source: string): Promise<LeanOutcome> {
    if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`problem index must be a whole number, got ${index}`);
    const refusal = leanSourceRefusal(source);
    if (refusal !== null) return { status: 'failed', first_error: refusal };
    const file = path.join(this.folder, `problem_${index}.lean`);
    writeFileSync(file, source, { encoding: 'utf8', flag: 'wx', mode: 0o600 });
    try {
      const run = await runInLeanBox(this.options.executable, leanArguments(this.options.executable, file), {
        cwd: this.options.cwd,
        timeoutMs: this.options.timeoutMs,
        maxOutputBytes: this.options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
        privateDir: this.folder,
        sandbox: this.sandbox,
      });
      if (run.timedOut) return { status: 'timed_out' };
      if (run.exitCode === 0) return { status: 'compiled' };
      const reason = run.signal !== null ? `killed by ${run.signal}` : `exit code ${run.exitCode}`;
      return { status: 'failed', first_error: firstErrorLine(run.output, file) ?? reason };
    } finally {
      rmSync(file, { force: true });
    }
  }

  close(): void {
    rmSync(this.folder, { recursive: true, force: true });
  }
}

function leanArguments(executable: string, file: string): string[] {
  const base = path
    .basename(executable)
    .toLowerCase()
    .replace(/\.exe$/u, '');
  return base === 'lake' ? ['env', 'lean', file] : [file];
}

/**
 * The first line that reports an error (Lean 3 and 4 write `FILE:LINE:COL: error: …`), else the first
 * non-blank line. The temporary path is replaced by the file's bare name so reports do not depend on it.
 */
export function firstErrorLine(output: string, file: string): string | undefined {
  const lines = output
    .split(/\r?\n/u)
    .map((line) => line.replaceAll(file, path.basename(file)).trim())
    .filter((line) => line !== '');
  const line = lines.find((candidate) => /\berror:/iu.test(candidate)) ?? lines[0];
  return line === undefined ? undefined : line.slice(0, MAX_ERROR_LINE_CHARS);
}
