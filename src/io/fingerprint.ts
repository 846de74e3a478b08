/** Content hashes that pin a result to the exact model and data it came from. */
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256OfRegularFile } from './regular-file.js';

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 4 * 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * One hash over every data file's name and content hash, independent of the order files were read in. The
 * files are read again here, so under the same policy as when they were loaded: a FIFO swapped in since
 * fails instead of blocking.
 */
export function dataFingerprint(files: readonly string[]): string {
  const unique = [...new Set(files.map((file) => path.resolve(file)))].sort();
  const hash = createHash('sha256');
  for (const file of unique) {
    const digest = sha256OfRegularFile(file, { kind: 'data', root: path.dirname(file), what: 'data file' });
    hash.update(`${path.basename(file)}\u0000${digest}\n`);
  }
  return hash.digest('hex');
}

let cachedVersion: string | undefined;
export function toolVersion(): string {
  if (cachedVersion === undefined) {
    const packageJson = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json');
    cachedVersion = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
  }
  return cachedVersion;
}
