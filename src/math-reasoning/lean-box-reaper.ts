/**
 * The `subreaper` box's helper process (lean-box.ts): made child subreaper, so every process the compiler leaves
 * behind (a child that called setsid(), one still running after the compiler exited) is reparented to it rather
 * than to init; once the compiler exits, or when the box tells it to stop (SIGTERM at the time limit), it kills
 * every process it holds, again until none is left, and exits with the compiler's status.
 *   node lean-box-reaper.js '{"executable": …, "args": […]}'   runs the compiler so
 *   node lean-box-reaper.js --probe                            exits 0 when it can be a subreaper here
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { loadBinding } from '../native/binding.js';

/** Rounds of killing before giving up on a tree that keeps forking (each round kills all it finds). */
const MAX_ROUNDS = 500;
const ROUND_PAUSE_MS = 10;

const request = process.argv[2] ?? '';
if (!loadBinding().becomeChildSubreaper()) {
  process.stderr.write('mlrb-eval: this host does not let a process become a child subreaper\n');
  process.exit(125);
}
if (request === '--probe') process.exit(0);

const { executable, args } = JSON.parse(request) as { executable: string; args: string[] };
const compiler = spawn(executable, args, { stdio: ['ignore', 'inherit', 'inherit'], shell: false });
let ending = false;

compiler.on('error', (error) => {
  process.stderr.write(`cannot run ${executable}: ${error.message}\n`);
  endAll(127);
});
compiler.on('exit', (code, signal) => endAll(code ?? 128 + signalNumber(signal)));
process.on('SIGTERM', () => {
  compiler.kill('SIGKILL');
  endAll(128 + 15);
});

function endAll(status: number): void {
  if (ending) return;
  ending = true;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const living = livingChildren();
    if (living.length === 0) break;
    for (const pid of living) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ROUND_PAUSE_MS);
  }
  // Killed children stay zombies until this process exits; init reaps them then.
  process.exit(status);
}

/** Processes whose parent is this one and that have not exited (zombies are dead already). */
function livingChildren(): number[] {
  const children: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the command name (which may hold spaces and parentheses): state, then the parent's pid.
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(parent) === process.pid && state !== 'Z' && state !== 'X') children.push(Number(name));
  }
  return children;
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === null ? 0 : constants.signals[signal];
}
