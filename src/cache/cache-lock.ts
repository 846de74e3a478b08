/**
 * One process at a time per score-cache file. The SQLite build used here (node-sqlite3-wasm) takes no file
 * locks, so two processes writing one database would corrupt it, and a reader could see a writer's half-done
 * pages. A lock file beside the database, created exclusively ('wx'), names its holder (pid, host and the
 * process's start time, so a recycled pid is not mistaken for the holder).
 *
 * A lock whose holder is gone (kill -9, a crash) is taken over: it is renamed aside (atomic), and the renamed
 * file is checked to be the one judged stale before it is removed, so two processes taking over at once
 * cannot delete each other's fresh lock. A holder also checks before every write that the lock is still its
 * own. A lock held by a live process, or by one on another host (whose liveness cannot be seen from here),
 * means the cache is busy; the caller goes without it. So a process ended by a signal it can catch (Ctrl-C,
 * a scheduler's SIGTERM at a time limit or eviction) releases its locks first: a run resumed on another node
 * of a cluster sharing the cache folder would otherwise go without the cache until someone removed the lock.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { parseBoundedJson } from '../io/bounded-json.js';
import { readRegularFile } from '../io/regular-file.js';

/** A lock's JSON is ~150 bytes; anything far larger is not a lock. */
const LOCK_BYTES_CAP = 4096;
/** A lock file with no readable owner this long after it was created is debris, not a writer mid-write. */
const UNREADABLE_LOCK_GRACE_MS = 10_000;

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** /proc's start time of the holder (clock ticks since boot), where /proc exists. */
  readonly started: string | null;
  readonly token: string;
}

export type LockAttempt =
  | { readonly acquired: true; readonly lock: CacheLock }
  | { readonly acquired: false; readonly file: string; readonly owner: LockOwner | undefined };

export class CacheLock {
  constructor(
    readonly file: string,
    private readonly content: string,
  ) {
    holdUntilSignal(this);
  }

  /** False once another process took the lock over (ours was judged stale, or removed by hand). */
  stillHeld(): boolean {
    return readText(this.file) === this.content;
  }

  release(): void {
    if (this.stillHeld()) rmSync(this.file, { force: true });
    letGoOnSignal(this);
  }
}

/** The signals that end a process by default and can be caught; SIGKILL cannot, and is what takeover is for. */
const RELEASING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const heldLocks = new Set<CacheLock>();

function holdUntilSignal(lock: CacheLock): void {
  if (heldLocks.size === 0) for (const signal of RELEASING_SIGNALS) process.on(signal, releaseAllOnSignal);
  heldLocks.add(lock);
}

function letGoOnSignal(lock: CacheLock): void {
  if (!heldLocks.delete(lock) || heldLocks.size > 0) return;
  for (const signal of RELEASING_SIGNALS) process.off(signal, releaseAllOnSignal);
}

/**
 * Releases every lock, then raises the signal again so that the process ends as it would have without this
 * handler (killed by that signal), unless the program has a handler of its own, whose choice that is: a
 * holder that goes on running sees at its next write that it lost the lock, and stops writing.
 */
function releaseAllOnSignal(signal: NodeJS.Signals): void {
  for (const lock of [...heldLocks]) lock.release();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

export function acquireCacheLock(file: string): LockAttempt {
  const owner: LockOwner = { pid: process.pid, host: hostname(), started: processStartTime(process.pid), token: randomBytes(8).toString('hex') };
  const content = JSON.stringify(owner);
  // Two tries: the second follows the takeover of a stale lock.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (createExclusive(file, content)) return { acquired: true, lock: new CacheLock(file, content) };
    const seen = readText(file);
    if (seen === undefined) continue; // released meanwhile
    const holder = parseOwner(seen);
    if (!isStale(file, holder) || !takeOver(file, seen)) return { acquired: false, file, owner: holder };
  }
  return { acquired: false, file, owner: parseOwner(readText(file) ?? '') };
}

function createExclusive(file: string, content: string): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(file, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(descriptor, content);
  } finally {
    closeSync(descriptor);
  }
  return true;
}

function isStale(file: string, holder: LockOwner | undefined): boolean {
  if (holder === undefined) {
    const createdMs = statOrUndefined(file)?.mtimeMs;
    return createdMs !== undefined && Date.now() - createdMs > UNREADABLE_LOCK_GRACE_MS;
  }
  if (holder.host !== hostname()) return false;
  return !isAlive(holder);
}

function isAlive(holder: LockOwner): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  // The pid is in use (or not ours to signal): the holder only if it is the same process, where that can be told.
  const started = processStartTime(holder.pid);
  return holder.started === null || started === null || started === holder.started;
}

/** Moves the stale lock aside and removes it, unless what was moved is not the lock judged stale. */
function takeOver(file: string, staleContent: string): boolean {
  const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(file, aside);
  } catch {
    return true; // gone already: try to create it again
  }
  if (readText(aside) === staleContent) {
    rmSync(aside, { force: true });
    return true;
  }
  // Another process replaced the stale lock with its own in between: put it back unless a third one exists.
  try {
    linkSync(aside, file);
  } catch {
    // A newer lock is in place; the moved one's holder will see it lost the lock at its next write.
  }
  rmSync(aside, { force: true });
  return false;
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = parseBoundedJson(text, () => new Error('not a lock')) as Partial<LockOwner> | null;
    if (typeof value !== 'object' || value === null) return undefined;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.token !== 'string') return undefined;
    return { pid: value.pid, host: value.host, started: typeof value.started === 'string' ? value.started : null, token: value.token };
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat; null where /proc is absent. */
function processStartTime(pid: number): string | null {
  const stat = readProcFile(`/proc/${pid}/stat`);
  if (stat === undefined) return null;
  // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

/**
 * A lock file's text, read as any file of a folder others may write: a regular file (no FIFO to block on, no
 * link to follow) of at most LOCK_BYTES_CAP bytes; undefined for anything else.
 */
function readText(file: string): string | undefined {
  try {
    return readRegularFile(file, { kind: 'cache', root: path.dirname(file), what: 'cache lock', maxBytes: LOCK_BYTES_CAP }).toString('utf8');
  } catch {
    return undefined;
  }
}

function readProcFile(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}
