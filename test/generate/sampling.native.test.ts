/**
 * Seeded sampling: reproducible, independent of batching, top-k 1 is greedy, and the first token's empirical
 * distribution over many seeded prompts matches softmax(logits / T) computed here from transformers' own logits
 * (recorded in the fixtures), not from anything the engine computed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTextGenerator } from '../../src/generate/text-generator.js';
import type { LanguageModel } from '../../src/model/onnx-model.js';
import { chiSquare, softmax } from '../support/chi-square.js';
import { expectations, loadFixtureModel } from '../support/generation-fixtures.js';

const expected = expectations.models.llama;
let model: LanguageModel;
beforeAll(async () => {
  model = await loadFixtureModel('llama', 'past');
});
afterAll(() => model.dispose());

const idsOf = (generations: { tokenIds: Int32Array }[]): number[][] => generations.map((generation) => [...generation.tokenIds]);

async function firstTokenCounts(samples: number, temperature: number, topK: number): Promise<Map<number, number>> {
  const prompts = Array.from({ length: samples }, () => expectations.prompts[0]!);
  const generator = createTextGenerator(model, { batchSize: 500 });
  const generations = await generator.generate(prompts, { maxNewTokens: 1, eosTokenIds: [], sampling: { temperature, topK, seed: 1234 } });
  const counts = new Map<number, number>();
  for (const generation of generations) counts.set(generation.tokenIds[0]!, (counts.get(generation.tokenIds[0]!) ?? 0) + 1);
  return counts;
}

describe('seeded sampling', () => {
  const settings = { maxNewTokens: 12, eosTokenIds: [], sampling: { temperature: 1.5, seed: 99 } };

  it('gives the same ids for the same seed, whatever the batch size', async () => {
    const all = await createTextGenerator(model, { batchSize: 6 }).generate(expectations.prompts, settings);
    const again = await createTextGenerator(model, { batchSize: 6 }).generate(expectations.prompts, settings);
    const alone = await createTextGenerator(model, { batchSize: 1 }).generate(expectations.prompts, settings);
    expect(idsOf(again)).toEqual(idsOf(all));
    expect(idsOf(alone)).toEqual(idsOf(all));
    // Sampling at T = 1.5 leaves the greedy path somewhere.
    expect(idsOf(all)).not.toEqual(expected.greedy.map((run) => run.slice(0, 12)));
  });

  it('gives other ids for another seed', async () => {
    const one = await createTextGenerator(model).generate(expectations.prompts, settings);
    const other = await createTextGenerator(model).generate(expectations.prompts, { ...settings, sampling: { temperature: 1.5, seed: 100 } });
    expect(idsOf(other)).not.toEqual(idsOf(one));
  });

  it('is greedy with top-k 1', async () => {
    const generations = await createTextGenerator(model).generate(expectations.prompts, {
      maxNewTokens: expectations.maxNewTokens,
      eosTokenIds: [],
      sampling: { temperature: 0.7, topK: 1, seed: 5 },
    });
    expect(idsOf(generations)).toEqual(expected.greedy);
  });

  it('draws the first token from softmax(logits / T)', async () => {
    const samples = 4000;
    const temperature = 1.3;
    const counts = await firstTokenCounts(samples, temperature, 0);
    const { statistic, critical } = chiSquare(counts, softmax(expected.firstLogits, temperature), samples);
    expect(statistic).toBeLessThan(critical);
  });

  it('draws only among the top k, in proportion to their softmax', async () => {
    const samples = 3000;
    const topK = 5;
    const counts = await firstTokenCounts(samples, 2, topK);
    const ranked = expected.firstLogits.map((logit, token) => ({ logit, token })).sort((a, b) => b.logit - a.logit || a.token - b.token);
    const allowed = new Set(ranked.slice(0, topK).map((entry) => entry.token));
    expect([...counts.keys()].every((token) => allowed.has(token))).toBe(true);
    const restricted = expected.firstLogits.map((logit, token) => (allowed.has(token) ? logit : -Infinity));
    const { statistic, critical } = chiSquare(counts, softmax(restricted, 2), samples);
    expect(statistic).toBeLessThan(critical);
  });
});
