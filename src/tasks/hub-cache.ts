/**
 * The local Hugging Face hub cache, where lm-eval users already have the datasets (huggingface_hub's layout):
 *   <hub>/datasets--<owner>--<name>/refs/main              the commit the `main` revision points at
 *   <hub>/datasets--<owner>--<name>/snapshots/<commit>/…   the repository's files, as symlinks
 *   <hub>/datasets--<owner>--<name>/blobs/<hash>           the bytes the symlinks point at
 * <hub> is $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub
 * (huggingface_hub's own order).
 *
 * Since snapshot files are symlinks into ../../blobs, a file read from a snapshot must be allowed to resolve
 * anywhere inside its `datasets--…` folder, not only inside the snapshot: dataRootFor widens the root that far
 * and no further.
 */
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { COMMIT, hubSnapshotReadRoot, realPathOrSelf } from '../io/hub-snapshot.js';
import { pathEntryExists } from '../io/regular-file.js';
import { readTextFileUnder } from '../io/text-file.js';
import { isDirectory } from './data-files.js';

/** The hub cache folder huggingface_hub would use in this environment. */
export function defaultHubCacheDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const nonEmpty = (value: string | undefined): string | undefined => (value !== undefined && value !== '' ? value : undefined);
  const hubCache = nonEmpty(env.HF_HUB_CACHE);
  if (hubCache !== undefined) return path.resolve(hubCache);
  const hfHome = nonEmpty(env.HF_HOME) ?? path.join(nonEmpty(env.XDG_CACHE_HOME) ?? path.join(home, '.cache'), 'huggingface');
  return path.resolve(hfHome, 'hub');
}

/** `datasets--cais--mmlu` for `cais/mmlu`. */
export function hubRepoFolderName(repoId: string): string {
  return `datasets--${repoId.split('/').join('--')}`;
}

/** refs/main holds one commit hash; anything longer is not a ref. */
const REF_FILE_CAP = 256;

/**
 * The snapshot folder of `repoId` in the hub cache `hubDir`: the one refs/main names, else the only one there.
 * Undefined when the cache has no copy; BAD_DATA when it has several and no refs/main to choose between them.
 */
export async function hubCacheSnapshot(hubDir: string, repoId: string): Promise<string | undefined> {
  const repoDir = path.join(hubDir, hubRepoFolderName(repoId));
  const snapshots = path.join(repoDir, 'snapshots');
  if (!(await isDirectory(snapshots))) return undefined;
  const refFile = path.join(repoDir, 'refs', 'main');
  if (pathEntryExists(refFile)) {
    const commit = readTextFileUnder(refFile, { kind: 'data', root: repoDir, what: `hub cache ref of ${repoId}`, maxBytes: REF_FILE_CAP }).trim();
    if (COMMIT.test(commit) && (await isDirectory(path.join(snapshots, commit)))) return path.join(snapshots, commit);
  }
  const commits = readdirSync(snapshots)
    .filter((name) => COMMIT.test(name))
    .sort();
  if (commits.length === 0) return undefined;
  if (commits.length === 1) return path.join(snapshots, commits[0] as string);
  throw new MlrbError(
    'BAD_DATA',
    `the hub cache holds ${commits.length} snapshots of ${repoId} and no refs/main to choose one; pass --data ${snapshots}/<commit>: ${repoDir}`,
    { file: repoDir },
  );
}

/**
 * The folder files under `dir` may resolve inside: the `datasets--…` repository folder when `dir` is (inside) a
 * hub-cache snapshot, so its symlinks into blobs/ are followed; `dir` itself otherwise.
 */
export function dataRootFor(dir: string): string {
  return hubSnapshotReadRoot(dir, 'dataset');
}

/**
 * The path a result should list for a data file: inside a hub cache the snapshot entry is a symlink into
 * blobs/, and the fingerprint re-reads each file within its own folder, so the blob itself is named.
 */
export function sourcePathFor(file: string, root: string, dir: string): string {
  return root === realPathOrSelf(dir) ? file : realPathOrSelf(file);
}
