/**
 * The fused attention's decoding cache (native/graph/decode_cache.h), for graphs exported without past and with it (fed an empty past): the prompt
 * is fed once, then one token per row per pass, and the fused nodes keep the keys and values. The reference is
 * the recompute path of the same graph (decodeCache off: every pass reruns the whole sequence, and shares
 * neither the cache nor the position offset): greedy and seeded-sampled ids must be the same token for token,
 * with rows finishing early (EOS) and leaving the cache. Prompts of different lengths decode in one batch (every
 * row fed the same positions, the longer prompts' extra tokens staggered over passes); their ids must also equal
 * each prompt's decoded alone. transformers' own ids for these graphs are checked in test/generate/greedy.native.test.ts.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

/** One seeded prompt of each length. */
function promptsOfLengths(lengths: readonly number[], vocab: number, seed: number): number[][] {
  return lengths.map((length, index) => equalLengthPrompts(1, length, vocab, seed + index)[0]!);
}

interface Decoded {
  readonly ids: number[][];
  /** The prompt lengths of each native batch, in the order the batches started. */
  readonly batches: number[][];
}

async function generateWith(file: string, prompts: number[][], settings: GenerationSettings, batchSize: number, decodeCache: boolean): Promise<Decoded> {
  const model = await loadModel({ model: file, threads: 1, rewrites: { decodeCache }, onLog: () => {} });
  try {
    expect(model.rewrites.find((outcome) => outcome.name === 'decodeCache')?.applied ?? false).toBe(decodeCache);
    expect(decodeCacheOf(model)).toBe(decodeCache ? 'fused-attention' : model.supportsPrefix ? 'past-inputs' : 'none');
    const batches: number[][] = [];
    const start = model.startGeneration.bind(model);
    vi.spyOn(model, 'startGeneration').mockImplementation((request) => {
      batches.push([...request.promptOffsets.subarray(1)].map((end, i) => end - request.promptOffsets[i]!));
      return start(request);
    });
    const generations = await createTextGenerator(model, { batchSize, stepsPerCall: 3, onWarning: () => {} }).generate(prompts, settings);
    return { ids: ids(generations), batches };
  } finally {
    model.dispose();
  }
}

async function generateBoth(file: string, prompts: number[][], settings: GenerationSettings, batchSize: number) {
  const cached = await generateWith(file, prompts, settings, batchSize, true);
  const recomputed = await generateWith(file, prompts, settings, batchSize, false);
  return { cached: cached.ids, recomputed: recomputed.ids, cachedBatches: cached.batches };
}

/** Mixed lengths in one batch == each prompt alone on the fused cache == the recompute path (in one batch too). */
async function expectMixedBatchAsAlone(file: string, prompts: number[][], settings: GenerationSettings) {
  const together = await generateWith(file, prompts, settings, prompts.length, true);
  expect(together.batches).toEqual([prompts.map((prompt) => prompt.length).sort((a, b) => b - a)]);
  const alone = await generateWith(file, prompts, settings, 1, true);
  expect(alone.batches).toHaveLength(prompts.length);
  const recomputed = await generateWith(file, prompts, settings, prompts.length, false);
  expect(together.ids).toEqual(alone.ids);
  expect(together.ids).toEqual(recomputed.ids);
  return together.ids;
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

  it('decodes prompts whose lengths differ by 1 and by many in one batch, with the ids each has alone, EOS included', async () => {
    // 25/24 and 19/18 differ by one, 25 and 1 by 24 (the batch plan's limit for 24 new tokens); 2 and 1 start in the first pass.
    const mixed = promptsOfLengths([19, 25, 2, 18, 24, 1], 512, arch === 'gpt2' ? 41 : 42);
    const free = await expectMixedBatchAsAlone(file, mixed, { maxNewTokens: 24, eosTokenIds: [] });
    // An EOS some rows produce part-way while the longer prompts may still be feeding their prompts.
    const eos = free[2]![3]!;
    const stopped = await expectMixedBatchAsAlone(file, mixed, { maxNewTokens: 24, eosTokenIds: [eos] });
    expect(stopped.some((run) => run.length < 24)).toBe(true);
    expect(stopped.some((run) => run.length === 24)).toBe(true);
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

  it('samples the same ids with the same seed', async () => {
    const settings = { maxNewTokens: 16, eosTokenIds: [], sampling: { temperature: 0.9, topK: 20, seed: 5 } };
    const sampled = await generateBoth(file, prompts, settings, 4);
    expect(sampled.cached).toEqual(sampled.recomputed);
    // A staggered row draws from its stream only once it generates: the same draws as alone.
    await expectMixedBatchAsAlone(file, promptsOfLengths([3, 9, 4, 16], 512, 51), settings);
  });
});

describe.each([
  ['gpt2', 'past'],
  ['llama', 'past'],
  ['gpt2', 'past-nopositions'],
  ['llama', 'past-nopositions'],
] as const)('%s exported with %s', (arch, variant) => {
  // Fed an empty past each pass, the graph's Concat(past, new) copies only the new keys and values; the fused
  // nodes keep the rest. Without position_ids the graph adds its past length (0) to a Range(0, n) the rewrite
  // offsets. The reference is the same graph decoding through its own past inputs and presents.
  const file = path.join(GENERATE_FIXTURES, expectations.models[arch].files[variant]);
  const prompts = equalLengthPrompts(6, 7, 512, arch === 'gpt2' ? 13 : 14);

  it("decodes equal-length prompts with its own past cache's greedy ids, rows leaving at EOS", async () => {
    const free = await generateBoth(file, prompts, { maxNewTokens: 24, eosTokenIds: [] }, 6);
    expect(free.cached).toEqual(free.recomputed);
    // An EOS some rows produce part-way and another never does, so the batch shrinks while a row runs on.
    const eos = free.recomputed[0]!.find((id) => free.recomputed.some((run) => !run.includes(id)));
    expect(eos).toBeDefined();
    const stopped = await generateBoth(file, prompts, { maxNewTokens: 24, eosTokenIds: [eos!] }, 6);
    expect(stopped.cached).toEqual(stopped.recomputed);
    expect(stopped.cached.some((run) => run.length < 24)).toBe(true);
    expect(stopped.cached.some((run) => run.length === 24)).toBe(true);
  });

  it('samples the same ids with the same seed', async () => {
    const sampled = await generateBoth(file, prompts, { maxNewTokens: 16, eosTokenIds: [], sampling: { temperature: 0.9, topK: 20, seed: 6 } }, 4);
    expect(sampled.cached).toEqual(sampled.recomputed);
  });

  it('decodes prompts of different lengths in one batch, staggered, with the ids each has alone and its own past gives', async () => {
    await expectMixedBatchAsAlone(file, promptsOfLengths([11, 3, 7, 12, 1], 512, arch === 'gpt2' ? 61 : 62), { maxNewTokens: 16, eosTokenIds: [] });
  });

  it('still scores a reused prefix through its past inputs: the added inputs default to no cache', async () => {
    const batch = {
      tokens: Int32Array.from(equalLengthPrompts(1, 6, 512, 15)[0]!),
      rowOffsets: Int32Array.of(0, 6),
      requestRows: Int32Array.of(0),
      targets: Int32Array.of(300, 301),
      targetOffsets: Int32Array.of(0, 2),
    };
    const prefix = equalLengthPrompts(1, 5, 512, 16)[0]!;
    const scores: number[][] = [];
    for (const decodeCache of [true, false]) {
      const model = await loadModel({ model: file, threads: 1, rewrites: { decodeCache }, onLog: () => {} });
      try {
        scores.push([...(await model.scoreBatch(batch)).logliks, ...(await model.scoreBatch(batch, await model.computePrefix(prefix))).logliks]);
      } finally {
        model.dispose();
      }
    }
    expect(scores[0]).toEqual(scores[1]);
  });
});

describe('EXPECTED FAILURE – a graph with past that numbers positions from its past length through a Range start', () => {
  it('is declined with the reason: fed an empty past it would restart its positions at 0', async () => {
    // scripts/generate/make_past_counted_llama.py: the Llama fixture's Range(0, n) made Range(past, past + n).
    const model = await loadModel({ model: path.join(GENERATE_FIXTURES, 'llama-past-counted.onnx'), threads: 1, onLog: () => {} });
    try {
      expect(decodeCacheOf(model)).toBe('past-inputs');
      expect(model.rewrites.find((outcome) => outcome.name === 'decodeCache')).toEqual({
        name: 'decodeCache',
        applied: false,
        reason: expect.stringMatching(/^the graph has the input past_key_values\.0\.key, no position_ids input and Range .* not starting at 0/),
      });
    } finally {
      model.dispose();
    }
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

  it("greedy ids of mixed-length prompts decoded together equal the recompute path's, EOS included", async () => {
    const prompts = [...equalLengthPrompts(5, 40, 512, 21), ...equalLengthPrompts(3, 9, 512, 22), [1, 403, 407, 261, 378]];
    const settings = { maxNewTokens: 64, eosTokenIds: [2] };
    const { cached, recomputed, cachedBatches } = await generateBoth(sharedPaths.stories, prompts, settings, 8);
    expect(cachedBatches).toEqual([[40, 40, 40, 40, 40, 9, 9, 9], [5]]);
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

  it('is refused when the prompts differ in length and every pass of the batch is one token wide', async () => {
    // The shortest prompt has one token, so no pass of the batch shows the op more than one row of the mask.
    const model = await loadModel({ model: path.join(GENERATE_FIXTURES, 'llama-anticausal.onnx'), threads: 1, onLog: () => {} });
    try {
      const generator = createTextGenerator(model, { batchSize: 2, onWarning: () => {} });
      const error = await refusedWith('ORT_RUN', generator.generate(promptsOfLengths([1, 5], 512, 32), { maxNewTokens: 4, eosTokenIds: [] }));
      expect(error.message).toMatch(/mask is not causal with per-key values/);
    } finally {
      model.dispose();
    }
  });
});
