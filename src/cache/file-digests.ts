/**
 * sha256 of big files (models, their external weights), remembered between runs. Hashing a 6 GB model takes
 * seconds; the score cache needs the hash before it can say what is already scored, so a rerun must not pay
 * it again. An entry is trusted only while the file's identity is unchanged: device, inode, size, and the
 * modification and status-change times in nanoseconds (ctime cannot be set back by a tool that restores
 * mtime, so an in-place rewrite of the same size is still noticed). Entries are small JSON files under
 * `<cache>/file-hashes/`, written atomically; one that cannot be read or written costs a rehash, never the run.
 *
 * An entry decides which model a score belongs to, so it is taken only from its writer: it carries an HMAC
 * under the user's cache key (cache-key.ts), and its file name holds the key's id. An entry planted by anyone
 * else (model B given model A's digest, to be reported with A's score) fails the MAC: the file is hashed and
 * the caller warned. Without a usable key nothing is remembered: every run hashes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { statSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { sha256File } from '../io/fingerprint.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import { parseBoundedJson } from '../io/bounded-json.js';
import { pathEntryExists, readRegularFile } from '../io/regular-file.js';
import { cacheFolder, ensureCacheFolder, FILE_HASHES_FOLDER } from './cache-folders.js';
import { userCacheKey, type CacheKey } from './cache-key.js';

const ENTRY_BYTES_CAP = 4096;
/** Bump with any change to an entry's fields; entries of other versions are rehashed without a warning. */
const ENTRY_VERSION = 2;

interface DigestEntry {
  readonly version: number;
  readonly path: string;
  readonly identity: string;
  readonly sha256: string;
  /** Hex HMAC over the other fields (entryMac). */
  readonly mac: string;
}

export interface RememberOptions {
  /** Receives the warning that an entry failed its MAC (or the cache's key or folder cannot be used). */
  readonly onWarning?: ((message: string) => void) | undefined;
}

const inProcess = new Map<string, Promise<string>>();

/** The file's sha256; `cacheDir` false hashes without remembering across runs. */
export async function rememberedSha256(file: string, cacheDir: string | false, options: RememberOptions = {}): Promise<string> {
  const resolved = path.resolve(file);
  const identity = fileIdentity(resolved);
  const memoKey = `${resolved}\n${identity}`;
  let digest = inProcess.get(memoKey);
  if (digest === undefined) {
    digest = cacheDir === false ? sha256File(resolved) : hashThroughCache(resolved, identity, cacheDir, options);
    inProcess.set(memoKey, digest);
    // A failed hash must not be remembered.
    digest.catch(() => inProcess.delete(memoKey));
  }
  return await digest;
}

async function hashThroughCache(file: string, identity: string, cacheDir: string, options: RememberOptions): Promise<string> {
  const warn = options.onWarning ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
  let key: CacheKey;
  try {
    key = userCacheKey();
  } catch (cause) {
    warn(`file hashes are not remembered in this run: ${describe(cause)}`);
    return await sha256File(file);
  }
  const entryFile = path.join(cacheDir, FILE_HASHES_FOLDER, `${createHash('sha256').update(`${key.id}\n${file}`).digest('hex')}.json`);
  const known = readEntry(entryFile, file, cacheDir, key, warn);
  if (known?.path === file && known.identity === identity) return known.sha256;
  const sha256 = await sha256File(file);
  // A file that changed while it was read has no trustworthy hash to remember.
  if (fileIdentity(file) === identity) {
    try {
      const fields = { version: ENTRY_VERSION, path: file, identity, sha256 };
      const folder = ensureCacheFolder(cacheDir, [FILE_HASHES_FOLDER]);
      writeFileAtomic(path.join(folder, path.basename(entryFile)), JSON.stringify({ ...fields, mac: entryMac(key, fields) } satisfies DigestEntry));
    } catch {
      // An unwritable cache only means hashing again next time.
    }
  }
  return sha256;
}

function entryMac(key: CacheKey, entry: Omit<DigestEntry, 'mac'>): string {
  return key.mac('file hash entry', String(entry.version), entry.path, entry.identity, entry.sha256).toString('hex');
}

function fileIdentity(file: string): string {
  const stats: BigIntStats = statSync(file, { bigint: true });
  return [stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join(':');
}

/** The entry when it is sound and this user's; undefined otherwise (warned when its MAC fails). */
function readEntry(entryFile: string, file: string, cacheDir: string, key: CacheKey, warn: (message: string) => void): DigestEntry | undefined {
  try {
    // A folder that is a link is never read through: the entry is then simply not known.
    if (cacheFolder(cacheDir, [FILE_HASHES_FOLDER], false) === undefined || !pathEntryExists(entryFile)) return undefined;
    const text = readRegularFile(entryFile, { kind: 'cache', root: cacheDir, what: 'file hash entry', maxBytes: ENTRY_BYTES_CAP }).toString('utf8');
    const value = parseBoundedJson(text, () => new Error('not an entry')) as Partial<DigestEntry> | null;
    if (typeof value !== 'object' || value === null) return undefined;
    if (value.version !== ENTRY_VERSION) return undefined;
    const valid =
      typeof value.path === 'string' && typeof value.identity === 'string' && typeof value.sha256 === 'string' && /^[0-9a-f]{64}$/.test(value.sha256);
    if (!valid) return undefined;
    const entry = value as DigestEntry;
    const expected = Buffer.from(entryMac(key, entry), 'hex');
    const given = Buffer.from(typeof entry.mac === 'string' ? entry.mac : '', 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      warn(`file hash entry ${entryFile} is not used: its MAC does not match (damaged, or not written by this user); hashing ${file} instead`);
      return undefined;
    }
    return entry;
  } catch {
    return undefined;
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
