/**
 * The Hugging Face hub cache (huggingface_hub's layout, where `hf download` without --local-dir, snapshot_download
 * and from_pretrained leave models and datasets):
 *   <hub>/<kind>s--<owner>--<name>/snapshots/<commit>/…   the repository's files, as symlinks
 *   <hub>/<kind>s--<owner>--<name>/blobs/<hash>           the bytes the symlinks point at
 * Files are read under a folder policy (src/io/file-policy.ts: nothing resolves outside the folder); for a folder
 * inside a snapshot that folder is widened to the repository's, so its symlinks into blobs/ are followed, and no
 * further.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';

export type HubRepoKind = 'model' | 'dataset';

/** A snapshot folder's name (and a ref's content): the full commit hash it holds. */
export const COMMIT = /^[0-9a-f]{40}$/;

/** The `<kind>s--…` repository folder when `dir` is (inside) a hub-cache snapshot of that kind; `dir` itself, resolved, otherwise. */
export function hubSnapshotReadRoot(dir: string, kind: HubRepoKind): string {
  const resolved = realPathOrSelf(dir);
  const parts = resolved.split(path.sep);
  for (let index = parts.length - 3; index >= 0; index -= 1) {
    if (parts[index + 1] === 'snapshots' && (parts[index] ?? '').startsWith(`${kind}s--`) && COMMIT.test(parts[index + 2] ?? '')) {
      return parts.slice(0, index + 1).join(path.sep) || path.sep;
    }
  }
  return resolved;
}

/**
 * The folder an ONNX model's external data may resolve into: the hub repository folder when the model lies in
 * a snapshot, else the model's own folder. The addon is handed this (readRoot) rather than applying a rule of
 * its own; it still holds each location to the model's folder by name.
 */
export function modelExternalDataRoot(modelFile: string): string {
  return hubSnapshotReadRoot(path.dirname(path.resolve(modelFile)), 'model');
}

export function realPathOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}
