/**
 * `mlrb-eval generate`: flags reach the engine, the JSON output carries what the library returns, and mistakes are
 * usage errors (exit 2) or BAD_DATA naming the file and line (exit 1).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../../src/generate/generate.js';
import { GENERATE_FIXTURES } from '../support/generation-fixtures.js';
import { runCli } from '../support/run-cli.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-generate-cli-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const model = path.join(GENERATE_FIXTURES, 'gpt2-past.onnx');

interface GenerationsFile {
  readonly usedKvCache: boolean;
  readonly generatedTokens: number;
  readonly tokensPerSecond: number;
  readonly generations: { prompt: string; promptTokenCount: number; tokenIds: number[]; text: string; finishReason: string }[];
}

describe('mlrb-eval generate', () => {
  it('writes the generate() results as JSON, prompts from flags and a file in order', async () => {
    const promptsFile = path.join(workDir, 'prompts.jsonl');
    writeFileSync(promptsFile, '"Once upon a time"\n\n{"prompt": "The dog"}\n');
    const output = path.join(workDir, 'out.json');
    const { code, stdout } = await runCli([
      'generate',
      model,
      '--prompt',
      'Lily saw',
      '--prompts-file',
      promptsFile,
      '--max-new-tokens',
      '7',
      '--temperature',
      '0.8',
      '--top-k',
      '20',
      '--seed',
      '3',
      '--batch-size',
      '2',
      '--output',
      output,
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/tokens\/s, KV cache\)/);
    const written = JSON.parse(readFileSync(output, 'utf8')) as GenerationsFile;
    const prompts = ['Lily saw', 'Once upon a time', 'The dog'];
    const library = await generate({ model, prompts, maxNewTokens: 7, sampling: { temperature: 0.8, topK: 20, seed: 3 }, onWarning: () => {} });
    expect(written.usedKvCache).toBe(true);
    expect(written.generations.map((generation) => generation.prompt)).toEqual(prompts);
    expect(written.generations.map((generation) => generation.tokenIds)).toEqual(library.generations.map((generation) => [...generation.tokenIds]));
    expect(written.generations.map((generation) => generation.text)).toEqual(library.generations.map((generation) => generation.text));
    expect(written.generatedTokens).toBe(written.generations.reduce((sum, generation) => sum + generation.tokenIds.length, 0));
    expect(written.tokensPerSecond).toBeGreaterThan(0);
  });

  it('refuses sampling flags without --temperature, and a missing prompt, as usage errors', async () => {
    const noTemperature = await runCli(['generate', model, '--prompt', 'x', '--seed', '4']);
    expect(noTemperature.code).toBe(2);
    expect(noTemperature.stderr).toMatch(/give --temperature too/);
    const noPrompt = await runCli(['generate', model]);
    expect(noPrompt.code).toBe(2);
    const zeroTokens = await runCli(['generate', model, '--prompt', 'x', '--max-new-tokens', '0']);
    expect(zeroTokens.code).toBe(2);
  });

  it('names the file and line of a prompt it cannot read', async () => {
    const promptsFile = path.join(workDir, 'bad.jsonl');
    writeFileSync(promptsFile, '"fine"\n{"text": 3}\n');
    const { code, stderr } = await runCli(['generate', model, '--prompts-file', promptsFile]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/BAD_DATA.*bad\.jsonl line 2/);
  });

  it('warns that a graph without KV cache recomputes each token, where fused attention cannot keep one (--no-cpu-fusion)', async () => {
    const { code, stderr } = await runCli([
      'generate',
      path.join(GENERATE_FIXTURES, 'llama-nopast.onnx'),
      '--prompt',
      'Once',
      '--max-new-tokens',
      '3',
      '--no-cpu-fusion',
    ]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/no KV-cache inputs .*could not keep a cache/);
  });

  it("decodes a graph without past inputs through the fused attention's cache, without the warning", async () => {
    const output = path.join(workDir, 'nopast.json');
    const { code, stderr } = await runCli([
      'generate',
      path.join(GENERATE_FIXTURES, 'llama-nopast.onnx'),
      '--prompt',
      'Once',
      '--max-new-tokens',
      '3',
      '--output',
      output,
    ]);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/no KV-cache inputs/);
    expect((JSON.parse(readFileSync(output, 'utf8')) as { usedKvCache: boolean }).usedKvCache).toBe(true);
  });
});
