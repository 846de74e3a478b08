/** Runs a test-support TS script in a fresh node process (through tsx) and parses its last stdout line as JSON. */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const supportDir = path.dirname(fileURLToPath(import.meta.url));

export async function runSupportScript<T>(script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<T> {
  const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', tsxLoader, path.join(supportDir, script), ...args],
      { env: { ...process.env, ...env }, timeout: 120_000 },
      (error, out, err) => (error ? reject(new Error(`${script} failed: ${error.message}\n${err}`)) : resolve(out)),
    );
  });
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(last) as T;
}
