/**
 * A run killed with SIGKILL part-way, then run again with the same score cache, scores only the requests
 * the first run had not stored, and writes the results an uninterrupted run writes (every lm-eval key and
 * every mlrb fact but the timing, work and cache counters).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { runCli } from '../support/run-cli.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { withoutProcessFacts } from '../support/process-facts.js';
import { writeTinyMmlu } from '../support/tiny-datasets.js';

const childScript = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'cli-self-kill-child.ts');
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const CASES = [
  { name: 'a plain graph, 0-shot', options: {}, fewshot: '0' },
  // The rerun groups the remaining rows by shared prefix differently: the numbers must not move.
  { name: 'a KV-cache graph, 2-shot (few-shot prefix reuse)', options: { pastConvention: 'optimum' as const }, fewshot: '2' },
];

describe('resume after kill -9', () => {
  it.each(CASES)('scores only what the killed run had not stored, and gives the uninterrupted results: $name', async ({ options, fewshot }) => {
    const dir = makeTempDir('resume');
    const model = writeTinyCausalLm(path.join(dir, 'model'), options).modelPath;
    const data = writeTinyMmlu(path.join(dir, 'mmlu'));
    const cache = path.join(dir, 'cache');
    // One row per pass: hundreds of passes, so the kill lands well inside the run.
    const common = [model, '--tasks', 'mmlu', '--data', data, '--num-fewshot', fewshot, '--batch-size', '1'];

    const killed = spawnSync(process.execPath, ['--import', tsxLoader, childScript, '40', ...common, '--use_cache', cache], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(killed.signal).toBe('SIGKILL');
    const atKill = JSON.parse(killed.stdout.trim()) as { percent: number; requestsDone: number };

    const resumedFile = path.join(dir, 'resumed.json');
    const resumedSamples = path.join(dir, 'resumed-samples.jsonl');
    const resumed = await runCli([...common, '--use-cache', cache, '--output', resumedFile, '--log-samples', resumedSamples]);
    expect(resumed.code).toBe(0);
    const uninterruptedFile = path.join(dir, 'uninterrupted.json');
    const uninterruptedSamples = path.join(dir, 'uninterrupted-samples.jsonl');
    expect((await runCli([...common, '--no-cache', '--output', uninterruptedFile, '--log-samples', uninterruptedSamples])).code).toBe(0);
    // Every request's loglik and greedy flag, not only the accuracies they add up to.
    expect(readFileSync(resumedSamples, 'utf8')).toBe(readFileSync(uninterruptedSamples, 'utf8'));

    const resumedResults = JSON.parse(readFileSync(resumedFile, 'utf8')) as Record<string, unknown>;
    const uninterrupted = JSON.parse(readFileSync(uninterruptedFile, 'utf8')) as Record<string, unknown>;
    const total = (uninterrupted.mlrb as { requests: number }).requests;
    const counts = (resumedResults.mlrb as { score_cache: { hits: number; misses: number } }).score_cache;
    // Every pass reported before the kill was stored before it was reported.
    expect(counts.hits).toBeGreaterThanOrEqual(atKill.requestsDone);
    expect(counts.hits).toBeLessThan(total);
    expect(counts.hits + counts.misses).toBe(total);
    expect(resumed.stderr).toContain(`${counts.hits.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} requests from the score cache`);
    expect(withoutProcessFacts(resumedResults)).toEqual(withoutProcessFacts(uninterrupted));
    expect((uninterrupted.mlrb as { score_cache: unknown }).score_cache).toBeNull();

    // A third run scores nothing.
    const again = await runCli([...common, '--use-cache', cache, '--output', resumedFile]);
    expect(again.code).toBe(0);
    expect((JSON.parse(readFileSync(resumedFile, 'utf8')) as { mlrb: { score_cache: unknown; tokens_scored: number } }).mlrb).toMatchObject({
      score_cache: { hits: total, misses: 0 },
      tokens_scored: 0,
    });
  });
});
