/** Runs the CLI's main() in-process with captured stdout / stderr. */
import { main, type CliServices } from '../../src/cli/main.js';

export async function runCli(args: readonly string[], services?: CliServices): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (chunk: string) => void) => ({ write: (chunk: string) => (append(chunk), true) }) as unknown as NodeJS.WritableStream;
  const code = await main(args, { stdout: sink((chunk) => (stdout += chunk)), stderr: sink((chunk) => (stderr += chunk)) }, services);
  return { code, stdout, stderr };
}
