/**
 * A private single-node Slurm for the tests of examples/slurm/: started by scripts/slurm/start-local.sh in a
 * temp folder, driven through the real client commands (sbatch, scontrol, scancel) and stopped by
 * scripts/slurm/stop-local.sh. Jobs find `mlrb-eval` (this checkout's bin) and node on their PATH.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './shared-data.js';

const CLIENT_COMMANDS = ['slurmctld', 'slurmd', 'sbatch', 'scontrol', 'scancel', 'squeue', 'sinfo'] as const;

/** Why Slurm cannot run here (the tests are then skipped, saying so), or undefined where it can. */
export function slurmUnavailableReason(): string | undefined {
  if (process.platform !== 'linux') return 'Slurm runs on Linux only';
  if (process.getuid?.() !== 0) return 'slurmd must run as root to start jobs';
  const searchPath = (process.env.PATH ?? '').split(path.delimiter).concat('/usr/sbin', '/sbin');
  const missing = CLIENT_COMMANDS.filter((command) => !searchPath.some((folder) => isExecutable(path.join(folder, command))));
  return missing.length === 0 ? undefined : `${missing.join(', ')} not installed (scripts/slurm/install.sh installs Debian's)`;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A job's state and why it waits, from `scontrol show job -o`. */
export interface JobState {
  readonly state: string;
  readonly reason: string;
  readonly restarts: number;
}

const FINISHED_STATES = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE']);

export class LocalSlurm {
  private constructor(
    readonly folder: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static async start(folder: string): Promise<LocalSlurm> {
    const binFolder = path.join(folder, 'bin');
    mkdirSync(binFolder, { recursive: true });
    symlinkSync(path.join(repoRoot, 'bin', 'mlrb-eval.js'), path.join(binFolder, 'mlrb-eval'));
    const env = {
      ...process.env,
      SLURM_CONF: path.join(folder, 'slurm.conf'),
      PATH: [binFolder, path.dirname(process.execPath), process.env.PATH ?? '', '/usr/sbin'].join(path.delimiter),
    };
    const cluster = new LocalSlurm(folder, env);
    await cluster.mustRun(path.join(repoRoot, 'scripts/slurm/start-local.sh'), [folder, '4'], 90_000);
    return cluster;
  }

  async stop(): Promise<void> {
    await this.mustRun(path.join(repoRoot, 'scripts/slurm/stop-local.sh'), [this.folder], 60_000);
  }

  run(command: string, args: readonly string[], timeoutMs = 60_000): Promise<CommandResult> {
    return new Promise((resolve) => {
      execFile(command, [...args], { env: this.env, encoding: 'utf8', timeout: timeoutMs }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
      );
    });
  }

  async mustRun(command: string, args: readonly string[], timeoutMs = 60_000): Promise<string> {
    const result = await this.run(command, args, timeoutMs);
    if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code}\n${result.stdout}${result.stderr}`);
    return result.stdout;
  }

  async jobState(job: string): Promise<JobState> {
    const line = await this.mustRun('scontrol', ['show', 'job', '-o', job]);
    const field = (name: string): string => new RegExp(`(?:^|\\s)${name}=(\\S*)`).exec(line)?.[1] ?? '';
    return { state: field('JobState'), reason: field('Reason'), restarts: Number(field('Restarts')) };
  }

  /** Waits until the job has finished, and returns its final state; fails after `timeoutMs`, saying where it was. */
  async waitForJob(job: string, timeoutMs: number): Promise<JobState> {
    let last: JobState | undefined;
    await waitFor(
      async () => {
        last = await this.jobState(job);
        if (last.reason === 'DependencyNeverSatisfied') throw new Error(`job ${job} can never start: its dependency failed`);
        return FINISHED_STATES.has(last.state);
      },
      timeoutMs,
      () => `job ${job} to finish (last seen ${last?.state ?? 'nowhere'}, ${last?.reason ?? ''})`,
    );
    return last as JobState;
  }
}

/** Polls `ready` every 100 ms; throws after `timeoutMs`, naming what it waited for. */
export async function waitFor(ready: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The text of a file, or '' while it does not exist. */
export function readIfPresent(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}
