/**
 * The throughput flags end to end: --verbose says what loading decided, --cache-dir makes the second run read
 * its tokens from disk, and --no-cache leaves the cache alone; the results JSON is the same every time.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { writeTinyMmlu } from '../support/tiny-datasets.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-cli-flags-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

async function runCli(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const sink = (append: (chunk: string) => void) => ({ write: (chunk: string) => (append(chunk), true) }) as unknown as NodeJS.WritableStream;
  const code = await main(args, { stdout: sink(() => undefined), stderr: sink((chunk) => (stderr += chunk)) });
  return { code, stderr };
}

const accuracies = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8')).results;

describe('mlrb-eval throughput flags', () => {
  it('--verbose, --cache-dir and --no-cache', async () => {
    const modelPath = writeTinyCausalLm(path.join(workDir, 'model'), { pastConvention: 'optimum' }).modelPath;
    const mmluDir = writeTinyMmlu(path.join(workDir, 'mmlu'));
    const cacheDir = path.join(workDir, 'cache');
    const common = [modelPath, '--suite', 'mmlu', '--data', mmluDir, '--quiet', '--verbose'];

    const first = await runCli([...common, '--cache-dir', cacheDir, '--output', path.join(workDir, 'first.json')]);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/rewrite sliceLmHead: applied/);
    expect(first.stderr).toMatch(/KV-cache inputs found/);
    expect(first.stderr).toMatch(/tokenized requests cached in/);
    expect(readdirSync(path.join(cacheDir, 'tokens')).length).toBe(1);

    const second = await runCli([...common, '--cache-dir', cacheDir, '--output', path.join(workDir, 'second.json')]);
    expect(second.stderr).toMatch(/tokenized requests from the cache/);

    const uncached = await runCli([...common, '--no-cache', '--num-fewshot', '2', '--output', path.join(workDir, 'third.json')]);
    expect(uncached.code).toBe(0);
    expect(uncached.stderr).not.toMatch(/tokenized requests/);
    expect(existsSync(path.join(workDir, 'third.json'))).toBe(true);
    expect(accuracies(path.join(workDir, 'second.json'))).toEqual(accuracies(path.join(workDir, 'first.json')));
  });

  it('--lm_eval_version 0.4.13 keeps its own cache entry and says so in the results; an unknown version is a usage error', async () => {
    const modelPath = writeTinyCausalLm(path.join(workDir, 'model-versions')).modelPath;
    const mmluDir = writeTinyMmlu(path.join(workDir, 'mmlu-versions'));
    const cacheDir = path.join(workDir, 'cache-versions');
    const common = [modelPath, '--suite', 'mmlu', '--data', mmluDir, '--quiet', '--verbose', '--cache-dir', cacheDir];
    const entries = (): number => readdirSync(path.join(cacheDir, 'tokens'), { recursive: true }).filter((name) => String(name).endsWith('.bin')).length;

    expect((await runCli([...common, '--output', path.join(workDir, 'default.json')])).code).toBe(0);
    const current = await runCli([...common, '--lm_eval_version', '0.4.13', '--output', path.join(workDir, 'current.json')]);
    expect(current.code).toBe(0);
    expect(current.stderr).toMatch(/tokenized requests cached in/);
    expect(entries()).toBe(2);
    const written = (file: string) =>
      JSON.parse(readFileSync(path.join(workDir, file), 'utf8')) as { lm_eval_version: string; mlrb: { lm_eval_rules: string } };
    expect([written('default.json').lm_eval_version, written('default.json').mlrb.lm_eval_rules]).toEqual(['0.4.8', '0.4.4-0.4.8']);
    expect([written('current.json').lm_eval_version, written('current.json').mlrb.lm_eval_rules]).toEqual(['0.4.13', '0.4.13']);

    const unknown = await runCli([...common, '--lm-eval-version', '0.4.9']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--lm-eval-version expects 0\.4\.4-0\.4\.8 or 0\.4\.13, got "0\.4\.9"/);
  });
});
