/**
 * Greedy generation against transformers: the ids transformers' generate(do_sample=False) produced for each
 * prompt alone (batch 1, recorded by scripts/generate/record_greedy_expectations.py) must come out token for
 * token when the prompts of mixed lengths decode together, with the KV cache (left-padded prefill, rows leaving
 * the batch as they finish), without past inputs through the fused attention's cache (fusion on: every row fed
 * the same positions, longer prompts staggered) or full recompute (fusion off), with CPU fusion on and off.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeCacheOf } from '../../src/generate/decode-cache.js';
import { createTextGenerator } from '../../src/generate/text-generator.js';
import type { GenerationProgress } from '../../src/generate/types.js';
import type { LanguageModel } from '../../src/model/onnx-model.js';
import { ARCHITECTURES, expectations, loadFixtureModel, VARIANTS } from '../support/generation-fixtures.js';

const ids = (tokens: Int32Array): number[] => [...tokens];

describe.each(ARCHITECTURES)('%s', (arch) => {
  const expected = expectations.models[arch];
  describe.each(VARIANTS)('%s', (variant) => {
    describe.each([true, false])('cpuFusion %s', (cpuFusion) => {
      let model: LanguageModel;
      beforeAll(async () => {
        model = await loadFixtureModel(arch, variant, cpuFusion);
      });
      afterAll(() => model.dispose());

      it('uses the KV cache exactly when the graph has one, and fuses attention when asked', () => {
        expect(model.supportsPrefix).toBe(variant !== 'nopast');
        expect(model.attentionFused).toBe(cpuFusion);
        // With fusion the fused attention keeps the cache, past inputs or not (a graph with past is fed an empty one).
        expect(decodeCacheOf(model)).toBe(cpuFusion ? 'fused-attention' : variant !== 'nopast' ? 'past-inputs' : 'none');
      });

      it.each([6, 4, 1])("matches transformers' greedy ids in batches of %i", async (batchSize) => {
        const generator = createTextGenerator(model, { batchSize, stepsPerCall: 5, onWarning: () => {} });
        const started = vi.spyOn(model, 'startGeneration');
        const generations = await generator.generate(expectations.prompts, { maxNewTokens: expectations.maxNewTokens, eosTokenIds: [] });
        // Prompts of different lengths share batches (the lengths spread 16, the new-token limit), except where
        // the graph numbers positions from its own cache, unfused: there each length decodes alone.
        const batches = started.mock.calls.length;
        started.mockRestore();
        const eachLengthAlone = variant === 'past-nopositions' && !cpuFusion;
        expect(batches).toBe(eachLengthAlone ? expectations.prompts.length : Math.ceil(expectations.prompts.length / batchSize));
        expect(generations.map((generation) => ids(generation.tokenIds))).toEqual(expected.greedy);
        expect(generations.every((generation) => generation.finishReason === 'max_new_tokens')).toBe(true);
        expect(generations.map((generation) => generation.promptTokenCount)).toEqual(expectations.prompts.map((prompt) => prompt.length));
      });

      it('stops at EOS where transformers does, the EOS id kept, the other rows running on', async () => {
        const generator = createTextGenerator(model, { batchSize: 6, stepsPerCall: 3, onWarning: () => {} });
        const generations = await generator.generate(expectations.prompts, {
          maxNewTokens: expectations.maxNewTokens,
          eosTokenIds: [expected.eosTokenId],
        });
        expect(generations.map((generation) => ids(generation.tokenIds))).toEqual(expected.eosGreedy);
        const reasons = expected.eosGreedy.map((run) => (run.at(-1) === expected.eosTokenId ? 'eos' : 'max_new_tokens'));
        expect(reasons).toContain('eos');
        expect(reasons).toContain('max_new_tokens');
        expect(generations.map((generation) => generation.finishReason)).toEqual(reasons);
      });
    });
  });

  it('stops at maxNewTokens: the first n greedy ids', async () => {
    // Its own past (unfused), left-padded: one pass per new token, so one progress report per pass is countable here.
    const model = await loadFixtureModel(arch, 'past', false);
    try {
      const progress: GenerationProgress[] = [];
      const generations = await createTextGenerator(model, { batchSize: 2, stepsPerCall: 1 }).generate(
        expectations.prompts,
        { maxNewTokens: 3, eosTokenIds: [] },
        (update) => progress.push(update),
      );
      expect(generations.map((generation) => ids(generation.tokenIds))).toEqual(expected.greedy.map((run) => run.slice(0, 3)));
      // One report per pass of each batch of two: 3 batches x 3 passes, counts only growing, ending at the totals.
      expect(progress).toHaveLength(9);
      expect(progress.at(-1)).toEqual({ finishedPrompts: 6, totalPrompts: 6, generatedTokens: 18 });
      expect(progress.every((update, i) => i === 0 || update.generatedTokens > progress[i - 1]!.generatedTokens)).toBe(true);
    } finally {
      model.dispose();
    }
  });
});

describe('recompute warning', () => {
  it('says once per generator that a graph without KV cache recomputes every step, and why the fused cache did not apply', async () => {
    const model = await loadFixtureModel('gpt2', 'nopast', false);
    try {
      const warnings: string[] = [];
      const generator = createTextGenerator(model, { onWarning: (message) => warnings.push(message) });
      await generator.generate([[5, 6]], { maxNewTokens: 2 });
      await generator.generate([[7]], { maxNewTokens: 2 });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/no KV-cache inputs .*could not keep a cache \(needs cpuFusion/);
    } finally {
      model.dispose();
    }
  });

  it('says nothing where the fused attention keeps the cache', async () => {
    const model = await loadFixtureModel('gpt2', 'nopast');
    try {
      const warnings: string[] = [];
      await createTextGenerator(model, { onWarning: (message) => warnings.push(message) }).generate([[5, 6]], { maxNewTokens: 2 });
      expect(warnings).toEqual([]);
    } finally {
      model.dispose();
    }
  });
});
