/**
 * Runs operations on hostile inputs in a fresh node process with a hard time limit (hostile-child.ts), so a
 * regression shows as a failed test ("timed out") instead of a test worker blocked on a FIFO forever.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EvaluateOptions } from '../../src/run/evaluate-options.js';
import type { FilePolicy } from '../../src/io/file-policy.js';
import type { SuiteLoadOptions } from '../../src/tasks/types.js';

export type HostileOperation =
  | { readonly op: 'readRegularFile' | 'sha256OfRegularFile'; readonly file: string; readonly policy: FilePolicy }
  | { readonly op: 'loadSuite'; readonly name: string; readonly options: SuiteLoadOptions }
  | { readonly op: 'readModelMetadata'; readonly dir: string }
  | { readonly op: 'loadTokenizer'; readonly file: string }
  | { readonly op: 'evaluate'; readonly options: EvaluateOptions }
  /** main(args) in process; the outcome is never ok: its exitCode and message (stderr) are what a user sees. */
  | { readonly op: 'cli'; readonly args: readonly string[] };

export type HostileOutcome =
  | { readonly ok: true; readonly value: string; readonly ms: number }
  | { readonly ok: false; readonly code?: string; readonly exitCode?: number; readonly name: string; readonly message: string; readonly ms: number };

const childScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'hostile-child.ts');

export async function runHostile(operations: readonly HostileOperation[], timeoutMs = 60_000): Promise<HostileOutcome[]> {
  const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', tsxLoader, childScript, JSON.stringify(operations)],
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
      (error, out, err) => (error ? reject(new Error(`hostile-child did not finish (${error.message})\n${err}`)) : resolve(out)),
    );
  });
  const outcomes = JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as HostileOutcome[];
  if (outcomes.length !== operations.length) throw new Error(`hostile-child answered ${outcomes.length} of ${operations.length} operations`);
  return outcomes;
}
