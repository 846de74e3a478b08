/**
 * The bytes the score cache stores for a batch of scored requests, and the keys it finds them by.
 *   record = sha256 of the request's model input (32 bytes) · loglik (float64, little-endian) · greedy (1 byte)
 * A batch's records are one SQLite BLOB with a MAC beside it: an HMAC under the user's cache key (cache-key.ts)
 * over the namespace it belongs to and the records. A cached number is served only when that MAC holds, so a
 * flipped byte in a loglik, a truncated blob, a row moved to another model's namespace, or a batch anyone but
 * its writer put there (the folder may be shared) is never read as a score.
 */
import { hash } from 'node:crypto';
import type { CacheKey } from './cache-key.js';
import type { LoglikelihoodResult } from '../eval/instance.js';
import type { ModelInput } from '../eval/request-encoding.js';

export const REQUEST_DIGEST_BYTES = 32;
export const RECORD_BYTES = REQUEST_DIGEST_BYTES + 8 + 1;

/**
 * What the model sees of a request: its (left-truncated) input ids and the ids it scores. Two requests with
 * the same digest get the same loglik from the same scorer, whatever their text, task or position.
 */
export function requestDigest(input: ModelInput): Buffer {
  const ids = new Int32Array(2 + input.inputTokens.length + input.continuationTokens.length);
  ids[0] = input.inputTokens.length;
  ids[1] = input.continuationTokens.length;
  ids.set(input.inputTokens, 2);
  ids.set(input.continuationTokens, 2 + input.inputTokens.length);
  // One-shot hashing: a third cheaper than createHash() for inputs this small (~134,000 per BLiMP run).
  return hash('sha256', new Uint8Array(ids.buffer), 'buffer');
}

/** A digest as a Map key: latin1 keeps one character per byte and costs no hex formatting. */
export function digestKey(digest: Uint8Array): string {
  return Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength).toString('latin1');
}

export interface ScoredRecord {
  readonly digest: Uint8Array;
  readonly result: LoglikelihoodResult;
}

export function encodeRecords(records: readonly ScoredRecord[]): Buffer {
  const bytes = Buffer.alloc(records.length * RECORD_BYTES);
  records.forEach((record, index) => {
    const offset = index * RECORD_BYTES;
    bytes.set(record.digest, offset);
    bytes.writeDoubleLE(record.result.loglik, offset + REQUEST_DIGEST_BYTES);
    bytes.writeUInt8(record.result.isGreedy ? 1 : 0, offset + REQUEST_DIGEST_BYTES + 8);
  });
  return bytes;
}

/** Undefined when the blob is not a whole number of well-formed records. */
export function decodeRecords(bytes: Uint8Array): ScoredRecord[] | undefined {
  if (bytes.length % RECORD_BYTES !== 0) return undefined;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: ScoredRecord[] = [];
  for (let offset = 0; offset < view.length; offset += RECORD_BYTES) {
    const greedy = view.readUInt8(offset + REQUEST_DIGEST_BYTES + 8);
    const loglik = view.readDoubleLE(offset + REQUEST_DIGEST_BYTES);
    // The scorer never returns NaN (it fails the run instead), and a flag is 0 or 1.
    if (greedy > 1 || Number.isNaN(loglik)) return undefined;
    records.push({ digest: view.subarray(offset, offset + REQUEST_DIGEST_BYTES), result: { loglik, isGreedy: greedy === 1 } });
  }
  return records;
}

/** The MAC stored beside a batch: binds its records to the namespace (model and scorer) and to the writer's key. */
export function batchMac(key: CacheKey, namespace: string, records: Uint8Array): Buffer {
  return key.mac('score batch', namespace, records);
}
