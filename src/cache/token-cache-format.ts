/**
 * The bytes of one token-cache entry, in the host's byte order (little-endian on every platform we build for):
 *   "MLRBTOK3" · int32 count · MAC of the payload (32 bytes) · payload
 *   payload = count × (int32 contextLength, int32 continuationLength), then every id as int32
 * The MAC is what makes a cached id trustworthy: a flipped byte in an id would otherwise be scored silently (the
 * ids are still ids), and a plain checksum could be recomputed by anyone who can write the cache folder. It is
 * an HMAC under the user's cache key (cache-key.ts) over the entry's name and payload, so an entry verifies only
 * where its writer put it, and only for its writer.
 */
import { timingSafeEqual } from 'node:crypto';
import type { TokenizedRequest } from '../eval/instance.js';

/** Bump the digit with any change to the layout; entries of other versions are replaced without a warning. */
const MAGIC_FAMILY = 'MLRBTOK';
const MAGIC = `${MAGIC_FAMILY}3`;
const MAC_BYTES = 32;
const HEADER_BYTES = MAGIC.length + 4 + MAC_BYTES;

export type DecodedEntry =
  | { readonly status: 'hit'; readonly requests: TokenizedRequest[] }
  /** Written by another format version or for another request count: replaced quietly. */
  | { readonly status: 'stale' }
  /** Damaged or not this user's (MAC, truncation, impossible lengths): replaced with a warning. */
  | { readonly status: 'corrupt'; readonly reason: string };

/** The entry's MAC over its payload (the caller binds it to the entry's name and the user's key). */
export type PayloadMac = (payload: Uint8Array) => Buffer;

export function encodeEntry(requests: readonly TokenizedRequest[], macOf: PayloadMac): Buffer {
  const tokenCount = requests.reduce((sum, request) => sum + request.contextTokens.length + request.continuationTokens.length, 0);
  const payload = new Int32Array(2 * requests.length + tokenCount);
  let cursor = 2 * requests.length;
  requests.forEach((request, index) => {
    payload[2 * index] = request.contextTokens.length;
    payload[2 * index + 1] = request.continuationTokens.length;
    payload.set(request.contextTokens, cursor);
    cursor += request.contextTokens.length;
    payload.set(request.continuationTokens, cursor);
    cursor += request.continuationTokens.length;
  });
  const payloadBytes = toBytes(payload);
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(MAGIC, 0, 'latin1');
  header.writeInt32LE(requests.length, MAGIC.length);
  macOf(payloadBytes).copy(header, MAGIC.length + 4);
  return Buffer.concat([header, payloadBytes]);
}

export function decodeEntry(bytes: Buffer, count: number, macOf: PayloadMac): DecodedEntry {
  const magic = bytes.toString('latin1', 0, MAGIC.length);
  if (magic !== MAGIC) return magic.startsWith(MAGIC_FAMILY) ? { status: 'stale' } : { status: 'corrupt', reason: 'it is not a token-cache entry' };
  if (bytes.length < HEADER_BYTES) return { status: 'corrupt', reason: 'it is truncated' };
  if (bytes.readInt32LE(MAGIC.length) !== count) return { status: 'stale' };
  const payloadBytes = bytes.subarray(HEADER_BYTES);
  const stored = bytes.subarray(MAGIC.length + 4, HEADER_BYTES);
  if (!timingSafeEqual(macOf(payloadBytes), stored)) {
    return { status: 'corrupt', reason: 'its MAC does not match its content (damaged, or not written by this user)' };
  }
  if (payloadBytes.length % 4 !== 0) return { status: 'corrupt', reason: 'its length is not a whole number of ids' };
  const ints = toInts(payloadBytes);
  const requests: TokenizedRequest[] = [];
  let cursor = 2 * count;
  for (let index = 0; index < count; index += 1) {
    const contextLength = ints[2 * index] ?? -1;
    const continuationLength = ints[2 * index + 1] ?? -1;
    if (contextLength < 0 || continuationLength < 0 || cursor + contextLength + continuationLength > ints.length) {
      return { status: 'corrupt', reason: `request ${index} has impossible lengths` };
    }
    const contextTokens = Array.from(ints.subarray(cursor, cursor + contextLength));
    cursor += contextLength;
    const continuationTokens = Array.from(ints.subarray(cursor, cursor + continuationLength));
    cursor += continuationLength;
    requests.push({ contextTokens, continuationTokens });
  }
  return cursor === ints.length ? { status: 'hit', requests } : { status: 'corrupt', reason: 'it holds more ids than its requests' };
}

/** A view, not a copy: entries of 5-shot MMLU hold tens of millions of ids. */
function toBytes(ints: Int32Array): Buffer {
  return Buffer.from(ints.buffer, ints.byteOffset, ints.byteLength);
}

function toInts(bytes: Buffer): Int32Array {
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes);
  return new Int32Array(aligned.buffer, aligned.byteOffset, aligned.length / 4);
}
