/** Reads `length` bytes at `offset` of a file: what a payload offset the reader reported points at. */
import { closeSync, openSync, readSync } from 'node:fs';

export function bytesAt(file: string, offset: number, length: number): Uint8Array {
  const descriptor = openSync(file, 'r');
  try {
    const buffer = new Uint8Array(length);
    readSync(descriptor, buffer, 0, length, offset);
    return buffer;
  } finally {
    closeSync(descriptor);
  }
}
