/**
 * A process that holds a score-cache lock until a signal ends it: acquires the lock at LOCK-FILE, prints
 * `held`, and waits. With `own-handler` it also has a SIGINT handler of its own, which prints `own handler`
 * and exits 0, as a program embedding the library might.
 * Usage: cache-lock-holder-child.ts LOCK-FILE [own-handler]
 */
import { acquireCacheLock } from '../../src/cache/cache-lock.js';

const [lockFile = '', mode] = process.argv.slice(2);
const attempt = acquireCacheLock(lockFile);
if (!attempt.acquired) throw new Error(`lock ${lockFile} is held by another process`);
if (mode === 'own-handler') {
  process.on('SIGINT', () => {
    process.stdout.write('own handler\n');
    process.exit(0);
  });
}
process.stdout.write('held\n');
setInterval(() => undefined, 60_000);
