/**
 * A KV-cache batch whose longest prompt finishes first: when it leaves, the left-padding columns that no
 * remaining row attends to are cut from the cache (native/ort/generation_session.h). The reference is each
 * prompt decoded alone (batch 1: no padding, no neighbours, no row ever leaving), so the ids must not depend
 * on the batch having shed those columns. (test/generate/greedy.native.test.ts's EOS case, where the 17-token prompt
 * stops first, checks the same path against transformers' ids.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTextGenerator } from '../../src/generate/text-generator.js';
import type { Generation } from '../../src/generate/types.js';
import type { LanguageModel } from '../../src/model/onnx-model.js';
import { ARCHITECTURES, expectations, loadFixtureModel } from '../support/generation-fixtures.js';

const MAX_NEW_TOKENS = 12;
/** 39 tokens: every fixture prompt in a row, so it pads the short ones by up to 38 columns. */
const LONG_PROMPT = expectations.prompts.flat();
/** The long prompt second, among prompts of 5, 1 and 12 tokens: after it leaves, the rows keep unequal padding. */
const PROMPTS = [LONG_PROMPT.slice(3, 8), LONG_PROMPT, [LONG_PROMPT[20]!], LONG_PROMPT.slice(10, 22)];
const LONG_ROW = 1;

const ids = (generations: readonly Generation[]): number[][] => generations.map((generation) => [...generation.tokenIds]);

describe.each(ARCHITECTURES)('%s with position_ids', (arch) => {
  describe.each([true, false])('cpuFusion %s', (cpuFusion) => {
    let model: LanguageModel;
    beforeAll(async () => {
      model = await loadFixtureModel(arch, 'past', cpuFusion);
    });
    afterAll(() => model.dispose());

    const alone = async (eosTokenIds: number[]): Promise<number[][]> => {
      const generator = createTextGenerator(model, { batchSize: 1 });
      return ids(await generator.generate(PROMPTS, { maxNewTokens: MAX_NEW_TOKENS, eosTokenIds }));
    };

    /** An EOS id that ends the long prompt's run before any other prompt's (each decoded alone). */
    const eosEndingTheLongPromptFirst = async (): Promise<{ eos: number; reference: number[][] }> => {
      const [longRun] = ids(await createTextGenerator(model, { batchSize: 1 }).generate([LONG_PROMPT], { maxNewTokens: MAX_NEW_TOKENS, eosTokenIds: [] }));
      for (const candidate of new Set(longRun!.slice(0, MAX_NEW_TOKENS / 2))) {
        const reference = await alone([candidate]);
        const longest = reference[LONG_ROW]!.length;
        if (reference.every((run, row) => row === LONG_ROW || run.length > longest + 1)) return { eos: candidate, reference };
      }
      throw new Error(`no id of the long prompt's first ${MAX_NEW_TOKENS / 2} ends it before the others; pick other prompts`);
    };

    it("keeps each prompt's ids those it gets alone when the longest prompt leaves the batch first", async () => {
      const { eos, reference } = await eosEndingTheLongPromptFirst();
      const generations = await createTextGenerator(model, { batchSize: PROMPTS.length, stepsPerCall: 2 }).generate(PROMPTS, {
        maxNewTokens: MAX_NEW_TOKENS,
        eosTokenIds: [eos],
      });
      expect(ids(generations)).toEqual(reference);
      expect(generations[LONG_ROW]!.finishReason).toBe('eos');
      // The others ran on past it, several passes over the trimmed cache.
      expect(generations.every((generation, row) => row === LONG_ROW || generation.tokenIds.length > generations[LONG_ROW]!.tokenIds.length + 1)).toBe(true);
    });

    it('keeps them when every row runs to maxNewTokens (no row leaves, nothing is cut)', async () => {
      const generations = await createTextGenerator(model, { batchSize: PROMPTS.length, stepsPerCall: 5 }).generate(PROMPTS, {
        maxNewTokens: MAX_NEW_TOKENS,
        eosTokenIds: [],
      });
      expect(ids(generations)).toEqual(await alone([]));
    });
  });
});
