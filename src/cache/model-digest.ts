/**
 * One hash over everything a model's numbers come from: its graph files and every external-data file they name
 * (a fine-tune saved over `model.onnx_data` beside an unchanged `model.onnx` is another model; an encoder-decoder
 * is all of its graphs). The results' `model_sha256` stays the graph file's own hash for a one-graph model, which
 * a user can check with sha256sum; this one is what the score cache keys on and what shards of one run must
 * agree on.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { rememberedSha256, type RememberOptions } from './file-digests.js';
import { modelExternalDataRoot } from '../io/hub-snapshot.js';
import { loadBinding } from '../native/binding.js';

/** `cacheDir` is where file hashes are remembered between runs (false: hash every time). */
export async function modelContentSha256(graphFiles: string | readonly string[], cacheDir: string | false, options: RememberOptions = {}): Promise<string> {
  const graphs = typeof graphFiles === 'string' ? [graphFiles] : graphFiles;
  const hash = createHash('sha256');
  for (const modelPath of graphs) {
    const externalFiles = (await loadBinding().readOnnxModel(modelPath, modelExternalDataRoot(modelPath))).externalFiles
      .map((file) => path.resolve(path.dirname(modelPath), file.path))
      .sort();
    // One graph hashes as it always did; several are named, so swapping two files' roles is another model.
    const name = graphs.length === 1 ? '' : ` ${path.basename(modelPath)}`;
    hash.update(`graph${name} ${await rememberedSha256(modelPath, cacheDir, options)}\n`);
    for (const file of externalFiles) hash.update(`external ${path.basename(file)} ${await rememberedSha256(file, cacheDir, options)}\n`);
  }
  return hash.digest('hex');
}

/**
 * The results' model_sha256: the graph file's sha256 for a one-graph model; for several, the sha256 of their
 * `sha256sum`-style listing ("<hash>  <file name>" per line, in load order).
 */
export async function modelFilesSha256(graphFiles: readonly string[], cacheDir: string | false, options: RememberOptions = {}): Promise<string> {
  if (graphFiles.length === 1) return rememberedSha256(graphFiles[0] as string, cacheDir, options);
  const hash = createHash('sha256');
  for (const file of graphFiles) hash.update(`${await rememberedSha256(file, cacheDir, options)}  ${path.basename(file)}\n`);
  return hash.digest('hex');
}

/** The results' model_file: the graph's file name, or the names of all of an encoder-decoder's graphs. */
export function modelFilesLabel(graphFiles: readonly string[]): string {
  return graphFiles.map((file) => path.basename(file)).join(' + ');
}
