/** One timed run of a tool as a user starts it: a fresh process, timed from spawn to exit. */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';

export interface WholeCommandRun {
  /** Process start to exit: runtime start-up, imports, model load, data, tokenizing, scoring, output. */
  readonly wallSeconds: number;
  /** The tool's own scoring time, tokenization included (both tools tokenize inside their scoring call). */
  readonly scoringSeconds: number;
  /** The tool's model load as it reports it, if it does. */
  readonly loadSeconds?: number;
  /** High-water mark of the process's resident memory, as the process itself reports it at the end. */
  readonly peakRssMb: number;
  /** One loglik per request of the workload, in its order. */
  readonly logliks: readonly number[];
}

export class WholeCommandError extends Error {
  constructor(
    readonly command: string,
    readonly status: number | null,
    readonly stderrTail: string,
  ) {
    super(`${command} exited with ${status ?? 'a signal'}:\n${stderrTail}`);
    this.name = 'WholeCommandError';
  }

  /** One line for a report: the exit status and the first line of stderr that names an error. */
  get summary(): string {
    const lines = this.stderrTail
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    const reason = lines.find((line) => /error/i.test(line)) ?? lines.at(-1) ?? 'no stderr';
    return `exited with ${this.status ?? 'a signal'}: ${reason.slice(0, 300)}`;
  }
}

/** Runs `file args…` to completion; throws WholeCommandError with the end of its stderr unless it exits 0. */
export function timedSpawn(file: string, args: readonly string[], options: SpawnSyncOptions = {}): { seconds: number; stdout: string } {
  const started = performance.now();
  const result = spawnSync(file, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) {
    throw new WholeCommandError([file, ...args].join(' '), result.status, String(result.stderr ?? result.error ?? '').slice(-4000));
  }
  return { seconds, stdout: String(result.stdout) };
}

/** Key of a request in either tool's output: the exact (context, continuation) pair. */
export const requestKey = (context: string, continuation: string): string => `${context}\u0000${continuation}`;
