/**
 * The fixtures of scripts/edge/build_disguise_fixtures.py (test/fixtures/edge/disguise/): a tiny Llama whose layer 0
 * is stored in another form per fixture, and honest variants, with what the script built in manifest.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { useTempDirectory } from './tmp-dir.js';

export interface DisguisedWeight {
  /** The projection MatMul whose stored float matrix the disguise replaced. */
  readonly matmul: string;
  /** The stored tensors the script wrote for it (codes, codebook, planes …). */
  readonly tensors: readonly string[];
  /** The class of disguise, in the check's violation names. */
  readonly violation: string;
  /** Where the decoded weight first meets an input-dependent value. */
  readonly reader: { readonly opType: string; readonly node: string };
}

export interface DisguiseFixture {
  readonly file: string;
  readonly class: string;
  readonly description: string;
  readonly verdict: 'pass' | 'fail';
  readonly weights: readonly DisguisedWeight[];
  /** Every stored element, copies once (scripts/edge/stored_elements.py), and the same for the clean export. */
  readonly storedElements: number;
  readonly baseStoredElements: number;
  /** The float elements alone: what a float-only count saw. */
  readonly floatElements: number;
}

const directory = join(import.meta.dirname, '..', '..', 'fixtures', 'edge', 'disguise');

export const disguiseManifest = JSON.parse(readFileSync(join(directory, 'manifest.json'), 'utf8')) as {
  readonly base: string;
  readonly fixtures: readonly DisguiseFixture[];
};

/** A function that unpacks a fixture (.onnx.gz) into the calling test file's temporary directory once. */
export function disguiseFixturePaths(prefix: string): (file: string) => string {
  const tempPath = useTempDirectory(prefix);
  const unpacked = new Map<string, string>();
  return (file) => {
    let path = unpacked.get(file);
    if (path === undefined) {
      path = tempPath(file.replace(/\.gz$/, ''));
      writeFileSync(path, gunzipSync(readFileSync(join(directory, file))));
      unpacked.set(file, path);
    }
    return path;
  };
}
