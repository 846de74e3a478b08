/**
 * Tokenization through the disk cache: a hit returns the stored ids, a miss tokenizes (lm-eval's rules)
 * and stores them. A cache that cannot be written (read-only home, full disk) costs the cache, never the
 * run: the failure is reported through onLog and tokenization proceeds. A damaged entry (a MAC that fails:
 * damaged, or written by anyone but this user …) is never used: it is reported as a warning and rebuilt. Without
 * a usable cache key (cache-key.ts) or with a cache sub-folder that is a link, the token cache is off, with a
 * warning.
 */
import { isTokenWindow, type TextPair, type TokenWindowRequest } from '../eval/instance.js';
import type { TokenizedRequest } from '../engine/model-input.js';
import type { LanguageModel } from '../model/onnx-model.js';
import { tokenizeRequests } from '../eval/text-requests.js';
import { encodingVariant, type EncodingFacts } from '../eval/request-encoding.js';
import { DEFAULT_LM_EVAL_VERSION, type LmEvalVersion } from '../eval/lm-eval-version.js';
import { userCacheKey, type CacheKey } from './cache-key.js';
import { sweepStaleTemporaries } from './stale-temporaries.js';
import { readTokenCacheEntry, requestsFingerprint, tokenCacheFile, tokenEntryFolder, tokenizerFingerprint, writeTokenCache } from './token-cache.js';

export interface CachedTokenizeOptions {
  /** Folder of the cache; false turns caching off. */
  readonly cacheDir: string | false;
  readonly onLog?: (message: string) => void;
  /** Receives the warning that a damaged entry is being rebuilt; default onLog, else stderr. */
  readonly onWarning?: (message: string) => void;
  /** Whose tokenization rules the entry holds (default '0.4.4-0.4.8'); part of the key. */
  readonly lmEvalVersion?: LmEvalVersion;
}

export interface CachedTokens {
  readonly tokenized: TokenizedRequest[];
  readonly cacheHit: boolean;
  readonly tokenizeMs: number;
}

/** Text pairs to tokenize, and token windows that are already ids. */
type TextRequest = TextPair | TokenWindowRequest;

export interface TokenCacheEntry {
  /** The cached requests, when this run's tokenizer and requests were seen before. */
  readonly cached: TokenizedRequest[] | undefined;
  /** Stores a fresh tokenization under this entry's key (no-op when caching is off). */
  store(tokenized: readonly TokenizedRequest[]): void;
}

/**
 * What the cache key needs from a model: its tokenizer's hash, its prefix (BOS, else EOS) token, its backend
 * (default causal) and the side-file facts the encoding rules read (config.json's model_type).
 */
export type CacheKeyModel = Pick<LanguageModel, 'requireTokenizer' | 'prefixTokenId'> &
  Partial<Pick<LanguageModel, 'backend'>> & { readonly metadata: EncodingFacts };

export function openTokenCache(model: CacheKeyModel, requests: readonly TextRequest[], options: CachedTokenizeOptions): TokenCacheEntry {
  if (options.cacheDir === false) return { cached: undefined, store: () => undefined };
  const tokenizer = model.requireTokenizer();
  const lmEvalVersion = options.lmEvalVersion ?? DEFAULT_LM_EVAL_VERSION;
  // v0.4.4–v0.4.8 use the prefix only for an empty context; v0.4.13 also compares every text with its token text.
  const usesPrefix = lmEvalVersion === '0.4.13' || requests.some((request) => !isTokenWindow(request) && request.context === '');
  const prefixTokenId = usesPrefix ? model.prefixTokenId() : -1;
  const warn = options.onWarning ?? options.onLog ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
  const cacheDir = options.cacheDir;
  let key: CacheKey;
  let file: string;
  try {
    key = userCacheKey();
    const rulesKey = tokenizerFingerprint(tokenizer.sha256, lmEvalVersion, encodingVariant(lmEvalVersion, model.metadata, model.backend));
    file = tokenCacheFile(cacheDir, rulesKey, requestsFingerprint(requests), prefixTokenId, key);
    tokenEntryFolder(cacheDir, file, false);
  } catch (cause) {
    warn(`the token cache is off for this run: ${cause instanceof Error ? cause.message : String(cause)}`);
    return { cached: undefined, store: () => undefined };
  }
  sweepStaleTemporaries(cacheDir);
  const read = readTokenCacheEntry(file, requests.length, cacheDir, key);
  const cached = read.status === 'hit' ? read.requests : undefined;
  if (cached) options.onLog?.(`tokenized requests from the cache: ${file}`);
  if (read.status === 'corrupt') warn(`token cache entry ${file} is not used (${read.reason}); tokenizing again and replacing it`);
  return {
    cached,
    store(tokenized) {
      try {
        writeTokenCache(cacheDir, file, tokenized, key);
        options.onLog?.(`tokenized requests cached in ${file}`);
      } catch (cause) {
        options.onLog?.(`could not write the token cache ${file}: ${String(cause)}`);
      }
    },
  };
}

export function tokenizeWithCache(model: LanguageModel, requests: readonly TextRequest[], options: CachedTokenizeOptions): CachedTokens {
  const started = performance.now();
  const entry = openTokenCache(model, requests, options);
  if (entry.cached) return { tokenized: entry.cached, cacheHit: true, tokenizeMs: performance.now() - started };
  const tokenized = tokenizeRequests(model, requests, options.lmEvalVersion);
  entry.store(tokenized);
  return { tokenized, cacheHit: false, tokenizeMs: performance.now() - started };
}
