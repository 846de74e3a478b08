/**
 * Where a suite's files are, in any layout it is accepted in. A suite names its layouts (the release's and the
 * Hugging Face hub's parquet one) and the hub repositories it is published as; `--data` may then be the suite's
 * folder, its parent, a hub download (`huggingface-cli download --local-dir`), a hub-cache snapshot, or the hub
 * cache itself (which is where the suite is looked for when there is no --data at all). A folder in none of the
 * layouts is a BAD_DATA error that lists every accepted layout, so an operator learns what to point at.
 *
 * Hub splits are sharded as `<config>/<split>-00000-of-00002.parquet` (older uploads add `-<fingerprint>`
 * before `.parquet`), or `<config>/<split>/0000.parquet` on the refs/convert/parquet branch.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { dataRootFor, hubCacheSnapshot, hubRepoFolderName } from './hub-cache.js';

export interface DataLayout<Kind extends string> {
  readonly kind: Kind;
  /** For the error that lists layouts: what the folder holds, e.g. "test/<subject>_test.csv and dev/…". */
  readonly description: string;
  readonly matches: (dir: string) => Promise<boolean>;
}

export interface SuiteData<Kind extends string> {
  readonly dir: string;
  /** The folder its files must resolve inside (wider than `dir` in a hub cache; see hub-cache.ts). */
  readonly root: string;
  readonly layout: Kind;
}

export interface SuiteLocation<Kind extends string> {
  /** The suite's folder name under a data root (`mmlu`), and its label in messages (`MMLU`). */
  readonly suite: string;
  readonly label: string;
  readonly layouts: readonly DataLayout<Kind>[];
  /** Hub repositories the suite is published as, most usual first (`cais/mmlu`). */
  readonly hubRepos: readonly string[];
}

/** Finds the suite under `dataDir` (see the file comment for where it looks). */
export async function resolveSuiteData<Kind extends string>(dataDir: string, location: SuiteLocation<Kind>): Promise<SuiteData<Kind>> {
  const direct = path.resolve(dataDir);
  const candidates = [path.join(direct, location.suite), direct];
  for (const candidate of candidates) {
    await refuseSavedArrowDataset(candidate, location);
    const found = await matchLayout(candidate, location.layouts);
    if (found !== undefined) return found;
  }
  // `dataDir` as a hub cache ($HF_HOME/hub) or as HF_HOME itself.
  for (const hubDir of [direct, path.join(direct, 'hub')]) {
    for (const repo of location.hubRepos) {
      const snapshot = await hubCacheSnapshot(hubDir, repo);
      if (snapshot === undefined) continue;
      candidates.push(snapshot);
      const found = await matchLayout(snapshot, location.layouts);
      if (found !== undefined) return found;
    }
  }
  throw new MlrbError('BAD_DATA', `no ${location.suite} data under ${direct} (looked in ${candidates.join(', ')}). ${acceptedLayouts(location)}`, {
    file: direct,
  });
}

function acceptedLayouts<Kind extends string>(location: SuiteLocation<Kind>): string {
  const repos = location.hubRepos.map(hubRepoFolderName).join(' or ');
  const layouts = location.layouts.map((layout, index) => `(${index + 1}) ${layout.description}`).join('; ');
  return `Accepted ${location.label} layouts: ${layouts}; or a Hugging Face hub cache folder holding ${repos} (such as $HF_HOME/hub or ~/.cache/huggingface/hub)`;
}

/**
 * `datasets`' save_to_disk folders hold Arrow files, which no suite reads. MMLU's saved DatasetDict has `test/`
 * and `dev/` sub-folders, so without this check it passed for the release layout and every subject was then
 * reported missing, with --allow-partial suggested as the way out.
 */
async function refuseSavedArrowDataset<Kind extends string>(dir: string, location: SuiteLocation<Kind>): Promise<void> {
  const names = new Set(await listNames(dir));
  const saved = names.has(SAVED_DATASET_DICT) ? SAVED_DATASET_DICT : SAVED_DATASET.every((name) => names.has(name)) ? SAVED_DATASET[0] : undefined;
  if (saved === undefined) return;
  throw new MlrbError('BAD_DATA', `${dir} is a datasets save_to_disk folder (${saved} beside Arrow files), which is not read. ${acceptedLayouts(location)}`, {
    file: path.join(dir, saved),
  });
}

/** What `DatasetDict.save_to_disk` and `Dataset.save_to_disk` write beside the Arrow files. */
const SAVED_DATASET_DICT = 'dataset_dict.json';
const SAVED_DATASET = ['state.json', 'dataset_info.json'] as const;

async function matchLayout<Kind extends string>(dir: string, layouts: readonly DataLayout<Kind>[]): Promise<SuiteData<Kind> | undefined> {
  for (const layout of layouts) {
    if (await layout.matches(dir)) return { dir, root: dataRootFor(dir), layout: layout.kind };
  }
  return undefined;
}

const SHARD = /^(.+)-(\d{5})-of-(\d{5})(?:-[0-9a-f]+)?\.parquet$/;
const CONVERTED_SHARD = /^\d{4,5}\.parquet$/;

/**
 * The parquet files of one split of one config folder, in shard order; [] when the split is not there.
 * A split whose names promise more shards than are present is BAD_DATA, so half a download never scores.
 */
export async function splitShards(configDir: string, split: string): Promise<string[]> {
  const names = await listNames(configDir);
  const shards = names.flatMap((name) => {
    const match = SHARD.exec(name);
    return match !== null && match[1] === split ? [{ name, index: Number(match[2]), count: Number(match[3]) }] : [];
  });
  if (shards.length > 0) {
    shards.sort((a, b) => a.index - b.index || compareNames(a.name, b.name));
    refuseDuplicateShards(configDir, split, shards);
    const count = shards[0]?.count ?? 0;
    const indices = new Set(shards.map((shard) => shard.index));
    const complete = shards.every((shard) => shard.count === count) && indices.size === count && [...indices].every((index) => index < count);
    if (!complete) {
      throw new MlrbError(
        'BAD_DATA',
        `the ${split} split in ${configDir} is incomplete: ${indices.size} of ${count} shards are present (or their names disagree)`,
        {
          file: configDir,
        },
      );
    }
    return shards.map((shard) => path.join(configDir, shard.name));
  }
  const convertedDir = path.join(configDir, split);
  return (await listNames(convertedDir))
    .filter((name) => CONVERTED_SHARD.test(name))
    .sort()
    .map((name) => path.join(convertedDir, name));
}

/**
 * Two files for one shard index (`test-00000-of-00001.parquet` beside an older upload's
 * `test-00000-of-00001-<fingerprint>.parquet`, as a `--local-dir` download refreshed after the repository renamed
 * its files leaves them) would both be read, and every document of that shard scored twice.
 */
function refuseDuplicateShards(configDir: string, split: string, sorted: readonly { readonly name: string; readonly index: number }[]): void {
  const clash = sorted.find((shard, position) => position > 0 && sorted[position - 1]?.index === shard.index);
  if (clash === undefined) return;
  const names = sorted.filter((shard) => shard.index === clash.index).map((shard) => shard.name);
  throw new MlrbError(
    'BAD_DATA',
    `the ${split} split in ${configDir} has ${names.length} files for shard ${clash.index} (${names.join(', ')}); ` +
      'one is likely left from an older download: keep the one the repository has now',
    { file: path.join(configDir, clash.name) },
  );
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sub-folders of `dir` that hold the given split (hub configs: subjects, paradigms, tasks). */
export async function configsWithSplit(dir: string, split: string): Promise<string[]> {
  const configs: string[] = [];
  for (const name of await listNames(dir)) if ((await splitShards(path.join(dir, name), split)).length > 0) configs.push(name);
  return configs.sort();
}

async function listNames(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}
