/**
 * The one reader for files that come from outside (see file-policy.ts for the rules and why). Each check is
 * made without blocking: the path is resolved (symlinks followed) and must stay inside the policy's root; it
 * is stat'ed, so a FIFO or device is refused before it is opened; it is then opened with O_NONBLOCK and
 * O_NOFOLLOW and the descriptor fstat'ed, so a FIFO or symlink swapped in after the first checks can neither
 * block nor redirect the read; and at most cap + 1 bytes are ever read, so a file that grows is caught too.
 * Messages name the file, its role and the rule, never the file's content.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { capOf, formatBytes, KIND_ERROR_CODES, type FilePolicy } from './file-policy.js';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | constants.O_NOFOLLOW;
const CHUNK_BYTES = 1024 * 1024;

/**
 * Whether anything exists at `file` (a dangling symlink or a FIFO included). Optional side files use this
 * instead of existsSync, which follows links: a config.json that links outside the folder must be refused
 * by readRegularFile, not silently skipped.
 */
export function pathEntryExists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Reads the whole file under the policy, or throws an MlrbError (the kind's code) naming the file and the rule. */
export function readRegularFile(file: string, policy: FilePolicy): Buffer {
  return withCheckedDescriptor(file, policy, (descriptor, size, cap, fail) => {
    // Taken before the read: a change while reading moves the ctime past it, so the digest is never reused.
    const identity = policy.kind === 'data' ? identityOf(descriptor) : undefined;
    const chunks: Buffer[] = [];
    let total = 0;
    // The first chunk holds the whole file as fstat saw it, plus one byte to notice growth without a copy.
    eachChunk(descriptor, Math.min(size, cap) + 1, cap, fail, (chunk) => {
      chunks.push(chunk);
      total += chunk.length;
    });
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
    if (identity !== undefined) dataDigests.set(identity, createHash('sha256').update(bytes).digest('hex'));
    return bytes;
  });
}

/**
 * sha256 of the file under the policy, read in 1 MB chunks so a file is never held whole (for fingerprints of
 * files that were parsed earlier: a FIFO or device swapped in since then fails instead of blocking). A data
 * file read whole since it last changed is not read again: its digest was taken from those bytes.
 */
export function sha256OfRegularFile(file: string, policy: FilePolicy): string {
  return withCheckedDescriptor(file, policy, (descriptor, _size, cap, fail) => {
    const remembered = policy.kind === 'data' ? dataDigests.get(identityOf(descriptor)) : undefined;
    if (remembered !== undefined) return remembered;
    const hash = createHash('sha256');
    eachChunk(descriptor, CHUNK_BYTES, cap, fail, (chunk) => hash.update(chunk));
    return hash.digest('hex');
  });
}

/**
 * Digests of data files read whole, by the identity of what was read. Any write to a file moves its ctime
 * (nanoseconds), which no user-space call can set back, so an identity that matches is the same content.
 */
const dataDigests = new Map<string, string>();

function identityOf(descriptor: number): string {
  const stats = fstatSync(descriptor, { bigint: true });
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

type Fail = (reason: string, cause?: unknown) => MlrbError;

/** Resolves, checks, opens and fstat's the file, then hands the descriptor to `use` and closes it. */
function withCheckedDescriptor<T>(file: string, policy: FilePolicy, use: (descriptor: number, size: number, cap: number, fail: Fail) => T): T {
  const absolute = path.resolve(file);
  const fail: Fail = (reason, cause) =>
    new MlrbError(KIND_ERROR_CODES[policy.kind], `${policy.what} ${reason}: ${absolute}`, { file: absolute }, cause === undefined ? undefined : { cause });
  const resolved = resolveInsideRoot(absolute, policy, fail);
  const cap = capOf(policy);
  checkStats(statOrFail(resolved, fail), cap, fail);
  let descriptor: number;
  try {
    descriptor = openSync(resolved, OPEN_FLAGS);
  } catch (cause) {
    // ELOOP: the path became a symlink after it was resolved.
    throw fail(errnoOf(cause) === 'ELOOP' ? 'was replaced by a symlink while being opened' : `cannot be opened (${errnoOf(cause) ?? 'error'})`, cause);
  }
  try {
    const stats = fstatSync(descriptor);
    checkStats(stats, cap, fail);
    return use(descriptor, stats.size, cap, fail);
  } finally {
    closeSync(descriptor);
  }
}

function resolveInsideRoot(absolute: string, policy: FilePolicy, fail: Fail): string {
  let resolved: string;
  try {
    resolved = realpathSync(absolute);
  } catch (cause) {
    if (errnoOf(cause) === 'ENOENT') throw fail(pathEntryExists(absolute) ? 'is a symlink to a file that does not exist' : 'not found', cause);
    throw fail(`cannot be resolved (${errnoOf(cause) ?? 'error'})`, cause);
  }
  const root = realRoot(policy.root);
  const relative = path.relative(root, resolved);
  const outside = relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  if (outside) throw fail(`resolves outside ${root} (only files inside that folder are read; is it a symlink?)`);
  return resolved;
}

function realRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}

function statOrFail(resolved: string, fail: Fail): Stats {
  try {
    return statSync(resolved);
  } catch (cause) {
    throw fail(`cannot be read (${errnoOf(cause) ?? 'error'})`, cause);
  }
}

function checkStats(stats: Stats, cap: number, fail: (reason: string) => MlrbError): void {
  if (!stats.isFile()) throw fail(`is not a regular file (it is ${describeNonRegular(stats)})`);
  if (stats.size > cap) throw fail(`is ${formatBytes(stats.size)}, over the ${formatBytes(cap)} limit for such a file`);
}

function describeNonRegular(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isDirectory()) return 'a directory';
  return 'not a plain file';
}

/** Reads to end of file in chunks, failing once more than `cap` bytes arrived (a file may grow past its fstat size). */
function eachChunk(descriptor: number, firstChunkBytes: number, cap: number, fail: Fail, take: (chunk: Buffer) => void): void {
  let total = 0;
  for (let want = firstChunkBytes; ; want = Math.min(CHUNK_BYTES, cap + 1 - total)) {
    const chunk = Buffer.allocUnsafe(want);
    let count: number;
    try {
      count = readSync(descriptor, chunk, 0, want, null);
    } catch (cause) {
      throw fail(`cannot be read (${errnoOf(cause) ?? 'error'})`, cause);
    }
    if (count === 0) return;
    total += count;
    if (total > cap) throw fail(`grew past the ${formatBytes(cap)} limit for such a file while being read`);
    take(count === want ? chunk : chunk.subarray(0, count));
  }
}

function errnoOf(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
