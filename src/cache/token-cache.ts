/**
 * Tokenized requests cached on disk, so a second run over the same data with the same tokenizer pays no
 * tokenization. The key hashes the tokenizer files as loaded, the encoding rules' version, the lm-eval release
 * whose rules built the ids and the model facts that chose among them (so ids built by one set of rules never serve another) and the exact request texts (which pin the data files, the prompt template and the few-shot choice at once). One file per
 * key (token-cache-format.ts), MAC'd under the user's cache key (cache-key.ts), read under the file policy (a
 * regular file inside the cache folder, capped) and written atomically into checked folders (cache-folders.ts);
 * temporary files a crashed writer left behind are swept.
 */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import path from 'node:path';
import { isTokenWindow, type TextPair, type TokenWindowRequest } from '../eval/instance.js';
import type { TokenizedRequest } from '../engine/model-input.js';
import type { LmEvalVersion } from '../eval/lm-eval-version.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import { FILE_SIZE_CAPS, formatBytes } from '../io/file-policy.js';
import { pathEntryExists, readRegularFile } from '../io/regular-file.js';
import { cacheFolder, ensureCacheFolder, TOKENS_FOLDER } from './cache-folders.js';
import type { CacheKey } from './cache-key.js';
import { decodeEntry, encodeEntry, type DecodedEntry, type PayloadMac } from './token-cache-format.js';

/**
 * Bump when request-encoding.ts changes what ids a request gets. 2: an empty context is always the prefix token
 * under the v0.4.4–v0.4.8 rules (1 dropped it when the continuation began with it).
 */
const ENCODING_RULES_VERSION = 2;

/** $MLRB_CACHE_DIR, else $XDG_CACHE_HOME/mlrb-eval, else ~/.cache/mlrb-eval. */
export function defaultCacheDir(): string {
  if (process.env.MLRB_CACHE_DIR) return process.env.MLRB_CACHE_DIR;
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'mlrb-eval');
}

/**
 * `tokenizerSha256` is TextTokenizer.sha256: the bytes the tokenizer was built from, not a second read of its
 * files. `lmEvalVersion` names the release whose rules (lm-eval-version.ts) turned texts into ids, `variant` what
 * else in the model chose among them (request-encoding.ts encodingVariant: an encoder-decoder, a Gemma model).
 */
export function tokenizerFingerprint(tokenizerSha256: string, lmEvalVersion: LmEvalVersion, variant = ''): string {
  // The plain causal rules add nothing, so their keys stay as they were.
  const rulesVariant = variant === '' ? '' : `\n${variant}`;
  return createHash('sha256').update(`rules ${ENCODING_RULES_VERSION}\nlm-eval ${lmEvalVersion}${rulesVariant}\n${tokenizerSha256}`).digest('hex');
}

/**
 * Neighbouring requests (the choices of one question) share their context, which is hashed once. A token
 * window (a rolling document's piece) is already ids and is hashed as them, so an entry still covers every
 * request of the run in order.
 */
export function requestsFingerprint(requests: readonly (TextPair | TokenWindowRequest)[]): string {
  const hash = createHash('sha256');
  let previousContext: string | undefined;
  for (const request of requests) {
    if (isTokenWindow(request)) {
      const { contextTokens, continuationTokens } = request.tokens;
      hash.update(`\u0004${contextTokens.join(',')}\u0005${continuationTokens.join(',')}`);
      previousContext = undefined;
      continue;
    }
    hash.update(request.context === previousContext ? '\u0001' : `\u0002${request.context.length}:${request.context}`);
    hash.update(`\u0003${request.continuation.length}:${request.continuation}`);
    previousContext = request.context;
  }
  return hash.digest('hex');
}

/** The entry's file; the key's id is part of its name, so users sharing a folder never share an entry. */
export function tokenCacheFile(cacheDir: string, tokenizerKey: string, requestsKey: string, prefixTokenId: number, key: CacheKey): string {
  const name = createHash('sha256').update(`${tokenizerKey}\n${requestsKey}\n${prefixTokenId}\nwriter ${key.id}`).digest('hex');
  return path.join(cacheDir, TOKENS_FOLDER, `${name.slice(0, 2)}`, `${name}.bin`);
}

export type TokenCacheRead = DecodedEntry | { readonly status: 'absent' };

/** The MAC of an entry's payload, bound to its file name: an entry copied under another name does not verify. */
function entryMac(file: string, key: CacheKey): PayloadMac {
  const name = path.basename(file);
  return (payload) => key.mac('token-cache entry', name, payload);
}

/**
 * The entry at `file` (inside `cacheDir`), classified: a hit, absent, stale (another format or request count),
 * or corrupt with the reason (a MAC that fails, a FIFO or a link out of the cache, an oversized file).
 */
export function readTokenCacheEntry(file: string, count: number, cacheDir: string, key: CacheKey): TokenCacheRead {
  if (!pathEntryExists(file)) return { status: 'absent' };
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file, { kind: 'cache', root: cacheDir, what: 'token cache entry' });
  } catch (cause) {
    return { status: 'corrupt', reason: cause instanceof Error ? cause.message : String(cause) };
  }
  return decodeEntry(bytes, count, entryMac(file, key));
}

/** The cached requests, or undefined for anything but a sound entry of `count` requests. */
export function readTokenCache(file: string, count: number, key: CacheKey): TokenizedRequest[] | undefined {
  const entry = readTokenCacheEntry(file, count, path.dirname(file), key);
  return entry.status === 'hit' ? entry.requests : undefined;
}

/**
 * Writes the entry atomically into `<cacheDir>/tokens/<shard>/` after checking those folders (no link is
 * written through); one too large to read back is not written (it would only be refused later).
 */
export function writeTokenCache(cacheDir: string, file: string, requests: readonly TokenizedRequest[], key: CacheKey): void {
  const bytes = encodeEntry(requests, entryMac(file, key));
  if (bytes.length > FILE_SIZE_CAPS.cache) {
    throw new RangeError(`the entry would be ${formatBytes(bytes.length)}, over the ${formatBytes(FILE_SIZE_CAPS.cache)} a cache entry may hold`);
  }
  const folder = tokenEntryFolder(cacheDir, file, true) as string;
  writeFileAtomic(path.join(folder, path.basename(file)), bytes);
}

/**
 * The folder of an entry's file, each folder from the cache root down checked to be a real folder (created
 * when `create`); undefined when one is missing. A CacheFolderError when one is a link.
 */
export function tokenEntryFolder(cacheDir: string, file: string, create: boolean): string | undefined {
  const parts = path.relative(path.resolve(cacheDir), path.dirname(path.resolve(file))).split(path.sep);
  if (parts.some((part) => part === '..' || part === '' || path.isAbsolute(part))) throw new RangeError(`${file} is not inside the cache folder ${cacheDir}`);
  return create ? ensureCacheFolder(cacheDir, parts) : cacheFolder(cacheDir, parts, false);
}
