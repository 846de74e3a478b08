/**
 * `--provider` end to end: the results report what ran. On a machine without a usable CUDA (CI), `auto`
 * scores on the CPU after one warning and `cuda` exits 1 with CUDA_UNAVAILABLE naming the provider
 * library; with one, both run on CUDA.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { runCli } from '../support/run-cli.js';
import { writeTinyBlimp } from '../support/tiny-datasets.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-cli-provider-'));
let modelPath = '';
let blimpDir = '';

beforeAll(() => {
  modelPath = writeTinyCausalLm(path.join(workDir, 'model')).modelPath;
  blimpDir = writeTinyBlimp(path.join(workDir, 'blimp'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface ResultsFile {
  results: Record<string, Record<string, unknown>>;
  config: Record<string, unknown>;
  mlrb: Record<string, unknown>;
}

async function scoreBlimp(provider: string): Promise<{ code: number; stderr: string; results: ResultsFile | null }> {
  const output = path.join(workDir, `${provider}.json`);
  // Not --quiet: the summary line says where the run scored.
  const run = await runCli([modelPath, '--suite', 'blimp', '--data', blimpDir, '--allow-partial', '--provider', provider, '--output', output, '--no-cache']);
  return { code: run.code, stderr: run.stderr, results: run.code === 0 ? (JSON.parse(readFileSync(output, 'utf8')) as ResultsFile) : null };
}

describe('mlrb-eval --provider', () => {
  it("'auto' reports the provider that ran; falling back to the CPU warns and matches --provider cpu", async () => {
    const auto = await scoreBlimp('auto');
    const cpu = await scoreBlimp('cpu');
    expect(auto.code).toBe(0);
    expect(cpu.results?.mlrb.provider).toBe('cpu');
    const ran = auto.results?.mlrb.provider;
    expect(auto.results?.config.device).toBe(ran);
    expect(auto.stderr).toContain(`on ${String(ran)}`);
    if (ran === 'cpu') {
      expect(auto.stderr).toMatch(/warning: --provider auto: scoring on the CPU, since CUDA is unavailable: .*libonnxruntime_providers_cuda\.so/);
      expect(auto.results?.results).toEqual(cpu.results?.results);
    } else {
      expect(ran).toBe('cuda');
      expect(auto.stderr).not.toMatch(/warning/);
    }
  });

  it("'cuda' runs on CUDA, or exits 1 with CUDA_UNAVAILABLE naming the provider library", async () => {
    const cuda = await scoreBlimp('cuda');
    if (cuda.code === 0) {
      expect(cuda.results?.mlrb.provider).toBe('cuda');
      return;
    }
    expect(cuda.code).toBe(1);
    expect(cuda.stderr).toMatch(/error \[CUDA_UNAVAILABLE\]: .*libonnxruntime_providers_cuda\.so/);
  });

  it('EXPECTED FAILURE – an unknown provider is a usage error', async () => {
    const run = await runCli([modelPath, '--suite', 'blimp', '--data', blimpDir, '--provider', 'gpu']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--provider expects cpu, cuda, auto, got "gpu"/);
  });
});
