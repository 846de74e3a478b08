/**
 * The box each Lean compile runs in. The compiler elaborates model output, which can run code (lean-source-check.ts
 * refuses what is known to, and cannot promise the rest), so the box bounds what such code could do:
 *   - a private working folder: the file lives in a fresh 0700 temporary folder, which is also the compiler's
 *     TMPDIR, and is removed afterwards;
 *   - a minimal environment: only the variables Lean and its toolchain manager read (PATH, HOME, locale, elan and
 *     Lean paths), so credentials in the caller's environment (tokens, cloud keys, an SSH agent) never reach it;
 *   - no network and no surviving processes, by the strongest means the OS allows, probed once per process:
 *     - `namespaces`: `unshare --user --net --pid --fork --kill-child`. The compiler is PID 1 of a new PID
 *       namespace, so when it exits the kernel kills every process left in it (a child that called setsid(), or
 *       one left running after a successful compile), and a new network namespace holds only a loopback device
 *       that is down. Needs unprivileged user namespaces (most Linux hosts; container runtimes often forbid them);
 *     - `subreaper`: a helper process (lean-box-reaper.ts) made child subreaper (prctl PR_SET_CHILD_SUBREAPER
 *       through the addon, which Node cannot call), so every orphaned descendant is reparented to it, and it kills
 *       them all once the compiler exits. The network is the host's;
 *     - `process-group` (other systems): the compiler's process group is killed at the end; a descendant that
 *       left the group (setsid) survives, and the network is the host's.
 *   - a wall-clock limit, and output kept up to a cap (a file can make Lean print without end).
 * The whole tree is ended at the end of every compile, not only at the limit.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { nodeScriptArguments } from '../io/node-script.js';
import { loadBinding } from '../native/binding.js';

export const LEAN_SANDBOXES = ['namespaces', 'subreaper', 'process-group'] as const;
export type LeanSandbox = (typeof LEAN_SANDBOXES)[number];

/** What one boxed run ended with. */
export interface BoxedRun {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  /** stdout and stderr together, up to the cap. */
  readonly output: string;
}

export interface BoxOptions {
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** The private folder: the compiler's TMPDIR. */
  readonly privateDir: string;
  readonly sandbox: LeanSandbox;
}

/** The variables Lean 3 and 4, lake and elan read; nothing else of the caller's environment is passed on. */
const PASSED_VARIABLES = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'ELAN_HOME',
  'ELAN_TOOLCHAIN',
  'LEAN_PATH',
  'LEAN_SRC_PATH',
  'LEAN_SYSROOT',
  'LAKE_HOME',
] as const;

/** How long the box's own processes get to end after they were told to, before they are killed outright. */
const GRACE_MS = 2000;

export function minimalEnvironment(environment: NodeJS.ProcessEnv, privateDir: string): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = { TMPDIR: privateDir, TMP: privateDir, TEMP: privateDir };
  for (const name of PASSED_VARIABLES) if (environment[name] !== undefined) kept[name] = environment[name];
  return kept;
}

/** unshare's flags for each way it may map our user id; the first the host accepts is used. */
const UNSHARE_FLAG_SETS = [
  ['--user', '--map-current-user', '--net', '--pid', '--fork', '--kill-child'],
  ['--user', '--map-root-user', '--net', '--pid', '--fork', '--kill-child'],
] as const;

interface Detected {
  readonly sandbox: LeanSandbox;
  /** The unshare executable and flags, for `namespaces`. */
  readonly unshare?: readonly string[];
}

let detected: Detected | undefined;

/** The strongest box this host allows (probed once per process, by running it). */
export function detectLeanSandbox(): LeanSandbox {
  return detect().sandbox;
}

function detect(): Detected {
  if (detected !== undefined) return detected;
  const unshare = process.platform === 'linux' ? findOnPath('unshare') : undefined;
  for (const flags of unshare === undefined ? [] : UNSHARE_FLAG_SETS) {
    const probe = spawnSync(unshare as string, [...flags, '--', process.execPath, '-e', ''], { stdio: 'ignore', timeout: 10_000 });
    if (probe.status === 0) return (detected = { sandbox: 'namespaces', unshare: [unshare as string, ...flags] });
  }
  return (detected = { sandbox: subreaperWorks() ? 'subreaper' : 'process-group' });
}

/** The reaper runs, and its addon can make it a subreaper (an older prebuilt addon lacks the call). */
function subreaperWorks(): boolean {
  if (process.platform !== 'linux') return false;
  if (typeof (loadBinding() as { becomeChildSubreaper?: unknown }).becomeChildSubreaper !== 'function') return false;
  const probe = spawnSync(process.execPath, [...nodeScriptArguments(import.meta.url, 'lean-box-reaper'), '--probe'], { stdio: 'ignore', timeout: 30_000 });
  return probe.status === 0;
}

function findOnPath(name: string): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    if (folder === '') continue;
    const candidate = path.join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** The program and arguments that run `executable args` in `sandbox`. */
function boxedCommand(sandbox: LeanSandbox, executable: string, args: readonly string[]): [string, string[]] {
  if (sandbox === 'namespaces') {
    const unshare = detect().unshare;
    if (unshare === undefined)
      throw new MlrbError('LEAN_RUN', 'the namespaces box was asked for, but unshare cannot create user, network and PID namespaces on this host');
    return [unshare[0] as string, [...unshare.slice(1), '--', executable, ...args]];
  }
  if (sandbox === 'subreaper') return [process.execPath, [...nodeScriptArguments(import.meta.url, 'lean-box-reaper'), JSON.stringify({ executable, args })]];
  return [executable, [...args]];
}

/** Runs `executable args` in the box; resolves once it and everything it started have ended. */
export function runInLeanBox(executable: string, args: readonly string[], options: BoxOptions): Promise<BoxedRun> {
  const [program, programArgs] = boxedCommand(options.sandbox, executable, args);
  return new Promise((resolve, reject) => {
    const child = spawn(program, programArgs, {
      cwd: options.cwd,
      env: minimalEnvironment(process.env, options.privateDir),
      shell: false,
      // Its own process group, so whatever stays in it is killed at the end.
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const output = new CappedOutput(options.maxOutputBytes);
    child.stdout.on('data', (chunk: Buffer) => output.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.add(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stop(child, options.sandbox);
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new MlrbError('LEAN_RUN', `cannot run ${executable}: ${error.message}`, { executable }, { cause: error }));
    });
    child.on('exit', (exitCode, signal) => {
      clearTimeout(timer);
      // Whatever is left in the group goes too, after every compile. Output still in the pipes is read until they
      // close; a pipe held open by a process outside the group is not waited for.
      killGroup(child.pid, 'SIGKILL');
      const finish = (): void => resolve({ exitCode, signal, timedOut, output: output.text() });
      const drained = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, 500);
      child.once('close', () => {
        clearTimeout(drained);
        finish();
      });
    });
  });
}

/** At the limit: the reaper is asked to end the tree it holds, then the group is killed either way. */
function stop(child: ChildProcess, sandbox: LeanSandbox): void {
  if (sandbox !== 'subreaper') return killGroup(child.pid, 'SIGKILL');
  child.kill('SIGTERM');
  setTimeout(() => killGroup(child.pid, 'SIGKILL'), GRACE_MS).unref();
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    // Already gone.
  }
}

class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;

  constructor(private readonly cap: number) {}

  add(chunk: Buffer): void {
    if (this.kept >= this.cap) return;
    const part = chunk.subarray(0, this.cap - this.kept);
    this.chunks.push(part);
    this.kept += part.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
