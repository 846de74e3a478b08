/**
 * A score cache folder someone else can write (`--use-cache DIR` shared between users or hosts): what is planted
 * there is never served, and nothing outside the cache is ever removed through it. Each attacker recomputes
 * whatever checksum the stored entry carries, as anyone who can write the folder can.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sqlite from 'node-sqlite3-wasm';
import { describe, expect, it } from 'vitest';
import { CacheKey } from '../../src/cache/cache-key.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { runCli } from '../support/run-cli.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { writeTinyBlimp } from '../support/tiny-datasets.js';

interface RunResults {
  readonly results: Record<string, unknown>;
  readonly mlrb: { readonly model_sha256: string; readonly model_content_sha256: string; readonly score_cache: { hits: number; misses: number } | null };
}

/** Someone else's key: all an attacker lacks is the victim's secret. */
const ATTACKER = new CacheKey(Buffer.alloc(32, 0xa5));

const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

async function evaluate(model: string, data: string, cache: string | false, output: string): Promise<{ results: RunResults; stderr: string }> {
  const run = await runCli([
    model,
    '--tasks',
    'blimp',
    '--allow-partial',
    '--data',
    data,
    '--quiet',
    '--output',
    output,
    ...(cache === false ? ['--no-cache'] : ['--use-cache', cache]),
  ]);
  expect(run.code, run.stderr).toBe(0);
  return { results: JSON.parse(readFileSync(output, 'utf8')) as RunResults, stderr: run.stderr };
}

/** Rewrites every stored loglik (negated: wrong answers win) and seals the batch as well as an attacker can. */
function forgeScores(databaseFile: string): void {
  const db = new sqlite.Database(databaseFile);
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL');
    const modelDigest = path.basename(databaseFile, '.sqlite');
    const columns = db.all('PRAGMA table_info(batches)').map((column) => String(column.name));
    for (const row of db.all('SELECT batches.id AS id, records, identity FROM batches JOIN namespaces ON namespaces.id = batches.namespace')) {
      const records = Buffer.from(row.records as Uint8Array);
      for (let offset = 0; offset < records.length; offset += 41) records.writeDoubleLE(-1000 - records.readDoubleLE(offset + 32), offset + 32);
      const namespace = `${modelDigest}\n${String(row.identity)}`;
      if (columns.includes('checksum')) {
        // A plain checksum (the format before keyed MACs) is recomputed from the bytes alone.
        const checksum = createHash('sha256').update(`${namespace.length}:${namespace}`).update(records).digest();
        db.run('UPDATE batches SET records = ?, checksum = ? WHERE id = ?', [records, checksum, row.id as number]);
      } else {
        db.run('UPDATE batches SET records = ?, mac = ? WHERE id = ?', [records, ATTACKER.mac('score batch', namespace, records), row.id as number]);
      }
    }
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

describe('a shared score cache that cannot lie', () => {
  it('EXPECTED FAILURE – rewritten log-likelihoods with a recomputed checksum are dropped with a warning; the true score is reported', async () => {
    const dir = makeTempDir('cache-forged-scores');
    const model = writeTinyCausalLm(path.join(dir, 'model')).modelPath;
    const data = writeTinyBlimp(path.join(dir, 'blimp'));
    const cache = path.join(dir, 'cache');
    const output = path.join(dir, 'results.json');
    const truth = await evaluate(model, data, cache, output);
    const [database] = readdirSync(path.join(cache, 'scores')).filter((name) => name.endsWith('.sqlite'));
    forgeScores(path.join(cache, 'scores', database as string));
    const rerun = await evaluate(model, data, cache, output);
    expect(rerun.stderr).toMatch(/warning: score cache .*\.sqlite: \d+ stored batch\(es\) failed their MAC \(damaged, or not written by this user\); dropped/);
    expect(rerun.results.mlrb.score_cache).toEqual({ hits: 0, misses: 20 });
    expect(rerun.results.results).toEqual(truth.results.results);
  });

  it("EXPECTED FAILURE – a planted file-hash entry giving model B model A's digest is ignored with a warning; B is hashed and scored as B", async () => {
    const dir = makeTempDir('cache-forged-hash');
    const modelA = writeTinyCausalLm(path.join(dir, 'a')).modelPath;
    const modelB = writeTinyCausalLm(path.join(dir, 'b'), { seed: 0x0b0b }).modelPath;
    const data = writeTinyBlimp(path.join(dir, 'blimp'));
    const cache = path.join(dir, 'cache');
    const scoredA = await evaluate(modelA, data, cache, path.join(dir, 'a.json'));
    // The attacker copies A's remembered hash into an entry for B, with B's current file identity, under every
    // name the entry could have (the key id is visible in the database's namespaces).
    const hashes = path.join(cache, 'file-hashes');
    const entryA = readdirSync(hashes)
      .map((name) => JSON.parse(readFileSync(path.join(hashes, name), 'utf8')) as Record<string, unknown>)
      .find((entry) => entry.path === modelA);
    expect(entryA).toBeDefined();
    const stats = statSync(modelB, { bigint: true });
    const identity = [stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join(':');
    const planted: Record<string, unknown> = { ...entryA, path: modelB, identity };
    planted.mac = ATTACKER.mac('file hash entry', String(planted.version), modelB, identity, String(planted.sha256)).toString('hex');
    const keyIds = writerIds(path.join(cache, 'scores'));
    for (const name of [sha256(modelB), ...keyIds.map((id) => sha256(`${id}\n${modelB}`))])
      writeFileSync(path.join(hashes, `${name}.json`), JSON.stringify(planted));

    const scoredB = await evaluate(modelB, data, cache, path.join(dir, 'b.json'));
    expect(scoredB.stderr).toMatch(/warning: file hash entry .*\.json is not used: its MAC does not match .*; hashing .*b[/\\]model\.onnx instead/);
    expect(scoredB.results.mlrb.model_sha256).toBe(sha256(readFileSync(modelB)));
    expect(scoredB.results.mlrb.model_sha256).not.toBe(scoredA.results.mlrb.model_sha256);
    expect(scoredB.results.mlrb.score_cache).toEqual({ hits: 0, misses: 20 });
    const uncachedB = await evaluate(modelB, data, false, path.join(dir, 'b-uncached.json'));
    expect(scoredB.results.results).toEqual(uncachedB.results.results);
    expect(scoredB.results.results).not.toEqual(scoredA.results.results);
  });
});

describe('a shared score cache that cannot delete', () => {
  /** A folder outside the cache with files the cache would recognise by name, and one it would not. */
  function victimFolder(dir: string): { folder: string; files: string[] } {
    const folder = path.join(dir, 'precious');
    mkdirSync(folder);
    const files = [`${'c'.repeat(64)}.sqlite`, 'other.sqlite', 'thesis.tex'].map((name) => path.join(folder, name));
    for (const file of files) writeFileSync(file, 'x'.repeat(4096));
    return { folder, files };
  }

  it('EXPECTED FAILURE – cache clear with scores, tokens and file-hashes linked elsewhere removes nothing there', async () => {
    const dir = makeTempDir('cache-clear-links');
    const cache = path.join(dir, 'cache');
    mkdirSync(cache);
    const { folder, files } = victimFolder(dir);
    for (const name of ['scores', 'tokens', 'file-hashes']) symlinkSync(folder, path.join(cache, name));
    const clear = await runCli(['cache', 'clear', '--use-cache', cache]);
    expect(clear.code).toBe(0);
    expect(clear.stderr).toMatch(/left alone: .*cache[/\\]scores is a symlink; the cache never follows links/);
    for (const file of files) expect(existsSync(file), file).toBe(true);
  });

  it('EXPECTED FAILURE – eviction (--cache-max-mb 1) with scores linked elsewhere removes nothing there; the run scores without the cache', async () => {
    const dir = makeTempDir('cache-evict-link');
    const model = writeTinyCausalLm(path.join(dir, 'model')).modelPath;
    const data = writeTinyBlimp(path.join(dir, 'blimp'));
    const cache = path.join(dir, 'cache');
    mkdirSync(cache);
    const { folder, files } = victimFolder(dir);
    symlinkSync(folder, path.join(cache, 'scores'));
    const run = await runCli([model, '--tasks', 'blimp', '--allow-partial', '--data', data, '--quiet', '--use-cache', cache, '--cache-max-mb', '1']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/the score cache is off for this run: .*scores is a symlink/);
    for (const file of files) expect(existsSync(file), file).toBe(true);
    expect(readdirSync(folder).sort()).toEqual(files.map((file) => path.basename(file)).sort());
  });

  it('cache clear removes what the cache made and names what it did not make', async () => {
    const dir = makeTempDir('cache-clear-foreign');
    const model = writeTinyCausalLm(path.join(dir, 'model')).modelPath;
    const data = writeTinyBlimp(path.join(dir, 'blimp'));
    const cache = path.join(dir, 'cache');
    expect((await runCli([model, '--tasks', 'blimp', '--allow-partial', '--data', data, '--quiet', '--use-cache', cache])).code).toBe(0);
    const foreign = [path.join(cache, 'scores', 'notes.txt'), path.join(cache, 'file-hashes', 'keep.me')];
    for (const file of foreign) writeFileSync(file, "not the cache's");
    const clear = await runCli(['cache', 'clear', '--use-cache', cache]);
    expect(clear.code).toBe(0);
    for (const file of foreign) {
      expect(existsSync(file), file).toBe(true);
      expect(clear.stderr).toContain(`left alone ${file}: the cache did not make it`);
    }
    expect(readdirSync(path.join(cache, 'scores'))).toEqual(['notes.txt']);
    expect(existsSync(path.join(cache, 'tokens'))).toBe(false);
  });
});

/** The key ids of the writers whose namespaces a cache's databases hold (`writer <id>` in each identity). */
function writerIds(scoresFolder: string): string[] {
  const ids = new Set<string>();
  for (const name of readdirSync(scoresFolder).filter((entry) => entry.endsWith('.sqlite'))) {
    const db = new sqlite.Database(path.join(scoresFolder, name));
    try {
      db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL');
      for (const row of db.all('SELECT identity FROM namespaces')) {
        const id = /^writer ([0-9a-f]{16})\n/.exec(String(row.identity))?.[1];
        if (id !== undefined) ids.add(id);
      }
    } finally {
      db.close();
    }
  }
  return [...ids];
}
