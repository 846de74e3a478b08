/**
 * EXPECTED FAILURE – hub parquet files are as hostile as any data file: a wrong folder lists the layouts that are
 * accepted, and a truncated, mislabelled or wrongly shaped parquet file ends in BAD_DATA naming the file (and the
 * row and column where there is one), never quoting its content.
 */
import { copyFileSync, cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MlrbError } from '../../src/errors.js';
import { loadSuite, type SuiteName } from '../../src/tasks/registry.js';
import { repoRoot } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { rejectedMlrbError } from '../support/expect-mlrb-error.js';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'hub');
const SHARD = 'validation-00000-of-00001.parquet';

function failure(suite: SuiteName, dataDir: string): Promise<MlrbError> {
  return rejectedMlrbError(() => loadSuite(suite, { dataDir, allowPartial: true }), `loading ${suite} from ${dataDir}`);
}

describe('EXPECTED FAILURE – wrong folders', () => {
  it('a folder in no layout lists every accepted layout, hub ones included', async () => {
    const empty = makeTempDir('hub-empty');
    const mmlu = await failure('mmlu', empty);
    expect(mmlu.code).toBe('BAD_DATA');
    expect(mmlu.message).toContain(`no mmlu data under ${empty}`);
    expect(mmlu.message).toContain('test/<subject>_test.csv');
    expect(mmlu.message).toContain('all/test-00000-of-00001.parquet');
    expect(mmlu.message).toContain('datasets--cais--mmlu');
    const blimp = await failure('blimp', empty);
    expect(blimp.message).toContain('<paradigm>.jsonl');
    expect(blimp.message).toContain('<paradigm>/train-00000-of-00001.parquet');
    const superglue = await failure('superglue', empty);
    expect(superglue.message).toContain('<Task>/val.jsonl');
    expect(superglue.message).toContain('wsc.fixed');
  });

  it('one suite’s hub folder is not another’s: BLiMP parquet under --suite superglue lists the layouts', async () => {
    const error = await failure('superglue', path.join(fixtures, 'parquet', 'blimp'));
    expect(error.message).toMatch(/no superglue data under .*Accepted SuperGLUE layouts: \(1\)/);
  });

  it('a datasets save_to_disk folder is named as such, not taken for the MMLU release (its test/ and dev/)', async () => {
    // The names datasets 4.x's DatasetDict.save_to_disk writes (and, per split, Dataset.save_to_disk's).
    const saved = makeTempDir('hub-save-to-disk');
    writeFileSync(path.join(saved, 'dataset_dict.json'), '{"splits": ["test", "dev"]}');
    for (const split of ['test', 'dev']) {
      mkdirSync(path.join(saved, split));
      for (const name of ['data-00000-of-00001.arrow', 'dataset_info.json', 'state.json']) writeFileSync(path.join(saved, split, name), '{}');
    }
    const whole = await failure('mmlu', saved);
    expect(whole.code).toBe('BAD_DATA');
    expect(whole.message).toContain(`${saved} is a datasets save_to_disk folder (dataset_dict.json beside Arrow files), which is not read.`);
    expect(whole.message).toContain('Accepted MMLU layouts: (1)');
    expect(whole.message).not.toContain('--allow-partial');
    const split = await failure('boolq', path.join(saved, 'test'));
    expect(split.message).toContain(`${path.join(saved, 'test')} is a datasets save_to_disk folder (state.json beside Arrow files)`);
  });

  it('a split with a shard missing is refused, naming the folder', async () => {
    const dir = makeTempDir('hub-shards');
    mkdirSync(path.join(dir, 'cb'));
    copyFileSync(path.join(fixtures, 'parquet', 'superglue', 'cb', SHARD), path.join(dir, 'cb', 'validation-00000-of-00002.parquet'));
    const error = await failure('cb', dir);
    expect(error.message).toContain(`the validation split in ${path.join(dir, 'cb')} is incomplete: 1 of 2 shards`);
  });

  it('two files for one shard (a stale fingerprinted upload beside the current one) are refused, not read twice', async () => {
    const dir = makeTempDir('hub-stale-shard');
    mkdirSync(path.join(dir, 'cb'));
    const shard = path.join(fixtures, 'parquet', 'superglue', 'cb', SHARD);
    copyFileSync(shard, path.join(dir, 'cb', SHARD));
    copyFileSync(shard, path.join(dir, 'cb', 'validation-00000-of-00001-4a1b2c3d.parquet'));
    const error = await failure('cb', dir);
    expect(error.code).toBe('BAD_DATA');
    expect(error.message).toContain(
      `the validation split in ${path.join(dir, 'cb')} has 2 files for shard 0 (validation-00000-of-00001-4a1b2c3d.parquet, ${SHARD})`,
    );
  });
});

describe('EXPECTED FAILURE – hostile parquet files', () => {
  it('a truncated file is not a readable parquet file', async () => {
    const dir = makeTempDir('hub-truncated');
    const file = path.join(dir, 'boolq', SHARD);
    mkdirSync(path.dirname(file));
    const whole = readFileSync(path.join(fixtures, 'parquet', 'superglue', 'boolq', SHARD));
    for (const length of [0, 7, Math.floor(whole.length / 2), whole.length - 1]) {
      writeFileSync(file, whole.subarray(0, length));
      const error = await failure('boolq', dir);
      expect(error.code).toBe('BAD_DATA');
      expect(error.message).toMatch(/SuperGLUE boolq hub validation file is not a readable parquet file \(.*\): /);
      expect(error.message.endsWith(file)).toBe(true);
    }
  });

  it('a file cut inside its pages (footer kept) cannot be decoded', async () => {
    const dir = makeTempDir('hub-holed');
    const file = path.join(dir, 'boolq', SHARD);
    mkdirSync(path.dirname(file));
    const whole = Buffer.from(readFileSync(path.join(fixtures, 'parquet', 'superglue', 'boolq', SHARD)));
    // Zero the data pages (after the 4-byte magic), keeping the footer: page headers become garbage.
    whole.fill(0, 4, Math.floor(whole.length / 2));
    writeFileSync(file, whole);
    const error = await failure('boolq', dir);
    expect(error.code).toBe('BAD_DATA');
    expect(error.message).toContain(file);
  });

  it('a text value that is not UTF-8 is refused, not turned into U+FFFD', async () => {
    const dir = makeTempDir('hub-utf8');
    const file = path.join(dir, 'adjunct_island', 'train-00000-of-00001.parquet');
    mkdirSync(path.dirname(file));
    const bytes = Buffer.from(readFileSync(path.join(fixtures, 'parquet', 'blimp', 'adjunct_island', 'train-00000-of-00001.parquet')));
    // Snappy stores short incompressible runs as literals, so the sentence's bytes are in the file as they are.
    const at = bytes.indexOf('Derek');
    expect(at).toBeGreaterThan(0);
    bytes[at] = 0xff;
    writeFileSync(file, bytes);
    const error = await failure('blimp', dir);
    expect(error.message).toContain('not valid UTF-8');
    expect(error.message).toContain(file);
    expect(error.message).not.toContain('erek');
  });

  it('a decompression bomb (10 kB of zstd claiming a 300 MiB page) is refused before the page is allocated', async () => {
    const dir = path.join(fixtures, 'hostile', 'bomb');
    const before = process.memoryUsage().rss;
    const error = await failure('cb', dir);
    expect(error.message).toMatch(/SuperGLUE cb hub validation file cannot be decoded \(a page claims 314572810 bytes decompressed .*over the 256 MB page/);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });

  it('wrong columns: the missing hub column is named, with the file', async () => {
    const dir = path.join(fixtures, 'hostile', 'wrong-columns');
    const error = await failure('boolq', dir);
    expect(error.message).toBe(`SuperGLUE boolq hub validation file lacks the column(s) passage (4 columns found): ${path.join(dir, 'boolq', SHARD)}`);
  });

  it('a ClassLabel out of range names the row and column', async () => {
    const dir = path.join(fixtures, 'hostile', 'bad-label');
    const error = await failure('cb', dir);
    expect(error.message).toBe(`${path.join(dir, 'cb', SHARD)} row 3: column "label": label must be 0-2`);
  });

  it('MMLU: three choices, or a subject MMLU does not have, name the row', async () => {
    const three = path.join(fixtures, 'hostile', 'mmlu-three-choices');
    expect((await failure('mmlu', three)).message).toMatch(
      /all\/(test|dev)-00000-of-00001\.parquet row 2: column "choices": choices must hold exactly 4 options$/,
    );
    const unknown = path.join(fixtures, 'hostile', 'mmlu-unknown-subject');
    const error = await failure('mmlu', unknown);
    expect(error.message).toBe(`${path.join(unknown, 'all', 'test-00000-of-00001.parquet')} row 1: column "subject": not an MMLU subject`);
    expect(error.message).not.toContain('astrology');
  });

  it('a shard that links outside the data folder is refused by the file policy', async () => {
    const dir = makeTempDir('hub-escape');
    const outside = makeTempDir('hub-outside');
    cpSync(path.join(fixtures, 'parquet', 'superglue', 'cb'), path.join(outside, 'cb'), { recursive: true });
    mkdirSync(path.join(dir, 'cb'));
    symlinkSync(path.join(outside, 'cb', SHARD), path.join(dir, 'cb', SHARD));
    const error = await failure('cb', dir);
    expect(error.message).toMatch(/resolves outside/);
  });
});
