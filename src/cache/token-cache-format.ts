/**
 * The bytes of one token-cache entry, in the host's byte order (little-endian on every platform we build for):
 *   "MLRBTOK2" · int32 count · sha256 of the payload (32 bytes) · payload
 *   payload = count × (int32 contextLength, int32 continuationLength), then every id as int32
 * The checksum is what makes a cached id trustworthy: a flipped byte in an id would otherwise be scored
 * silently (the ids are still ids), so any change to the payload makes the entry unreadable and it is rebuilt.
 */
import { createHash } from 'node:crypto';
import type { TokenizedRequest } from '../eval/instance.js';

/** Bump the digit with any change to the layout; entries of other versions are replaced without a warning. */
const MAGIC_FAMILY = 'MLRBTOK';
const MAGIC = `${MAGIC_FAMILY}2`;
const CHECKSUM_BYTES = 32;
const HEADER_BYTES = MAGIC.length + 4 + CHECKSUM_BYTES;

export type DecodedEntry =
  | { readonly status: 'hit'; readonly requests: TokenizedRequest[] }
  /** Written by another format version or for another request count: replaced quietly. */
  | { readonly status: 'stale' }
  /** Damaged (checksum, truncation, impossible lengths): replaced with a warning. */
  | { readonly status: 'corrupt'; readonly reason: string };

export function encodeEntry(requests: readonly TokenizedRequest[]): Buffer {
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
  createHash('sha256').update(payloadBytes).digest().copy(header, MAGIC.length + 4);
  return Buffer.concat([header, payloadBytes]);
}

export function decodeEntry(bytes: Buffer, count: number): DecodedEntry {
  const magic = bytes.toString('latin1', 0, MAGIC.length);
  if (magic !== MAGIC) return magic.startsWith(MAGIC_FAMILY) ? { status: 'stale' } : { status: 'corrupt', reason: 'it is not a token-cache entry' };
  if (bytes.length < HEADER_BYTES) return { status: 'corrupt', reason: 'it is truncated' };
  if (bytes.readInt32LE(MAGIC.length) !== count) return { status: 'stale' };
  const payloadBytes = bytes.subarray(HEADER_BYTES);
  const stored = bytes.subarray(MAGIC.length + 4, HEADER_BYTES);
  if (!createHash('sha256').update(payloadBytes).digest().equals(stored)) return { status: 'corrupt', reason: 'its checksum does not match its content' };
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
