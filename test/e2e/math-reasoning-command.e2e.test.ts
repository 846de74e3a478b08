/**
 * `mlrb-eval math-reasoning MODEL --data FILE.jsonl` through the CLI's error boundary, mostly with a scripted
 * generator in place of the engine and a fake `lean`, once with the built-in engine. The metric figures themselves are checked against
 * sacrebleu and nltk-backed ROUGE-L in test/math-reasoning; here: flags, the report file, exit codes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { MathReasoningReport } from '../../src/math-reasoning/score.js';
import { fakeGeneratorServices } from '../support/fake-generator-services.js';
import { runCli } from '../support/run-cli.js';

const FAKE_LEAN = fileURLToPath(new URL('../support/fake-lean.mjs', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'math-reasoning-cli-'));
const data = path.join(work, 'problems.jsonl');
writeFileSync(
  data,
  [
    { name: 'add_zero', informal_statement: 'n + 0 = n', informal_proof: 'by definition', formal_proof: 'theorem add_zero (n : ℕ) : n + 0 = n := rfl' },
    { name: 'two', informal_statement: '1 + 1 = 2', informal_proof: 'compute', formal_proof: 'theorem two : 1 + 1 = 2 := rfl' },
  ]
    .map((row) => JSON.stringify(row))
    .join('\n'),
);
/** The first problem is answered with its reference, the second with a sorry. */
const answer = (prompt: string): string => (prompt.includes('n + 0 = n') ? 'theorem add_zero (n : ℕ) : n + 0 = n := rfl' : 'theorem two : 1 + 1 = 2 := sorry');

describe('mlrb-eval math-reasoning', () => {
  it('writes the report to --output and a summary to stderr; the generator is opened once and closed', async () => {
    const services = fakeGeneratorServices(answer);
    const output = path.join(work, 'report.json');
    const run = await runCli(
      [
        'math-reasoning',
        'model-dir',
        '--data',
        data,
        '--lean',
        FAKE_LEAN,
        '--lean-timeout',
        '5',
        '--max-new-tokens',
        '80',
        '--threads',
        '2',
        '--output',
        output,
      ],
      services,
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(output, 'utf8')) as MathReasoningReport;
    expect(report.problems.map((problem) => [problem.name, problem.lean?.status])).toEqual([
      ['add_zero', 'compiled'],
      ['two', 'failed'],
    ]);
    expect(report.metrics.lean).toMatchObject({ compiled: 1, failed: 1, compile_rate: 0.5 });
    expect(report.problems[0]?.rouge_l).toBe(1);
    expect(report.settings).toMatchObject({ max_new_tokens: 80, lean_timeout_s: 5 });
    expect(services.opened).toEqual([{ model: 'model-dir', options: { threads: 2 } }]);
    expect(services.closed).toBe(1);
    expect(services.generator.calls[0]?.settings.maxNewTokens).toBe(80);
    expect(run.stderr).toMatch(/ROUGE-L \(mean F\): \d\.\d{4}/u);
    expect(run.stderr).toContain('Lean: 50.0% compiled (1 compiled, 1 failed, 0 timed out)');
    expect(run.stdout).toBe('');
  });

  it('prints the report to stdout without --output; a --template file replaces the prompt', async () => {
    const services = fakeGeneratorServices(answer);
    const template = path.join(work, 'template.txt');
    writeFileSync(template, '-- {name}: {informal_statement}\n');
    const run = await runCli(['math-reasoning', 'm', '--data', data, '--template', template, '--limit', '1'], services);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as MathReasoningReport;
    expect(report).toMatchObject({
      problems_scored: 1,
      problems_in_file: 2,
      settings: { template: '-- {name}: {informal_statement}\n' },
      metrics: { lean: null },
    });
    const prompt = String.fromCodePoint(...(services.generator.calls[0]?.prompts[0] ?? []).slice(1));
    expect(prompt).toBe('-- add_zero: n + 0 = n\n');
  });

  it('generates with the built-in engine by default (a Llama-shaped export with a KV cache)', async () => {
    const generation = fileURLToPath(new URL('../fixtures/generate/', import.meta.url));
    const output = path.join(work, 'engine-report.json');
    const args = ['math-reasoning', path.join(generation, 'llama-past.onnx'), '--tokenizer', path.join(generation, 'tokenizer.json'), '--data', data];
    const run = await runCli([...args, '--max-new-tokens', '6', '--output', output]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(output, 'utf8')) as MathReasoningReport;
    expect(report.problems_scored).toBe(2);
    for (const problem of report.problems) {
      expect(problem.generated_tokens).toBeGreaterThan(0);
      expect(problem.generated_tokens).toBeLessThanOrEqual(6);
      expect(problem.rouge_l).toBeGreaterThanOrEqual(0);
    }
    // Greedy decoding is deterministic: a second run writes the same outputs.
    const again = await runCli([...args, '--max-new-tokens', '6']);
    expect((JSON.parse(again.stdout) as MathReasoningReport).problems.map((problem) => problem.output)).toEqual(
      report.problems.map((problem) => problem.output),
    );
  });

  it("stems ROUGE-L's tokens as MLRB does unless --no-rouge-stemmer", async () => {
    const inflected = path.join(work, 'inflected.jsonl');
    writeFileSync(
      inflected,
      `${JSON.stringify({ name: 'z', informal_statement: 's', informal_proof: 'p', formal_proof: 'theorem adds_zeros (n : ℕ) : n + 0 = n := rfl' })}\n`,
    );
    const answerInflected = (): string => 'theorem add_zero (n : ℕ) : n + 0 = n := rfl';
    const stemmed = JSON.parse(
      (await runCli(['math-reasoning', 'm', '--data', inflected], fakeGeneratorServices(answerInflected))).stdout,
    ) as MathReasoningReport;
    // Stemmed (nltk), adds → add and zeros → zero ('add' is too short to stem): the token lists are equal.
    expect([stemmed.settings.rouge_stemmer, stemmed.metrics.rouge_l]).toEqual([true, 1]);
    const run = await runCli(['math-reasoning', 'm', '--data', inflected, '--no-rouge-stemmer'], fakeGeneratorServices(answerInflected));
    expect(run.code, run.stderr).toBe(0);
    const unstemmed = JSON.parse(run.stdout) as MathReasoningReport;
    // [theorem add zero n n 0 n rfl] vs [theorem adds zeros n n 0 n rfl]: LCS 6 of 8 on both sides.
    expect(unstemmed.settings.rouge_stemmer).toBe(false);
    expect(unstemmed.metrics.rouge_l).toBeCloseTo(0.75, 15);
  });

  it('BAD CALL – usage mistakes exit 2 before a model is opened', async () => {
    const services = fakeGeneratorServices(answer);
    const badTemplate = path.join(work, 'bad-template.txt');
    writeFileSync(badTemplate, '{formal_proof}');
    for (const args of [
      ['math-reasoning', 'm'],
      ['math-reasoning', 'm', '--data', data, '--lean-timeout', '3'],
      ['math-reasoning', 'm', '--data', data, '--max-new-tokens', '0'],
      ['math-reasoning', 'm', '--data', data, '--template', badTemplate],
    ]) {
      const run = await runCli(args, services);
      expect(run.code, args.join(' ')).toBe(2);
    }
    expect(services.opened).toHaveLength(0);
  });

  it('EXPECTED FAILURE – a bad row is BAD_DATA naming the line, found before the model is opened', async () => {
    const services = fakeGeneratorServices(answer);
    const bad = path.join(work, 'bad.jsonl');
    writeFileSync(bad, `${readFileSync(data, 'utf8')}\n{"name": "x"}\n`);
    const run = await runCli(['math-reasoning', 'm', '--data', bad], services);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/error \[BAD_DATA\]: .*bad\.jsonl line 3: field "informal_statement"/u);
    expect(services.opened).toHaveLength(0);
  });

  it('closes the generator when scoring fails after it was opened', async () => {
    const services = fakeGeneratorServices(answer);
    const failing = {
      ...services,
      openGenerator: async (...args: Parameters<typeof services.openGenerator>) => ({
        ...(await services.openGenerator(...args)),
        generator: { generate: async () => [] },
      }),
    };
    const run = await runCli(['math-reasoning', 'm', '--data', data], failing);
    expect(run.code).toBe(1); // the generator broke its contract (one generation per prompt)
    expect(run.stderr).toContain('error [INTERNAL]: the generator returned 0 generations for 2 prompts');
    expect(services.closed).toBe(1);
  });
});
