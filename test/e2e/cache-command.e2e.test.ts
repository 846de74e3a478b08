/** `mlrb-eval cache info|clear`, and the cache flags of the eval command. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { runCli } from '../support/run-cli.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { writeTinyBlimp } from '../support/tiny-datasets.js';

describe('mlrb-eval cache', () => {
  it('info shows what a run stored; clear removes it; the next run scores again', async () => {
    const dir = makeTempDir('cache-command');
    const model = writeTinyCausalLm(path.join(dir, 'model')).modelPath;
    const data = writeTinyBlimp(path.join(dir, 'blimp'));
    const cache = path.join(dir, 'cache');
    // Not --quiet: the run's summary line says how many scores came from the cache.
    const run = () => runCli([model, '--tasks', 'blimp', '--allow-partial', '--data', data, '--use-cache', cache]);
    expect((await run()).code).toBe(0);

    const info = await runCli(['cache', 'info', '--use_cache', cache]);
    expect(info.code).toBe(0);
    expect(info.stdout).toContain(`cache folder: ${cache}`);
    expect(info.stdout).toMatch(/scores: [\d.]+ kB in 1 model database\(s\)\n {2}[0-9a-f]{64}\.sqlite/);
    expect((await run()).stderr).toContain('20 of 20 requests from the score cache');

    const clear = await runCli(['cache', 'clear', '--use-cache', cache]);
    expect(clear.code).toBe(0);
    expect(readdirSync(path.join(cache, 'scores'))).toEqual([]);
    expect(existsSync(path.join(cache, 'tokens'))).toBe(false);
    expect((await run()).stderr).not.toContain('from the score cache');
  });

  it("never serves one model's scores for another whose graph file is the same but whose external weights differ", async () => {
    const dir = makeTempDir('cache-weights');
    const model = writeTinyCausalLm(path.join(dir, 'model'), { externalData: true }).modelPath;
    const data = writeTinyBlimp(path.join(dir, 'blimp'));
    const output = path.join(dir, 'results.json');
    const run = async () => {
      expect(
        (await runCli([model, '--tasks', 'blimp', '--allow-partial', '--data', data, '--quiet', '--use-cache', path.join(dir, 'cache'), '--output', output]))
          .code,
      ).toBe(0);
      return (
        JSON.parse(readFileSync(output, 'utf8')) as {
          mlrb: { model_sha256: string; model_content_sha256: string; score_cache: { hits: number; misses: number } };
        }
      ).mlrb;
    };
    const first = await run();
    expect(first.score_cache).toEqual({ hits: 0, misses: 20 });
    expect((await run()).score_cache).toEqual({ hits: 20, misses: 0 });
    // Halve every weight in the external file: same graph file, same size, another model.
    const weightsFile = path.join(path.dirname(model), 'model.onnx_data');
    const weights = new Float32Array(new Uint8Array(readFileSync(weightsFile)).buffer);
    writeFileSync(weightsFile, new Uint8Array(weights.map((value) => value / 2).buffer));
    const changed = await run();
    expect(changed.model_sha256).toBe(first.model_sha256);
    // The results still tell the two models apart: the content digest covers the external weights.
    expect(changed.model_content_sha256).not.toBe(first.model_content_sha256);
    expect(changed.model_content_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(changed.score_cache).toEqual({ hits: 0, misses: 20 });
  });

  it('refuses conflicting cache flags and unknown actions as usage mistakes', async () => {
    const usage = async (args: string[]) => {
      const run = await runCli(args);
      expect(run.code).toBe(2);
      return run.stderr;
    };
    expect(await usage(['m.onnx', '--tasks', 'blimp', '--no-cache', '--use-cache', '/tmp/x'])).toMatch(/--no-cache or a cache folder/);
    expect(await usage(['m.onnx', '--tasks', 'blimp', '--use-cache', '/tmp/x', '--cache-dir', '/tmp/y'])).toMatch(/name the same folder/);
    expect(await usage(['m.onnx', '--tasks', 'blimp', '--cache-max-mb', 'lots'])).toMatch(/--cache-max-mb expects a whole number/);
    expect(await usage(['cache', 'empty'])).toMatch(/expected info or clear/);
  });
});
