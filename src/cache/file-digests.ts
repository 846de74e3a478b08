/**
 * sha256 of big files (models, their external weights), remembered between runs. Hashing a 6 GB model takes
 * seconds; the score cache needs the hash before it can say what is already scored, so a rerun must not pay
 * it again. An entry is trusted only while the file's identity is unchanged: device, inode, size, and the
 * modification and status-change times in nanoseconds (ctime cannot be set back by a tool that restores
 * mtime, so an in-place rewrite of the same size is still noticed). Entries are small JSON files under
 * `<cache>/file-hashes/`, written atomically; one that cannot be read or written costs a rehash, never the run.
 */
import { createHash } from 'node:crypto';
import { statSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { sha256File } from '../eval/fingerprint.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import { pathEntryExists, readRegularFile } from '../io/regular-file.js';

const ENTRY_BYTES_CAP = 4096;

interface DigestEntry {
  readonly path: string;
  readonly identity: string;
  readonly sha256: string;
}

const inProcess = new Map<string, Promise<string>>();

/** The file's sha256; `cacheDir` false hashes without remembering across runs. */
export async function rememberedSha256(file: string, cacheDir: string | false): Promise<string> {
  const resolved = path.resolve(file);
  const identity = fileIdentity(resolved);
  const memoKey = `${resolved}\n${identity}`;
  let digest = inProcess.get(memoKey);
  if (digest === undefined) {
    digest = cacheDir === false ? sha256File(resolved) : hashThroughCache(resolved, identity, cacheDir);
    inProcess.set(memoKey, digest);
    // A failed hash must not be remembered.
    digest.catch(() => inProcess.delete(memoKey));
  }
  return await digest;
}

async function hashThroughCache(file: string, identity: string, cacheDir: string): Promise<string> {
  const entryFile = path.join(cacheDir, 'file-hashes', `${createHash('sha256').update(file).digest('hex')}.json`);
  const known = readEntry(entryFile, cacheDir);
  if (known?.path === file && known.identity === identity) return known.sha256;
  const sha256 = await sha256File(file);
  // A file that changed while it was read has no trustworthy hash to remember.
  if (fileIdentity(file) === identity) {
    try {
      writeFileAtomic(entryFile, JSON.stringify({ path: file, identity, sha256 } satisfies DigestEntry));
    } catch {
      // An unwritable cache only means hashing again next time.
    }
  }
  return sha256;
}

function fileIdentity(file: string): string {
  const stats: BigIntStats = statSync(file, { bigint: true });
  return [stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join(':');
}

function readEntry(entryFile: string, cacheDir: string): DigestEntry | undefined {
  if (!pathEntryExists(entryFile)) return undefined;
  try {
    const value = JSON.parse(readRegularFile(entryFile, { kind: 'cache', root: cacheDir, what: 'file hash entry', maxBytes: ENTRY_BYTES_CAP }).toString('utf8')) as Partial<DigestEntry>;
    const valid = typeof value.path === 'string' && typeof value.identity === 'string' && typeof value.sha256 === 'string' && /^[0-9a-f]{64}$/.test(value.sha256);
    return valid ? (value as DigestEntry) : undefined;
  } catch {
    return undefined;
  }
}
