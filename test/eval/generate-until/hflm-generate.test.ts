/**
 * HFLM's generate_until semantics over a TextGenerator (src/eval/generate-until/hflm-generate.ts), with a scripted
 * generator (test/support/fake-text-generator.ts): context encoding and left truncation to max_length −
 * max_gen_toks, `until` plus the EOS text, the continuation cut at each until term, kwargs grouping and order.
 * The stop-string rules themselves are held to lm-eval's in test/eval/generate-until/gsm8k-lm-eval.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  contextTokens,
  generateUntil,
  HFLM_DEFAULT_MAX_GEN_TOKS,
  planGeneration,
  type HflmGenerateOptions,
} from '../../../src/eval/generate-until/hflm-generate.js';
import type { GenerateUntilRequest } from '../../../src/eval/generate-until/requests.js';
import type { GenerationKwargs } from '../../../src/tasks/generate-until-types.js';
import { thrownMlrbError } from '../../support/expect-mlrb-error.js';
import { FakeTextGenerator } from '../../support/lookup-text-generator.js';

const EOS = 2;
/** A character-level "tokenizer": id = code point + 10, so ids below 10 are free for specials. */
const encode = (text: string): number[] => [...text].map((char) => (char.codePointAt(0) ?? 0) + 10);
const decode = (id: number): string => (id < 10 ? '' : String.fromCodePoint(id - 10));
const options: HflmGenerateOptions = { encode, eosText: '</s>', maxLength: 40 };
const GREEDY: GenerationKwargs = { until: ['Question:', '</s>', '<|im_end|>'], doSample: false, temperature: 0, maxGenToks: 8 };

function request(docId: number, context: string, generationKwargs: GenerationKwargs = GREEDY): GenerateUntilRequest {
  return { taskName: 'demo', docId, context, generationKwargs };
}

/** The generator answers each prompt with `answers[last prompt character]`, as character ids. */
function scripted(answers: Readonly<Record<string, readonly number[] | string>>): FakeTextGenerator {
  return new FakeTextGenerator((prompt) => {
    const last = decode(prompt[prompt.length - 1] ?? 0);
    const answer = answers[last] ?? '';
    return { tokenIds: typeof answer === 'string' ? encode(answer) : answer, decode };
  }, EOS);
}

describe('HFLM generate_until over a TextGenerator', () => {
  it('asks for greedy decoding of max_gen_toks tokens with until plus the EOS text as stop strings', async () => {
    const generator = scripted({ a: ' 1' });
    await generateUntil([request(0, 'Qa')], generator, options);
    // gsm8k's until already holds "</s>", so nothing is added.
    expect(generator.calls).toEqual([{ prompts: [encode('Qa')], settings: { maxNewTokens: 8, stopStrings: ['Question:', '</s>', '<|im_end|>'] } }]);
  });

  it("appends the EOS text only when until lacks it, and uses HFLM's 256 without max_gen_toks", () => {
    const plan = planGeneration({ until: ['\n\n'], doSample: false, temperature: 0 }, { ...options, maxLength: 2048, eosText: '<|endoftext|>' });
    expect(plan).toEqual({
      until: ['\n\n', '<|endoftext|>'],
      maxGenToks: HFLM_DEFAULT_MAX_GEN_TOKS,
      settings: { maxNewTokens: 256, stopStrings: ['\n\n', '<|endoftext|>'] },
    });
    expect(planGeneration({ ...GREEDY, maxGenToks: undefined }, { ...options, maxLength: 300, defaultMaxGenToks: 32 }).maxGenToks).toBe(32);
  });

  it('keeps the last max_length − max_gen_toks context tokens (left truncation)', async () => {
    const context = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ'; // 46 characters, 46 ids
    const generator = scripted({ J: ' 7' });
    const [answer] = await generateUntil([request(0, context)], generator, options);
    expect(generator.calls[0]?.prompts[0]).toEqual(encode(context).slice(46 - (40 - 8)));
    expect(answer).toBe(' 7');
    const plan = planGeneration(GREEDY, options);
    expect(contextTokens('short', plan, options)).toEqual(encode('short'));
  });

  it('cuts the text at every until term (the earliest wins), at the EOS id and at max_gen_toks', async () => {
    const long: GenerationKwargs = { ...GREEDY, maxGenToks: 30 };
    const generator = scripted({
      a: ' 21\nQuestion: more',
      b: ' 5<|im_end|>x Question:',
      c: [...encode(' 9'), EOS, ...encode(' after eos')],
      d: ' no stop at all, cut by max_gen_toks',
    });
    const answers = await generateUntil([request(0, 'a', long), request(1, 'b', long), request(2, 'c', long), request(3, 'd', long)], generator, options);
    expect(answers).toEqual([' 21\n', ' 5', ' 9', ' no stop at all, cut by max_gen_toks'.slice(0, 30)]);
  });

  it('applies the cut itself even when an engine returns uncut text', async () => {
    const uncut = {
      generate: async () => [{ promptTokenCount: 1, tokenIds: new Int32Array([1]), text: ' 3</s>Question: 4', finishReason: 'max_new_tokens' as const }],
    };
    expect(await generateUntil([request(0, 'a')], uncut, options)).toEqual([' 3']);
  });

  it('generates each group of equal kwargs together and answers in request order', async () => {
    const other: GenerationKwargs = { ...GREEDY, until: ['\n'], maxGenToks: 4 };
    const generator = scripted({ a: ' A\n', b: ' B\n', c: ' C\n' });
    const answers = await generateUntil([request(0, 'a'), request(1, 'b', other), request(2, 'c')], generator, options);
    expect(answers).toEqual([' A\n', ' B', ' C\n']);
    expect(generator.calls.map((call) => [call.prompts.length, call.settings.maxNewTokens])).toEqual([
      [2, 8],
      [1, 4],
    ]);
  });

  it('reports progress over all requests', async () => {
    const generator = scripted({ a: ' 1', b: ' 2' });
    const seen: number[] = [];
    await generateUntil([request(0, 'a'), request(1, 'b', { ...GREEDY, until: ['x'] })], generator, options, (progress) => {
      expect(progress.totalPrompts).toBe(2);
      seen.push(progress.finishedPrompts);
    });
    expect(seen).toEqual([1, 2]);
  });

  it('EXPECTED FAILURE – refuses sampling, max_gen_toks ≥ max_length and a context that encodes to nothing', () => {
    expect(() => planGeneration({ ...GREEDY, doSample: true, temperature: 0.7 }, options)).toThrow(/do_sample/);
    expect(() => planGeneration({ ...GREEDY, maxGenToks: 40 }, options)).toThrow(/must be less than the model's max length 40/);
    expect(() => planGeneration({ ...GREEDY, maxGenToks: 0 }, options)).toThrow(RangeError);
    const error = thrownMlrbError(() => contextTokens('', planGeneration(GREEDY, options), options));
    expect(error.code).toBe('BAD_DATA');
  });
});
