/**
 * Generation on hostile models, tokenizers and prompts: each ends in a typed error naming what is at fault, never
 * in exit 0 with made-up tokens or in a RangeError from deep inside a library.
 *   - logits with no usable maximum (all +Infinity, all -Infinity, NaN) are NUMERIC, as scoring says of them;
 *   - a prompt longer than any context in use is BAD_DATA naming the file and line (or the prompt);
 *   - a tokenizer whose decoder expands a token to millions of characters is BAD_DATA, however the text is read.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/generate/generate.js';
import { GENERATE_FIXTURES } from '../support/generation-fixtures.js';
import { TINY_LM_SPECIAL_TOKENS } from '../support/model-builders/tiny-causal-lm.js';
import { rejectedMlrbError } from '../support/expect-mlrb-error.js';
import { writeBigramModel } from '../support/odd-models.js';
import { runCli } from '../support/run-cli.js';
import { makeTempDir } from '../support/temp-dirs.js';

const root = makeTempDir('hostile-generation');
/** The tiny tokenizer's id of "a" (after four special tokens and the word marker). */
const LETTER_A = 5;

describe('generation on hostile inputs', () => {
  it.each([
    ['+Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
  ])('EXPECTED FAILURE – every logit %s: NUMERIC, greedy and sampled, not exit 0 with token 0', async (name, value) => {
    const model = writeBigramModel(path.join(root, `all-${name}`), () => value);
    const greedy = await runCli(['generate', model, '--prompt', 'the cat', '--max-new-tokens', '4']);
    expect(greedy.code).toBe(1);
    expect(greedy.stderr).toMatch(/error \[NUMERIC\]: the logits for prompt 0 at new token 0 hold NaN or \+Infinity, or no finite value/);
    expect(greedy.stdout).toBe('');
    const sampled = await rejectedMlrbError(() =>
      generate({ model, prompts: ['the cat'], maxNewTokens: 4, sampling: { temperature: 0.7, topK: 5, seed: 1 }, onWarning: () => {} }),
    );
    expect(sampled.code).toBe('NUMERIC');
  });

  it('a row with some -Infinity logits and a finite maximum is still a distribution: it generates', async () => {
    const model = writeBigramModel(path.join(root, 'masked'), (_previous, next) => (next === LETTER_A ? 1 : Number.NEGATIVE_INFINITY));
    const result = await generate({ model, prompts: ['the cat'], maxNewTokens: 3, onWarning: () => {} });
    expect([...(result.generations[0]?.tokenIds ?? [])]).toEqual([LETTER_A, LETTER_A, LETTER_A]);
  });

  it('EXPECTED FAILURE – a 20 MB one-line prompts file: BAD_DATA naming the file and line, within seconds', async () => {
    // GPT-2's byte-level BPE: one 20 MB word exhausts the tokenizer library's recursion (a RangeError, exit 2, before).
    const model = path.join(GENERATE_FIXTURES, 'gpt2-past.onnx');
    const promptsFile = path.join(root, 'long.txt');
    writeFileSync(promptsFile, `short prompt\n${'a'.repeat(20_000_000)}\n`);
    const started = performance.now();
    const run = await runCli(['generate', model, '--prompts-file', promptsFile, '--max-new-tokens', '2']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/error \[BAD_DATA\]: .*long\.txt line 2 has 20,000,000 characters, over the limit of 1,048,576 for one prompt/);
    expect(performance.now() - started).toBeLessThan(10_000);
    // The library refuses the same text handed to it directly, naming the prompt.
    const direct = await rejectedMlrbError(() => generate({ model, prompts: ['fine', 'b'.repeat(2_000_000)], maxNewTokens: 2, onWarning: () => {} }));
    expect(direct.code).toBe('BAD_DATA');
    expect(direct.message).toMatch(/^prompt 1 has 2,000,000 characters, over the limit of 1,048,576 for one prompt/);
  });

  it('a .jsonl prompt line nested 100,000 deep is BAD_DATA naming the file and line (the one bounded JSON parser)', async () => {
    const promptsFile = path.join(root, 'deep.jsonl');
    writeFileSync(promptsFile, `"fine"\n${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
    const run = await runCli(['generate', path.join(GENERATE_FIXTURES, 'gpt2-past.onnx'), '--prompts-file', promptsFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/error \[BAD_DATA\]: .*deep\.jsonl line 2 nests deeper than 64 levels/);
  });

  it.each([
    ['read once at the end', []],
    ['checked token by token for a stop string', ['--stop', 'never']],
  ])('EXPECTED FAILURE – a decoder that expands a token to millions of characters (text %s): BAD_DATA, not a RangeError', async (_name, stop) => {
    const model = writeBigramModel(
      path.join(root, `expanding-${stop.length}`),
      (_previous, next) => (next === LETTER_A ? 1 : 0),
      (tokenizer) => {
        tokenizer.decoder = { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: 'a' }, content: 'x'.repeat(5_000_000) }, tokenizer.decoder] };
      },
    );
    const run = await runCli(['generate', model, '--prompt', 'the cat', '--max-new-tokens', '200', ...stop]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /error \[BAD_DATA\]: the text generated for prompt 0(?: has [\d,]+ characters after its ids are decoded, over the limit of 4,194,304|: the tokenizer .* failed decoding 200 ids)/,
    );
    expect(run.stderr).not.toMatch(/RangeError|Invalid string length/);
  });

  it('the EOS bigram model still ends at EOS (the shared builder keeps its meaning)', async () => {
    const model = writeBigramModel(path.join(root, 'eos'), (_previous, next) => (next === TINY_LM_SPECIAL_TOKENS.eos ? 30 : 0));
    const result = await generate({ model, prompts: ['the cat'], maxNewTokens: 5, onWarning: () => {} });
    expect(result.generations[0]?.finishReason).toBe('eos');
  });
});
