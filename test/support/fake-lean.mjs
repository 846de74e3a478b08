#!/usr/bin/env node
// A stand-in for `lean FILE` (or, named lake, `lake env lean FILE`) in the math-reasoning tests, where no Lean
// is installed. It "compiles" a file iff the file has no `sorry`; markers in the file pick the other paths:
//   SLEEP_FOREVER   hangs, for the timeout path;
//   FLOOD           prints a few megabytes before failing, for the output cap;
//   LEAVE_CHILDREN  starts two children that outlive it, one in its process group and one that called setsid()
//                   (holding its stdout open); each appends a line to fake-lean-heartbeats in its working folder
//                   every 50 ms (and ends itself after 30 s); their pids go to fake-lean-children. Then it
//                   compiles, or with SLEEP_FOREVER hangs.
// Every run appends what it saw (argv, working folder, environment variable names, TMPDIR, network interfaces) as
// a JSON line to fake-lean.log in its working folder (the Lean project) when a test has created that file: the
// box passes no environment variable that could name a log.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';

const args = process.argv.slice(2);
const seen = {
  args,
  cwd: process.cwd(),
  env: Object.keys(process.env).sort(),
  tmpdir: process.env.TMPDIR ?? null,
  interfaces: Object.keys(networkInterfaces()).sort(),
};
if (existsSync('fake-lean.log')) appendFileSync('fake-lean.log', `${JSON.stringify(seen)}\n`);
const file = args.at(-1);
const source = readFileSync(file, 'utf8');
if (source.includes('LEAVE_CHILDREN')) {
  const heartbeat =
    "const { appendFileSync } = require('node:fs'); setInterval(() => appendFileSync('fake-lean-heartbeats', process.pid + '\\n'), 50); setTimeout(() => process.exit(), 30000);";
  const sleeper = ['-e', heartbeat];
  const inGroup = spawn(process.execPath, sleeper, { stdio: 'ignore' });
  const detached = spawn(process.execPath, sleeper, { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
  appendFileSync('fake-lean-children', `${inGroup.pid}\n${detached.pid}\n`);
  inGroup.unref();
  detached.unref();
  // Both are running before the compile goes on: a heartbeat from each.
  const beating = () =>
    existsSync('fake-lean-heartbeats') &&
    [inGroup.pid, detached.pid].every((pid) => readFileSync('fake-lean-heartbeats', 'utf8').split('\n').includes(String(pid)));
  for (let waited = 0; !beating() && waited < 10_000; waited += 20) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
}
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
