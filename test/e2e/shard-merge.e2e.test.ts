/**
 * Scale-out end to end: N shard processes of the real CLI (started together, as a scheduler would), merged, give
 * the unsharded run's results, samples and tables; mismatched, repeated and missing shards are refused.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { evaluate, evaluateShard } from '../../src/index.js';
import { mergeShards, type ShardFile } from '../../src/run/merge-shards.js';
import { readShardRecord, type ShardRecord } from '../../src/run/shard-record.js';
import { rejectedMlrbError } from '../support/expect-mlrb-error.js';
import { hasShared, repoRoot, sharedPaths } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { writeTinyBlimp } from '../support/tiny-datasets.js';
import { runCli } from '../support/run-cli.js';
import { withoutProcessFacts } from '../support/process-facts.js';
import { FULL_TIER } from '../support/test-tier.js';

const bin = path.join(repoRoot, 'bin', 'mlrb-eval.js');

function runBin(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 300_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
}

const readJson = (file: string): Record<string, unknown> => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

const workDir = makeTempDir('shards');
const model = writeTinyCausalLm(path.join(workDir, 'model')).modelPath;
const blimpDir = writeTinyBlimp(path.join(workDir, 'blimp'));
const cases = [
  { name: 'BLiMP (two paradigms, a partial suite)', flags: ['--tasks', 'blimp', '--data', blimpDir, '--allow-partial'] },
  // Few-shot examples are drawn at random per document from one generator per task: each shard must still draw
  // every earlier document's examples, or its prompts (and the samples' arguments) would differ.
  {
    name: 'HellaSwag 2-shot (random few-shot draws)',
    flags: ['--tasks', 'hellaswag', '--data', path.join(repoRoot, 'test/fixtures/tasks/release/hellaswag'), '--num-fewshot', '2'],
  },
  // Perplexities are task totals (summed log-likelihoods over summed word and byte counts): a merge that averaged
  // the shards' perplexities, or their per-shard totals, would differ here. One shard per document.
  { name: 'wikitext (rolling windows, task-total perplexities)', flags: ['--tasks', 'wikitext', '--data', path.join(repoRoot, 'test/fixtures/tasks')] },
] as const;

describe('--shard I/N and mlrb-eval merge', () => {
  for (const [caseIndex, { name, flags }] of cases.entries()) {
    // One suite shows the processes' merge in the quick tier; the full tier merges each kind of task.
    it.runIf(caseIndex === 0 || FULL_TIER)(`${name}: 3 shard processes merged = the unsharded run (results, samples, tables)`, async () => {
      const dir = path.join(workDir, `case-${caseIndex}`);
      const common = [model, ...flags, '--quiet', '--no-cache', '--batch-size', '2'];
      const shardFiles = [0, 1, 2].map((index) => path.join(dir, `shard-${index}.json`));
      const [whole, ...shards] = await Promise.all([
        runBin([...common, '--output', path.join(dir, 'whole.json'), '--log-samples', path.join(dir, 'whole.jsonl')]),
        ...shardFiles.map((file, index) => runBin([...common, `--shard=${index}/3`, '--output', file])),
      ]);
      expect(whole?.stderr).not.toMatch(/error/);
      expect(whole?.code).toBe(0);
      for (const shard of shards) expect(shard.code, shard.stderr).toBe(0);
      // Given in any order.
      // --verify re-scores 2 documents of each shard (few-shot prompts and rolling windows rebuilt as the shards built them).
      const merge = await runBin([
        'merge',
        shardFiles[2]!,
        shardFiles[0]!,
        shardFiles[1]!,
        '--verify',
        '2',
        '--output',
        path.join(dir, 'merged.json'),
        '--log-samples',
        path.join(dir, 'merged.jsonl'),
      ]);
      expect(merge.code, merge.stderr).toBe(0);
      expect(merge.stderr).toMatch(/merged 3 of 3 shards/);
      expect(merge.stderr).toMatch(/verified \d+ documents of 3 shards against the model: all agree/);
      expect(merge.stdout).toBe(whole?.stdout);

      const wholeResults = readJson(path.join(dir, 'whole.json'));
      const merged = readJson(path.join(dir, 'merged.json'));
      expect(JSON.stringify(withoutProcessFacts(merged), null, 2)).toBe(JSON.stringify(withoutProcessFacts(wholeResults), null, 2));
      expect(readFileSync(path.join(dir, 'merged.jsonl'), 'utf8')).toBe(readFileSync(path.join(dir, 'whole.jsonl'), 'utf8'));
      const mergedFacts = merged.mlrb as Record<string, unknown>;
      expect(mergedFacts.shards).toEqual({ count: 3, missing: [] });
      expect(mergedFacts.requests).toBe((wholeResults.mlrb as Record<string, unknown>).requests);
    });
  }
});

// The tiny model's log-likelihoods barely depend on far context; stories260K's do, so a prompt out of step would
// show in its numbers. Full BLiMP (67,000 pairs) was checked by hand: README, "Scale-out".
describe.runIf(FULL_TIER && hasShared)('stories260K on real data: 3 shards merged = the unsharded run', () => {
  const runs = [
    { name: 'BLiMP, 20 pairs per paradigm', options: { suite: 'blimp', dataDir: sharedPaths.blimp, limit: 20 } },
    {
      name: 'SuperGLUE CB, COPA and WiC 2-shot, 12 documents each',
      options: { suite: 'cb,copa,wic', dataDir: sharedPaths.superglue, numFewshot: 2, limit: 12 },
    },
    { name: 'wikitext under the 0.4.13 rules', options: { suite: 'wikitext', dataDir: path.join(repoRoot, 'test/fixtures/tasks'), lmEvalVersion: '0.4.13' } },
  ] as const;
  for (const { name, options } of runs) {
    it(name, async () => {
      const common = { model: sharedPaths.stories, cacheDir: false as const, logSamples: true, ...options };
      const whole = await evaluate(common);
      const shards: ShardFile[] = [];
      for (const index of [0, 1, 2]) shards.push({ file: `shard-${index}`, record: await evaluateShard({ ...common, shard: { index, count: 3 } }) });
      const merged = await mergeShards(shards, { logSamples: true });
      expect(withoutProcessFacts({ ...merged.results })).toEqual(withoutProcessFacts({ ...whole.results }));
      expect(merged.samples).toEqual(whole.samples);
    });
  }
});

describe('merge refusals', () => {
  const dir = path.join(workDir, 'refusals');
  const shardFiles = [0, 1, 2].map((index) => path.join(dir, `shard-${index}.json`));
  let records: ShardRecord[] = [];
  const asShards = (list: readonly ShardRecord[]): ShardFile[] => list.map((record, index) => ({ file: `shard-${index}.json`, record }));
  const edited = (index: number, edit: (record: ShardRecord) => ShardRecord): ShardRecord[] =>
    records.map((record, at) => (at === index ? edit(structuredClone(record)) : record));

  beforeAll(async () => {
    const runs = await Promise.all(
      shardFiles.map((file, index) =>
        runBin([model, '--tasks', 'blimp', '--data', blimpDir, '--allow-partial', '--quiet', '--no-cache', '--shard', `${index}/3`, '--output', file]),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    records = shardFiles.map(readShardRecord);
  });

  it('EXPECTED FAILURE – shards of another model, tokenizer, data or options are refused, naming the file and the field', async () => {
    const changes: [string, (record: ShardRecord) => ShardRecord][] = [
      ['identity.model_sha256', (record) => ({ ...record, identity: { ...record.identity, model_sha256: '0'.repeat(64) } })],
      ['identity.model_content_sha256', (record) => ({ ...record, identity: { ...record.identity, model_content_sha256: '3'.repeat(64) } })],
      ['identity.tokenizer_sha256', (record) => ({ ...record, identity: { ...record.identity, tokenizer_sha256: '1'.repeat(64) } })],
      ['identity.data_fingerprint', (record) => ({ ...record, identity: { ...record.identity, data_fingerprint: '2'.repeat(64) } })],
      ['identity.num_fewshot', (record) => ({ ...record, identity: { ...record.identity, num_fewshot: 1 } })],
      ['identity.limit', (record) => ({ ...record, identity: { ...record.identity, limit: 3 } })],
      ['identity.lm_eval_rules', (record) => ({ ...record, identity: { ...record.identity, lm_eval_rules: '0.4.13' } })],
      ['identity.provider', (record) => ({ ...record, identity: { ...record.identity, provider: 'cuda' } })],
      ['shard.count', (record) => ({ ...record, shard: { ...record.shard, count: 4 } })],
    ];
    for (const [field, change] of changes) {
      const error = await rejectedMlrbError(() => mergeShards(asShards(edited(2, change))), field);
      expect(error.code).toBe('BAD_SHARD');
      expect(error.details).toEqual({ file: 'shard-2.json', field });
      expect(error.message).toMatch(/^shard-2\.json: /);
    }
  });

  it('EXPECTED FAILURE – a shard given twice, a missing shard, and a shard holding other documents are refused', async () => {
    const twice = await rejectedMlrbError(() => mergeShards(asShards([records[0]!, records[1]!, records[1]!, records[2]!])));
    expect(twice.message).toMatch(/shard 1\/3 is given twice/);
    const missing = await rejectedMlrbError(() => mergeShards(asShards([records[0]!, records[2]!])));
    expect(missing.message).toMatch(/shards 1\/3 are missing \(2 of 3 given\); --allow-partial/);
    // Shard 0's documents relabelled as shard 1's.
    const relabelled = edited(0, (record) => ({ ...record, shard: { index: 1, count: 3 } })).slice(0, 1);
    const wrong = await rejectedMlrbError(() => mergeShards(asShards([...relabelled, records[0]!, records[2]!])));
    expect(wrong.details.field).toMatch(/^documents\.blimp_toy_/);
    expect(wrong.message).toMatch(/does not belong to shard 1\/3/);
    // Scored from other prompts than the whole run gives its documents (a few-shot draw out of step, say).
    const otherPrompts = edited(1, (record) => {
      const task = record.documents.blimp_toy_order!;
      return { ...record, documents: { ...record.documents, blimp_toy_order: { ...task, requests_sha256: 'f'.repeat(64) } } };
    });
    const prompts = await rejectedMlrbError(() => mergeShards(asShards(otherPrompts)));
    expect(prompts.details).toEqual({ file: 'shard-1.json', field: 'documents.blimp_toy_order.requests_sha256' });
  });

  it('EXPECTED FAILURE – data that differs from what the shards scored is refused', async () => {
    const otherData = writeTinyBlimp(path.join(dir, 'other-blimp'));
    writeFileSync(path.join(otherData, 'toy_order.jsonl'), readFileSync(path.join(otherData, 'toy_order.jsonl'), 'utf8').replace('cat', 'bat'));
    const error = await rejectedMlrbError(() => mergeShards(asShards(records), { dataDir: otherData }));
    expect(error.details.field).toBe('identity.data_fingerprint');
    expect(error.message).toMatch(/is not the data the shards scored/);
  });

  it('--allow-partial merges the shards given and says which are missing; the metrics cover their documents', async () => {
    const partial = await mergeShards(asShards([records[0]!, records[2]!]), { allowPartial: true, logSamples: true });
    expect(partial.missingShards).toEqual([1]);
    expect(partial.results.mlrb.shards).toEqual({ count: 3, missing: [1] });
    const whole = await evaluate({ model, suite: 'blimp', dataDir: blimpDir, allowPartial: true, logSamples: true, cacheDir: false });
    for (const task of ['blimp_toy_agreement', 'blimp_toy_order']) {
      const kept = new Set((partial.samples?.get(task) ?? []).map((sample) => sample.doc_id));
      const wholeSamples = (whole.samples?.get(task) ?? []).filter((sample) => kept.has(sample.doc_id));
      expect(kept.size).toBeGreaterThan(0);
      expect(partial.samples?.get(task)).toEqual(wholeSamples);
      const accuracy = wholeSamples.reduce((sum, sample) => sum + (sample.acc as number), 0) / wholeSamples.length;
      expect(partial.results.results[task]?.['acc,none']).toBe(accuracy);
      expect(partial.results['n-samples'][task]).toEqual({ original: 5, effective: kept.size });
    }
  });

  it('EXPECTED FAILURE – the CLI: a non-shard file, a missing shard (exit 1, BAD_SHARD); --shard misuse and an output over a shard (exit 2)', async () => {
    const results = path.join(dir, 'results.json');
    writeFileSync(results, JSON.stringify({ results: {} }));
    const notShard = await runCli(['merge', results]);
    expect(notShard.code).toBe(1);
    expect(notShard.stderr).toMatch(/error \[BAD_SHARD\]: .*results\.json is not an mlrb-eval shard file/);
    const missing = await runCli(['merge', shardFiles[0]!, shardFiles[1]!, '--output', path.join(dir, 'never.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/shards 2\/3 are missing/);
    for (const args of [
      ['--shard', '0/3'],
      ['--shard', '3/3', '--output', results],
      ['--shard', '0/3', '--output', results, '--log-samples', results],
    ]) {
      const run = await runCli([model, '--tasks', 'blimp', '--data', blimpDir, ...args]);
      expect(run.code, args.join(' ')).toBe(2);
    }
    const shardBytes = readFileSync(shardFiles[1]!);
    for (const flag of ['--output', '--log-samples']) {
      const overwriting = await runCli(['merge', ...shardFiles, flag, path.join(dir, '.', 'shard-1.json')]);
      expect(overwriting.code, flag).toBe(2);
      expect(overwriting.stderr).toContain(`${flag} ${path.join(dir, 'shard-1.json')} is one of the shard files being merged`);
    }
    expect(readFileSync(shardFiles[1]!).equals(shardBytes)).toBe(true);
    expect(() => evaluate({ model, suite: 'blimp', dataDir: blimpDir, shard: { index: 0, count: 2 } })).toThrow(/evaluateShard\(\)/);
    expect(() => evaluate({ model, suite: 'blimp', dataDir: blimpDir, shard: { index: 2, count: 2 } })).toThrow(TypeError);
  });

  it('EXPECTED FAILURE – a log-likelihood that is no log-probability ("NaN", "Infinity", a positive number) is refused, naming the file and the field', async () => {
    for (const [name, value] of [
      ['nan', 'NaN'],
      ['infinity', 'Infinity'],
      ['positive', 0.5],
      ['huge', '1e999'],
    ] as const) {
      const file = path.join(dir, `forged-${name}.json`);
      const text = readFileSync(shardFiles[0]!, 'utf8');
      const record = JSON.parse(text) as { documents: Record<string, { docs: { logliks: unknown[] }[] }> };
      const task = Object.keys(record.documents)[0]!;
      record.documents[task]!.docs[0]!.logliks[1] = name === 'huge' ? 0 : value;
      // 1e999 parses as Infinity: written as a bare number, not the writer's form.
      writeFileSync(file, name === 'huge' ? JSON.stringify(record).replace(/"logliks":\[([^,\]]+),0\]/, '"logliks":[$1,1e999]') : JSON.stringify(record));
      const run = await runCli(['merge', file, shardFiles[1]!, shardFiles[2]!]);
      expect(run.code, name).toBe(1);
      expect(run.stderr, name).toMatch(
        new RegExp(
          `error \\[BAD_SHARD\\]: ${file.replaceAll(/[.\\/]/g, '\\$&')} is not a valid shard file: documents\\.${task}\\.docs\\.0\\.logliks\\.1: a log-likelihood is a number ≤ 0 or "-Infinity"`,
        ),
      );
    }
  });

  it('--verify K re-scores K random documents per shard: honest shards pass (and say the seed), a forged one is refused, naming it', async () => {
    const honest = await runCli(['merge', ...shardFiles, '--verify', '2']);
    expect(honest.code, honest.stderr).toBe(0);
    expect(honest.stderr).toMatch(/verified 6 documents of 3 shards against the model: all agree \(seed \d+\)/);
    // Shard 1 with every document's two log-likelihoods swapped: still log-probabilities, every answer flipped.
    const forged = edited(1, (record) => {
      for (const task of Object.values(record.documents)) for (const doc of task.docs) doc.logliks.reverse();
      return record;
    })[1]!;
    const forgedFile = path.join(dir, 'forged-shard-1.json');
    writeFileSync(forgedFile, JSON.stringify(forged));
    expect((await runCli(['merge', shardFiles[0]!, forgedFile, shardFiles[2]!])).code).toBe(0); // what a merge alone cannot see
    const caught = await runCli(['merge', shardFiles[0]!, forgedFile, shardFiles[2]!, '--verify', '1', '--output', path.join(dir, 'never.json')]);
    expect(caught.code).toBe(1);
    expect(caught.stderr).toMatch(
      /error \[BAD_SHARD\]: .*forged-shard-1\.json: re-scoring document \d+ of blimp_toy_\w+ gives other results than the shard holds: choice \d's log-likelihood is -?[\d.e-]+, recomputed -?[\d.e-]+; the shard's numbers did not come from this model/,
    );
    expect(existsSync(path.join(dir, 'never.json'))).toBe(false);
    const otherModel = writeTinyCausalLm(path.join(dir, 'other-model'), { seed: 77 }).modelPath;
    const wrongModel = await runCli(['merge', ...shardFiles, '--verify', '1', '--model', otherModel]);
    expect(wrongModel.code).toBe(1);
    expect(wrongModel.stderr).toMatch(/the model verified with \(.*other-model.*\) is not the one the shards name: its model_sha256 is/);
    expect((await runCli(['merge', ...shardFiles, '--model', otherModel])).code).toBe(2);
  });
});
