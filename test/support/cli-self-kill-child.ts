/**
 * A `kill -9` in the middle of a CLI run, at a point that does not depend on the machine's speed: runs the
 * CLI's main() and, once a progress line reports at least KILL_AT_PERCENT of the work, prints that line
 * (synchronously, so it is not lost) and SIGKILLs its own process. Nothing after that point runs: no finally
 * block, no cache close, no exit handler, as with a real kill -9.
 * Usage: cli-self-kill-child.ts KILL_AT_PERCENT CLI-ARGS…
 */
import { writeSync } from 'node:fs';
import { main } from '../../src/cli/main.js';

const [killAt = '50', ...args] = process.argv.slice(2);
const threshold = Number(killAt);
const stderr = {
  write(chunk: string): boolean {
    const percent = /^\[[^\]]+\] (\d+)% · ([\d,]+)\//.exec(chunk);
    if (percent && Number(percent[1]) >= threshold && Number(percent[1]) < 100) {
      writeSync(1, `${JSON.stringify({ percent: Number(percent[1]), requestsDone: Number((percent[2] ?? '').replaceAll(',', '')) })}\n`);
      process.kill(process.pid, 'SIGKILL');
    }
    return true;
  },
} as unknown as NodeJS.WritableStream;
const sink = { write: () => true } as unknown as NodeJS.WritableStream;
process.exitCode = await main(args, { stdout: sink, stderr });
