/**
 * How the report commands (mlrb, model-metrics, math-reasoning) hand over their JSON: to stdout, or written
 * atomically to --output with a note on stderr saying where (stdout then stays empty, so it can be piped).
 */
import path from 'node:path';
import { writeResultOutput } from '../io/result-output.js';
import type { CliIo } from './exit-error.js';

/** `what` names the object in the line `note` is given ("run record", "report" …; silent under --quiet). */
export function emitJsonReport(io: CliIo, report: unknown, output: string | undefined, what: string, note: (line: string) => void): void {
  const json = `${JSON.stringify(report, null, 2)}\n`;
  if (output === undefined) {
    io.stdout.write(json);
    return;
  }
  writeResultOutput(output, json, '--output');
  note(`${what} written to ${path.resolve(output)}`);
}
