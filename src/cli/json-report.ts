/**
 * How the report commands (mlrb, model-metrics, math-reasoning) hand over their JSON: to stdout, or written
 * atomically to --output with a line on stderr saying where (stdout then stays empty, so it can be piped).
 */
import path from 'node:path';
import { writeResultOutput } from '../io/result-output.js';
import type { CliIo } from './exit-error.js';

/** `what` names the object in the stderr line ("run record", "report" …). */
export function emitJsonReport(io: CliIo, report: unknown, output: string | undefined, what: string): void {
  const json = `${JSON.stringify(report, null, 2)}\n`;
  if (output === undefined) {
    io.stdout.write(json);
    return;
  }
  writeResultOutput(output, json, '--output');
  io.stderr.write(`${what} written to ${path.resolve(output)}\n`);
}
