#!/usr/bin/env node
// A stand-in for `lean FILE` (or, named lake, `lake env lean FILE`) in the math-reasoning tests, where no Lean
// is installed. It "compiles" a file iff the file has no `sorry`; markers in the file pick the other paths:
//   SLEEP_FOREVER   hangs, for the timeout path;
//   FLOOD           prints a few megabytes before failing, for the output cap.
// Every run appends its argv (as JSON) to $FAKE_LEAN_LOG when that is set, so tests can see what was run.
import { appendFileSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (process.env.FAKE_LEAN_LOG) appendFileSync(process.env.FAKE_LEAN_LOG, `${JSON.stringify({ args, cwd: process.cwd() })}\n`);
const file = args.at(-1);
const source = readFileSync(file, 'utf8');
if (source.includes('SLEEP_FOREVER')) {
  setInterval(() => {}, 1000);
} else if (source.includes('FLOOD')) {
  process.stdout.write('noise\n'.repeat(500_000), () => process.exit(1));
} else if (source.includes('sorry')) {
  process.stderr.write(`${file}:1:0: warning: this line is not the error\n${file}:2:4: error: declaration uses 'sorry'\n`);
  process.exit(1);
} else {
  process.exit(0);
}
