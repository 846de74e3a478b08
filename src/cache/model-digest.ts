/**
 * One hash over everything a model's numbers come from: the graph file and every external-data file it names
 * (a fine-tune saved over `model.onnx_data` beside an unchanged `model.onnx` is another model). The results'
 * `model_sha256` stays the graph file's own hash, which a user can check with sha256sum; this one is what the
 * score cache keys on and what shards of one run must agree on.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { rememberedSha256, type RememberOptions } from './file-digests.js';
import { modelExternalDataRoot } from '../io/hub-snapshot.js';
import { loadBinding } from '../native/binding.js';

/** `cacheDir` is where file hashes are remembered between runs (false: hash every time). */
export async function modelContentSha256(modelPath: string, cacheDir: string | false, options: RememberOptions = {}): Promise<string> {
  const externalFiles = (await loadBinding().readOnnxModel(modelPath, modelExternalDataRoot(modelPath))).externalFiles
    .map((file) => path.resolve(path.dirname(modelPath), file.path))
    .sort();
  const hash = createHash('sha256').update(`graph ${await rememberedSha256(modelPath, cacheDir, options)}\n`);
  for (const file of externalFiles) hash.update(`external ${path.basename(file)} ${await rememberedSha256(file, cacheDir, options)}\n`);
  return hash.digest('hex');
}
