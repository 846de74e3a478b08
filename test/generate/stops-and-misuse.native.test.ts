/**
 * Stop strings, checked against transformers' generate(stop_strings=…) ids and a plain-JS reference over the
 * decoded greedy text; and hostile or mistaken use:
 * ids outside the vocabulary, empty prompts, settings out of range, overlapping steps, use after dispose.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MlrbError } from '../../src/errors.js';
import { createTextGenerator } from '../../src/generate/text-generator.js';
import type { LanguageModel } from '../../src/model/onnx-model.js';
import type { NativeGenerationRequest } from '../../src/native/binding.js';
import { rejectedMlrbError, thrownMlrbError } from '../support/expect-mlrb-error.js';
import { ARCHITECTURES, expectations, GENERATE_FIXTURES, loadFixtureModel } from '../support/generation-fixtures.js';

const expected = expectations.models.gpt2;
let model: LanguageModel;
beforeAll(async () => {
  model = await loadFixtureModel('gpt2', 'past');
});
afterAll(() => model.dispose());

describe('stop strings', () => {
  // One pass per call, and 8 (the default), where native decodes past the stop before JS sees it.
  it.each([1, 8])('end a generation at the first token whose text holds one, its text cut before the earliest (%i passes per call)', async (stepsPerCall) => {
    const tokenizer = model.requireTokenizer();
    const decode = (ids: readonly number[]): string => tokenizer.decode(ids, { skipSpecialTokens: true });
    // Stop strings taken from the middle of two prompts' greedy text, so some prompts stop and others need not.
    const texts = expected.greedy.map(decode);
    const middle = (text: string): string => text.slice(Math.floor(text.length / 2), Math.floor(text.length / 2) + 3);
    const stopStrings = [middle(texts[2]!), middle(texts[4]!), ''];
    expect(stopStrings[0]!.length).toBe(3);
    const generations = await createTextGenerator(model, { stepsPerCall }).generate(expectations.prompts, {
      maxNewTokens: expectations.maxNewTokens,
      eosTokenIds: [],
      stopStrings,
    });
    expectations.prompts.forEach((_, index) => {
      const greedy = expected.greedy[index]!;
      // The reference: the shortest greedy prefix whose decoded text contains a stop string, and that full
      // text cut at the earliest occurrence of any.
      const stopsAt = greedy.findIndex((_, k) => stopStrings.some((stop) => stop !== '' && decode(greedy.slice(0, k + 1)).includes(stop)));
      const generation = generations[index]!;
      if (stopsAt < 0) {
        expect([...generation.tokenIds]).toEqual(greedy);
        expect(generation.text).toBe(texts[index]);
        expect(generation.finishReason).toBe('max_new_tokens');
        return;
      }
      const text = decode(greedy.slice(0, stopsAt + 1));
      const cut = Math.min(
        ...stopStrings
          .filter((stop) => stop !== '')
          .map((stop) => text.indexOf(stop))
          .filter((at) => at >= 0),
      );
      expect([...generation.tokenIds]).toEqual(greedy.slice(0, stopsAt + 1));
      expect(generation.text).toBe(text.slice(0, cut));
      expect(generation.finishReason).toBe('stop_string');
    });
    expect(generations.filter((generation) => generation.finishReason === 'stop_string').length).toBeGreaterThanOrEqual(2);
  });
});

/** scripts/generate/record_stop_string_expectations.py: transformers' ids per prompt with these stop strings. */
interface StopStringExpectations {
  readonly maxNewTokens: number;
  readonly models: Record<(typeof ARCHITECTURES)[number], { readonly stopStrings: string[]; readonly ids: number[][] }>;
}
const transformersStops = JSON.parse(readFileSync(path.join(GENERATE_FIXTURES, 'stop-string-expectations.json'), 'utf8')) as StopStringExpectations;

describe.each(ARCHITECTURES)("stop strings as transformers' generate(stop_strings=…) on %s", (arch) => {
  it('end at the same token, native decoding 8 passes per call', async () => {
    const { stopStrings, ids } = transformersStops.models[arch];
    const fixture = await loadFixtureModel(arch, 'past');
    try {
      const generations = await createTextGenerator(fixture).generate(expectations.prompts, {
        maxNewTokens: transformersStops.maxNewTokens,
        eosTokenIds: [],
        stopStrings,
      });
      expect(generations.map((generation) => [...generation.tokenIds])).toEqual(ids);
      const tokenizer = fixture.requireTokenizer();
      generations.forEach((generation, index) => {
        const text = tokenizer.decode(ids[index]!, { skipSpecialTokens: true });
        const stopped = stopStrings.some((stop) => text.includes(stop));
        expect(generation.finishReason).toBe(stopped ? 'stop_string' : 'max_new_tokens');
      });
      expect(generations.filter((generation) => generation.finishReason === 'stop_string').length).toBeGreaterThanOrEqual(3);
    } finally {
      fixture.dispose();
    }
  });
});

describe('hostile input', () => {
  const generator = () => createTextGenerator(model);

  it('refuses ids outside the vocabulary, naming the prompt and position', async () => {
    const error = await rejectedMlrbError(() =>
      generator().generate(
        [
          [5, 6],
          [7, 512, 8],
        ],
        { maxNewTokens: 2 },
      ),
    );
    expect(error.code).toBe('BAD_DATA');
    expect(error.details).toMatchObject({ prompt: 1, position: 1, tokenId: 512 });
    const negative = await rejectedMlrbError(() => generator().generate([[-1]], { maxNewTokens: 2 }));
    expect(negative.code).toBe('BAD_DATA');
  });

  it('refuses empty prompts', async () => {
    const error = await rejectedMlrbError(() => generator().generate([[5], []], { maxNewTokens: 2 }));
    expect(error.code).toBe('BAD_DATA');
    expect(error.details).toMatchObject({ prompt: 1 });
  });

  it('refuses prompts that would pass the maximum length', async () => {
    const error = await rejectedMlrbError(() => generator().generate([Array.from({ length: model.maxLength }, () => 5)], { maxNewTokens: 1 }));
    expect(error.code).toBe('BAD_DATA');
  });

  it('refuses settings out of range with RangeError', async () => {
    await expect(generator().generate([[5]], { maxNewTokens: 0 })).rejects.toThrow(RangeError);
    await expect(generator().generate([[5]], { maxNewTokens: 1.5 })).rejects.toThrow(RangeError);
    await expect(generator().generate([[5]], { maxNewTokens: 2, sampling: { temperature: 0, seed: 1 } })).rejects.toThrow(RangeError);
    await expect(generator().generate([[5]], { maxNewTokens: 2, sampling: { temperature: 1, topK: -1, seed: 1 } })).rejects.toThrow(RangeError);
    await expect(generator().generate([[5]], { maxNewTokens: 2, sampling: { temperature: 1, seed: -3 } })).rejects.toThrow(RangeError);
    expect(() => createTextGenerator(model, { batchSize: 0 })).toThrow(RangeError);
  });
});

describe('the native handle', () => {
  const request = (prompts: number[][], maxNewTokens = 4): NativeGenerationRequest => ({
    tokens: Int32Array.from(prompts.flat()),
    promptOffsets: Int32Array.from(prompts.reduce<number[]>((offsets, prompt) => offsets.concat(offsets.at(-1)! + prompt.length), [0])),
    streams: Int32Array.from(prompts.map((_, index) => index)),
    maxNewTokens,
    eosTokenIds: new Int32Array(),
  });

  it('validates the request before any work starts', () => {
    expect(thrownMlrbError(() => model.startGeneration(request([[3, 600]]))).code).toBe('BAD_DATA');
    expect(thrownMlrbError(() => model.startGeneration(request([[3], []]))).code).toBe('BAD_DATA');
    expect(() => model.startGeneration(request([[3]], 0))).toThrow(RangeError);
    expect(() => model.startGeneration({ ...request([[3]]), streams: new Int32Array() })).toThrow(RangeError);
    expect(() => model.startGeneration({ ...request([[3]]), tokens: [3] as unknown as Int32Array })).toThrow(TypeError);
  });

  it('refuses overlapping steps, stops during a step and disposal while one runs, then use after dispose', async () => {
    const generation = model.startGeneration(request([expectations.prompts[1]!, expectations.prompts[5]!], 8));
    const running = generation.step(4);
    expect(thrownMlrbError(() => generation.step(1)).code).toBe('BUSY');
    expect(thrownMlrbError(() => generation.stop(Int32Array.of(0))).code).toBe('BUSY');
    expect(thrownMlrbError(() => generation.dispose()).code).toBe('BUSY');
    expect(thrownMlrbError(() => model.dispose()).code).toBe('BUSY');
    const first = await running;
    expect([...first.prompts]).toEqual([0, 1]);
    // Four passes: each prompt's first tokens (the fused cache staggers the longer prompt, which then has fewer).
    const firstTokens = [0, 1].map((row) => [...first.tokens.subarray(first.tokenOffsets[row], first.tokenOffsets[row + 1])]);
    expect(firstTokens[0]).toEqual(expected.greedy[1]!.slice(0, firstTokens[0]!.length));
    expect(firstTokens[1]).toEqual(expected.greedy[5]!.slice(0, 4));
    expect(firstTokens[0]!.length).toBeGreaterThan(0);
    expect([...first.finish]).toEqual([0, 0]);
    generation.stop(Int32Array.of(0));
    const second = await generation.step(10);
    // Prompt 0 left the batch; prompt 1 runs on to its limit of 8 with the KV rows gathered.
    expect([...second.prompts]).toEqual([1]);
    expect([...second.tokens]).toEqual(expected.greedy[5]!.slice(4, 8));
    expect([...second.finish]).toEqual([2]);
    expect(generation.finished).toBe(true);
    generation.dispose();
    expect(thrownMlrbError(() => generation.step(1)).code).toBe('DISPOSED');
    expect(() => generation.stop(Int32Array.of(5))).toThrow(MlrbError);
  });

  it('refuses unequal prompt lengths where the graph numbers positions from its own cache', async () => {
    // Unfused, so it decodes through its own past (fused, the decodeCache rewrite staggers such prompts instead).
    const unpadded = await loadFixtureModel('gpt2', 'past-nopositions', false);
    try {
      const error = thrownMlrbError(() => unpadded.startGeneration(request([[3, 4], [5]])));
      expect(error.code).toBe('BAD_DATA');
      expect(error.message).toMatch(/no position_ids/);
      // The library batches such prompts by length instead, and still matches transformers.
      const generations = await createTextGenerator(unpadded).generate(expectations.prompts, { maxNewTokens: expectations.maxNewTokens, eosTokenIds: [] });
      expect(generations.map((generation) => [...generation.tokenIds])).toEqual(expected.greedy);
    } finally {
      unpadded.dispose();
    }
  });
});
