/**
 * Stand-ins for the commands the scale-out scripts call (mlrb-eval, scontrol), for testing those scripts where
 * no scheduler runs: each call appends its arguments to a record, one JSON line per call, and a call given
 * `--output FILE` writes FILE, as a finished mlrb-eval does. With $FAKE_ALSO_WRITE set, it writes that file too
 * (another run finishing the same shard meanwhile).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseEvalArgs, type EvalArgs } from '../../src/cli/eval-args.js';

export interface RecordingCommands {
  /** A PATH that finds the stand-ins first, then node, then the system's commands. */
  readonly path: string;
  /** Each call's arguments, oldest first. */
  calls(command: string): string[][];
}

export function installRecordingCommands(folder: string, commands: readonly string[]): RecordingCommands {
  const bin = path.join(folder, 'bin');
  mkdirSync(bin, { recursive: true });
  const record = (command: string): string => path.join(folder, `${command}.calls`);
  for (const command of commands) {
    const file = path.join(bin, command);
    writeFileSync(
      file,
      `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(record(command))}, JSON.stringify(args) + '\\n');
const output = args.indexOf('--output');
if (output >= 0) fs.writeFileSync(args[output + 1], JSON.stringify({ written_by: args }));
if (process.env.FAKE_ALSO_WRITE) fs.writeFileSync(process.env.FAKE_ALSO_WRITE, JSON.stringify({ written_by: 'another run' }));
`,
    );
    chmodSync(file, 0o755);
  }
  return {
    path: [bin, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter),
    calls: (command) => {
      const file = record(command);
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as string[]);
    },
  };
}

/** A recorded `mlrb-eval` call read back by the CLI's own parser: the options and outputs it would run with. */
export function evalArgsOf(call: readonly string[] | undefined): EvalArgs {
  const parsed = parseEvalArgs(call ?? []);
  if (parsed.help || parsed.list !== undefined) throw new Error(`not a scoring run: mlrb-eval ${(call ?? []).join(' ')}`);
  return parsed;
}
