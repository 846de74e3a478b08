/**
 * The fused attention's decoding cache for graphs exported without past (native/graph/decode_cache.h): the prompt
 * is fed once, then one token per row per pass, and the fused nodes keep the keys and values. The reference is
 * the recompute path of the same graph (decodeCache off: every pass reruns the whole sequence, and shares
 * neither the cache nor the position offset): greedy and seeded-sampled ids must be the same token for token,
 * with rows finishing early (EOS) and leaving the cache. transformers' own ids for these graphs are checked in
 * test/generate/greedy.native.test.ts.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCacheOf } from '../../src/generate/decode-cache.js';
import { createTextGenerator } from '../../src/generate/text-generator.js';
import type { GenerationSettings } from '../../src/generate/types.js';
import { loadModel, type LanguageModel } from '../../src/model/onnx-model.js';
import { refusedWith } from '../support/expect-mlrb-error.js';
import { expectations, GENERATE_FIXTURES } from '../support/generation-fixtures.js';
import { seededRandom } from '../support/random-requests.js';
import { hasShared, sharedPaths } from '../support/shared-data.js';

const ids = (generations: readonly { tokenIds: Int32Array }[]): number[][] => generations.map((generation) => [...generation.tokenIds]);

/** `count` prompts of `length` ids in [low, vocab), seeded. */
function equalLengthPrompts(count: number, length: number, vocab: number, seed: number, low = 3): number[][] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => Array.from({ length }, () => low + Math.floor(random() * (vocab - low))));
}

async function generateBoth(file: string, prompts: number[][], settings: GenerationSettings, batchSize: number) {
  const results: number[][][] = [];
  for (const decodeCache of [true, false]) {
    const model = await loadModel({ model: file, threads: 1, rewrites: { decodeCache }, onLog: () => {} });
    try {
      expect(decodeCacheOf(model)).toBe(decodeCache ? 'fused-attention' : 'none');
      results.push(ids(await createTextGenerator(model, { batchSize, stepsPerCall: 3, onWarning: () => {} }).generate(prompts, settings)));
    } finally {
      model.dispose();
    }
  }
  return { cached: results[0]!, recomputed: results[1]! };
}

describe.each(['gpt2', 'llama'] as const)('%s exported without past', (arch) => {
  const file = path.join(GENERATE_FIXTURES, expectations.models[arch].files.nopast);
  const prompts = equalLengthPrompts(6, 7, 512, arch === 'gpt2' ? 11 : 12);

  it("decodes a batch of equal-length prompts with the recompute path's greedy ids, rows leaving at EOS", async () => {
    // An EOS the recompute path produces part-way for some rows, so the batch shrinks while others run on.
    const free = await generateBoth(file, prompts, { maxNewTokens: 24, eosTokenIds: [] }, 6);
    expect(free.cached).toEqual(free.recomputed);
    const eos = free.recomputed[0]![5]!;
    const stopped = await generateBoth(file, prompts, { maxNewTokens: 24, eosTokenIds: [eos] }, 6);
    expect(stopped.cached).toEqual(stopped.recomputed);
    expect(stopped.cached.some((run) => run.length < 24)).toBe(true);
    expect(stopped.cached.some((run) => run.length === 24)).toBe(true);
  });

  it('keeps concurrent runs on one session apart: each run names its own cache', async () => {
    const { recomputed } = await generateBoth(file, prompts, { maxNewTokens: 12, eosTokenIds: [] }, 6);
    const model = await loadModel({ model: file, threads: 1, onLog: () => {} });
    try {
      // Three batches of two decoding at once, their passes interleaved on the same fused nodes.
      const generator = createTextGenerator(model, { batchSize: 2, parallelBatches: 3, stepsPerCall: 1, onWarning: () => {} });
      expect(ids(await generator.generate(prompts, { maxNewTokens: 12, eosTokenIds: [] }))).toEqual(recomputed);
    } finally {
      model.dispose();
    }
  });

  it('is declined, with the reason, for the export with past inputs (its own cache)', async () => {
    const model = await loadModel({ model: path.join(GENERATE_FIXTURES, expectations.models[arch].files.past), threads: 1, onLog: () => {} });
    try {
      expect(decodeCacheOf(model)).toBe('past-inputs');
      expect(model.rewrites.find((outcome) => outcome.name === 'decodeCache')).toEqual({
        name: 'decodeCache',
        applied: false,
        reason: expect.stringMatching(/^the graph has the input past_key_values\.0\.key/),
      });
    } finally {
      model.dispose();
    }
  });

  it('samples the same ids with the same seed', async () => {
    const sampled = await generateBoth(file, prompts, { maxNewTokens: 16, eosTokenIds: [], sampling: { temperature: 0.9, topK: 20, seed: 5 } }, 4);
    expect(sampled.cached).toEqual(sampled.recomputed);
  });
});

describe.skipIf(!hasShared)('stories260K (no past inputs)', () => {
  let model: LanguageModel;
  beforeAll(async () => {
    model = await loadModel({ model: sharedPaths.stories, threads: 1, onLog: () => {} });
  });
  afterAll(() => model.dispose());

  it('keeps its keys and values in the fused attention and says so', () => {
    expect(decodeCacheOf(model)).toBe('fused-attention');
    expect(model.rewrites.find((outcome) => outcome.name === 'decodeCache')?.reason).toMatch(/^5 fused attention node\(s\) keep/);
  });

  it("greedy ids of mixed-length prompts (grouped by length) equal the recompute path's, EOS included", async () => {
    const prompts = [...equalLengthPrompts(5, 40, 512, 21), ...equalLengthPrompts(3, 9, 512, 22), [1, 403, 407, 261, 378]];
    const settings = { maxNewTokens: 64, eosTokenIds: [2] };
    const { cached, recomputed } = await generateBoth(sharedPaths.stories, prompts, settings, 8);
    expect(cached).toEqual(recomputed);
  });

  it('scores exactly as before: the added inputs default to no cache and offset 0', async () => {
    // One row of 30 ids; its last two positions score the targets that follow them.
    const batch = {
      tokens: Int32Array.from(equalLengthPrompts(1, 30, 512, 23)[0]!),
      rowOffsets: Int32Array.of(0, 30),
      requestRows: Int32Array.of(0),
      targets: Int32Array.of(300, 301),
      targetOffsets: Int32Array.of(0, 2),
    };
    const plain = await loadModel({ model: sharedPaths.stories, threads: 1, rewrites: { decodeCache: false }, onLog: () => {} });
    try {
      expect((await model.scoreBatch(batch)).logliks).toEqual((await plain.scoreBatch(batch)).logliks);
    } finally {
      plain.dispose();
    }
  });
});

describe('EXPECTED FAILURE – a graph whose mask is not causal', () => {
  it('is refused by the fused cache with an error naming the mask, not decoded wrongly', async () => {
    // scripts/generate/make_anticausal_llama.py: the Llama fixture with key >= query in place of key <= query.
    const model = await loadModel({ model: path.join(GENERATE_FIXTURES, 'llama-anticausal.onnx'), threads: 1, onLog: () => {} });
    try {
      expect(decodeCacheOf(model)).toBe('fused-attention');
      const generator = createTextGenerator(model, { batchSize: 2, onWarning: () => {} });
      const error = await refusedWith('ORT_RUN', generator.generate(equalLengthPrompts(2, 5, 512, 31), { maxNewTokens: 4, eosTokenIds: [] }));
      expect(error.message).toMatch(/mask is not causal with per-key values/);
    } finally {
      model.dispose();
    }
  });
});
