/**
 * The per-user secret every checksum in the cache is keyed with (HMAC-SHA256). A cache folder may be shared
 * between users and hosts (`--use-cache DIR` on a cluster file system), and a plain checksum can be computed by
 * anyone who can write the folder: a stored log-likelihood, a token id or a remembered model hash could be
 * rewritten with a checksum that holds. Keyed, an entry verifies only for the user who wrote it, so anything
 * another user (or a copied-in folder) put there is never served.
 *
 * Why a key rather than refusing a folder that others can write: sharing the folder is the point of
 * `--use-cache` on a cluster, and ownership and modes say nothing about files that were copied in or
 * unpacked by the owner; a key proves the writer held the secret, whoever owns the file. Each user's entries are
 * kept apart by the key's id (in file names and namespaces), so users sharing a folder never overwrite or
 * drop each other's entries as damaged.
 *
 * The secret is 32 random bytes in `$XDG_STATE_HOME/mlrb-eval/cache-key` (default `~/.local/state/…`), created
 * exclusively with mode 0600 in a 0700 folder. A key file that is a link, is not a regular file, belongs to
 * another user or can be read by others is refused (the caches are then off for the run, with the reason).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

const SECRET_BYTES = 32;
const CREATION_WAIT_TRIES = 20;
const CREATION_WAIT_MS = 50;

/** $XDG_STATE_HOME/mlrb-eval/cache-key, else ~/.local/state/mlrb-eval/cache-key. */
export function cacheKeyFile(): string {
  const stateHome = process.env.XDG_STATE_HOME || path.join(homedir(), '.local', 'state');
  return path.join(stateHome, 'mlrb-eval', 'cache-key');
}

export class CacheKey {
  /** Names this key's entries (16 hex digits); derived from the secret, which it does not reveal. */
  readonly id: string;

  constructor(private readonly secret: Buffer) {
    this.id = createHash('sha256').update(this.mac('key id')).digest('hex').slice(0, 16);
  }

  /**
   * HMAC-SHA256 over a purpose and parts, each length-prefixed, so no two different lists of parts (or
   * purposes) share a message.
   */
  mac(purpose: string, ...parts: readonly (string | Uint8Array)[]): Buffer {
    const hmac = createHmac('sha256', this.secret);
    for (const part of [purpose, ...parts]) {
      const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
      hmac.update(`${bytes.length}:`).update(bytes);
    }
    return hmac.digest();
  }
}

const keys = new Map<string, CacheKey>();

/** The user's key, created on first use; throws an Error saying why it cannot be used. */
export function userCacheKey(): CacheKey {
  const file = cacheKeyFile();
  let key = keys.get(file);
  if (key === undefined) {
    key = new CacheKey(readOrCreateSecret(file));
    keys.set(file, key);
  }
  return key;
}

function readOrCreateSecret(file: string): Buffer {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    const descriptor = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      const secret = randomBytes(SECRET_BYTES);
      writeSync(descriptor, secret.toString('hex'));
      return secret;
    } finally {
      closeSync(descriptor);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`cannot create the cache key ${file}: ${describe(error)}`);
  }
  // Another process may have created it a moment ago and not yet written it: an empty key is waited for briefly.
  for (let attempt = 0; ; attempt += 1) {
    const secret = readSecret(file, attempt < CREATION_WAIT_TRIES);
    if (secret !== undefined) return secret;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, CREATION_WAIT_MS);
  }
}

/** Undefined for an empty file while `waitIfEmpty`: its creator may still be writing it. */
function readSecret(file: string, waitIfEmpty: boolean): Buffer | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw new Error(`cannot read the cache key ${file}: ${describe(error)}`);
  }
  try {
    const stats = fstatSync(descriptor);
    const ownUid = process.getuid?.();
    if (!stats.isFile()) throw new Error(`the cache key ${file} is not a regular file`);
    if (ownUid !== undefined && stats.uid !== ownUid) throw new Error(`the cache key ${file} belongs to another user (uid ${stats.uid})`);
    if ((stats.mode & 0o077) !== 0)
      throw new Error(`the cache key ${file} can be read or written by others (mode ${(stats.mode & 0o777).toString(8)}); make it 0600`);
    const text = Buffer.alloc(2 * SECRET_BYTES + 1);
    const length = readSync(descriptor, text, 0, text.length, 0);
    if (length === 0 && waitIfEmpty) return undefined;
    const hex = text.toString('latin1', 0, length);
    // A writer that died between creating and writing the file leaves it empty: that is for the user to remove.
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`the cache key ${file} is damaged (remove it: a new key only means a cold cache)`);
    return Buffer.from(hex, 'hex');
  } finally {
    closeSync(descriptor);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
