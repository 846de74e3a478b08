/**
 * The local Hugging Face hub cache: its folder is found the way huggingface_hub finds it, and a dataset there
 * (snapshot files are symlinks into blobs/, as huggingface_hub makes them) loads like the same files elsewhere.
 * The caches here are built by hand in temp dirs, in huggingface_hub's documented layout.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MlrbError } from '../../src/errors.js';
import { dataFingerprint } from '../../src/io/fingerprint.js';
import { defaultHubCacheDir } from '../../src/tasks/hub-cache.js';
import { loadSuite } from '../../src/tasks/registry.js';
import type { MultipleChoiceTask } from '../../src/tasks/types.js';
import { repoRoot } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'hub');
const COMMIT_A = 'a'.repeat(40);
const COMMIT_B = '0123456789abcdef0123456789abcdef01234567';

/** Puts every file of `from` into the cache as huggingface_hub does: bytes in blobs/<sha256>, a relative symlink in the snapshot. */
function cacheRepo(hubDir: string, repoId: string, from: string, commit: string, { ref = true } = {}): string {
  const repoDir = path.join(hubDir, `datasets--${repoId.replace('/', '--')}`);
  const snapshot = path.join(repoDir, 'snapshots', commit);
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => (statSync(path.join(dir, name)).isDirectory() ? walk(path.join(dir, name)) : [path.join(dir, name)]));
  for (const file of walk(from)) {
    const bytes = readFileSync(file);
    const blob = path.join(repoDir, 'blobs', createHash('sha256').update(bytes).digest('hex'));
    mkdirSync(path.dirname(blob), { recursive: true });
    writeFileSync(blob, bytes);
    const link = path.join(snapshot, path.relative(from, file));
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.relative(path.dirname(link), blob), link);
  }
  if (ref) {
    mkdirSync(path.join(repoDir, 'refs'), { recursive: true });
    writeFileSync(path.join(repoDir, 'refs', 'main'), commit);
  }
  return snapshot;
}

const texts = (task: MultipleChoiceTask | undefined) => task?.docs.map((doc) => [doc.text, ...doc.choices, doc.target]);

describe('the hub cache folder', () => {
  it("follows huggingface_hub's order: HF_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub", () => {
    expect(defaultHubCacheDir({ HF_HUB_CACHE: '/c/hub', HF_HOME: '/h' }, '/home/u')).toBe('/c/hub');
    expect(defaultHubCacheDir({ HF_HOME: '/h', XDG_CACHE_HOME: '/x' }, '/home/u')).toBe('/h/hub');
    expect(defaultHubCacheDir({ XDG_CACHE_HOME: '/x' }, '/home/u')).toBe('/x/huggingface/hub');
    expect(defaultHubCacheDir({ HF_HOME: '' }, '/home/u')).toBe('/home/u/.cache/huggingface/hub');
  });
});

describe('datasets in a hub cache', () => {
  const hfHome = makeTempDir('hf-home');
  const hub = path.join(hfHome, 'hub');
  cacheRepo(hub, 'cais/mmlu', path.join(fixtures, 'parquet', 'mmlu-all'), COMMIT_A);
  const blimpSnapshot = cacheRepo(hub, 'nyu-mll/blimp', path.join(fixtures, 'parquet', 'blimp'), COMMIT_A);
  cacheRepo(hub, 'aps/super_glue', path.join(fixtures, 'parquet', 'superglue'), COMMIT_A);

  it('the cache folder (what runs without --data use), HF_HOME or a snapshot as --data all give the release docs', async () => {
    const cacheDir = defaultHubCacheDir({ HF_HOME: hfHome });
    expect(cacheDir).toBe(hub);
    const expected = await loadSuite('mmlu', { dataDir: path.join(fixtures, 'release', 'mmlu'), allowPartial: true });
    for (const dataDir of [cacheDir, hfHome, path.join(hub, 'datasets--cais--mmlu', 'snapshots', COMMIT_A)]) {
      const suite = await loadSuite('mmlu', { dataDir, allowPartial: true });
      expect(suite.tasks.map(texts)).toEqual(expected.tasks.map(texts));
    }
    const blimp = await loadSuite('blimp', { dataDir: cacheDir, allowPartial: true });
    expect(blimp.tasks.map((task) => task.name)).toEqual(['blimp_adjunct_island', 'blimp_anaphor_gender_agreement', 'blimp_causative']);
    const superglue = await loadSuite('superglue', { dataDir: cacheDir });
    expect(superglue.tasks).toHaveLength(8);
  });

  it('results name the blobs, so the data fingerprint re-reads them inside their own folder', async () => {
    const suite = await loadSuite('blimp', { dataDir: blimpSnapshot, allowPartial: true });
    const files = suite.tasks.flatMap((task) => task.sourceFiles);
    for (const file of files) expect(path.dirname(file)).toBe(path.join(hub, 'datasets--nyu-mll--blimp', 'blobs'));
    // The blob's name is the sha256 of its bytes (huggingface_hub's content addressing), which the fingerprint hashes.
    expect(dataFingerprint(files)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refs/main picks the snapshot among several; without it, several snapshots are BAD_DATA', async () => {
    const home = makeTempDir('hf-two');
    cacheRepo(path.join(home, 'hub'), 'nyu-mll/blimp', path.join(fixtures, 'parquet', 'blimp'), COMMIT_A, { ref: false });
    // The second snapshot holds one paradigm only, so which one was read shows in the task list.
    const partial = makeTempDir('hf-one-paradigm');
    cpSync(path.join(fixtures, 'parquet', 'blimp', 'causative'), path.join(partial, 'causative'), { recursive: true });
    cacheRepo(path.join(home, 'hub'), 'nyu-mll/blimp', partial, COMMIT_B, { ref: false });
    const error = await loadSuite('blimp', { dataDir: path.join(home, 'hub'), allowPartial: true }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MlrbError);
    expect((error as MlrbError).message).toMatch(/holds 2 snapshots of nyu-mll\/blimp and no refs\/main/);
    mkdirSync(path.join(home, 'hub', 'datasets--nyu-mll--blimp', 'refs'));
    writeFileSync(path.join(home, 'hub', 'datasets--nyu-mll--blimp', 'refs', 'main'), `${COMMIT_B}\n`);
    const suite = await loadSuite('blimp', { dataDir: path.join(home, 'hub'), allowPartial: true });
    expect(suite.tasks.map((task) => task.name)).toEqual(['blimp_causative']);
  });

  it('EXPECTED FAILURE – a snapshot link that leaves its datasets-- folder is refused', async () => {
    const home = makeTempDir('hf-escape');
    const snapshot = cacheRepo(path.join(home, 'hub'), 'aps/super_glue', path.join(fixtures, 'parquet', 'superglue'), COMMIT_A);
    const elsewhere = makeTempDir('hf-elsewhere');
    const outside = path.join(elsewhere, 'cb.parquet');
    cpSync(path.join(fixtures, 'parquet', 'superglue', 'cb', 'validation-00000-of-00001.parquet'), outside);
    const link = path.join(snapshot, 'cb', 'validation-00000-of-00001.parquet');
    rmSync(link);
    symlinkSync(outside, link);
    const error = await loadSuite('cb', { dataDir: path.join(home, 'hub') }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MlrbError);
    expect((error as MlrbError).message).toMatch(/resolves outside .*datasets--aps--super_glue/);
  });
});
