/**
 * A model as huggingface_hub leaves it without --local-dir (`hf download`, snapshot_download, from_pretrained):
 * in the hub cache, where every file of a snapshot is a symlink into the repository's blobs/. Its side files
 * (config.json, tokenizer.json, tokenizer_config.json) must be read as from a plain folder, while a link that
 * leaves the repository is still refused. The cache is built by hand, in huggingface_hub's documented layout.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigJson } from '../../src/model/hf-config.js';
import { readModelMetadata } from '../../src/model/model-metadata.js';
import { loadTokenizer } from '../../src/model/tokenizer.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { makeTempDir } from '../support/temp-dirs.js';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

/** Each file of `from` as huggingface_hub stores it: bytes in blobs/<sha256>, a relative symlink in the snapshot. */
function cacheModelRepo(hubDir: string, repoFolder: string, from: string): string {
  const repoDir = path.join(hubDir, repoFolder);
  const snapshot = path.join(repoDir, 'snapshots', COMMIT);
  mkdirSync(snapshot, { recursive: true });
  mkdirSync(path.join(repoDir, 'blobs'), { recursive: true });
  for (const name of readdirSync(from)) {
    const bytes = readFileSync(path.join(from, name));
    const hash = createHash('sha256').update(bytes).digest('hex');
    writeFileSync(path.join(repoDir, 'blobs', hash), bytes);
    symlinkSync(path.join('..', '..', 'blobs', hash), path.join(snapshot, name));
  }
  return snapshot;
}

describe('a model in the hub cache', () => {
  const root = makeTempDir('model-hub-snapshot');
  const plain = path.join(root, 'plain');
  writeTinyCausalLm(plain);
  const snapshot = cacheModelRepo(path.join(root, 'hub'), 'models--tiny--lm', plain);

  it('reads its symlinked config.json, tokenizer.json and tokenizer_config.json as the plain folder’s', () => {
    const metadata = readModelMetadata(plain);
    expect(metadata.sources).toEqual(expect.arrayContaining(['config.json', 'tokenizer_config.json']));
    expect(readModelMetadata(snapshot)).toEqual(metadata);
    expect(readConfigJson(path.join(snapshot, 'config.json')).json).toEqual(readConfigJson(path.join(plain, 'config.json')).json);
    const text = 'the cat sat on the mat';
    expect(loadTokenizer(path.join(snapshot, 'tokenizer.json')).encode(text)).toEqual(loadTokenizer(path.join(plain, 'tokenizer.json')).encode(text));
  });

  it('EXPECTED FAILURE – a snapshot link into another repository’s blobs is still outside the folder', () => {
    const other = cacheModelRepo(path.join(root, 'hub'), 'models--other--lm', plain);
    const hijacked = path.join(root, 'hub', 'models--tiny--lm', 'snapshots', 'f'.repeat(40));
    mkdirSync(hijacked, { recursive: true });
    symlinkSync(path.join(other, 'config.json'), path.join(hijacked, 'config.json'));
    expect(() => readConfigJson(path.join(hijacked, 'config.json'))).toThrow(
      /config\.json resolves outside .*models--tiny--lm \(only files inside that folder are read/,
    );
  });
});
