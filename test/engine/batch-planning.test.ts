/** Batch planning without a model: padding bounds, scored positions, memory and token budgets, prefix groups. */
import { describe, expect, it } from 'vitest';
import {
  batchFitsFor,
  DEFAULT_TOKENS_PER_BATCH,
  defaultTokensPerBatch,
  estimateBatchBytes,
  ACTIVATIONS_PER_BATCH,
  SCORE_ROWS_PER_BATCH,
} from '../../src/engine/batch-size.js';
import { packBatch, planBatches, planRows, type PlannedRow } from '../../src/engine/collator.js';
import { planPrefixGroups } from '../../src/engine/prefix-plan.js';

const row = (length: number, scoredTail = 1, start = 0): PlannedRow => ({
  tokens: Array.from({ length }, (_, index) => start + index),
  requestIndices: [length],
  scoredTail,
});

describe('planBatches', () => {
  it('opens a new batch when a shorter row would push padding past the bound', () => {
    const rows = [row(100), row(98), row(95), row(60), row(58), row(10)];
    const batches = planBatches(rows, () => true, 0.1);
    expect(batches.map((batch) => batch.map((planned) => planned.tokens.length))).toEqual([[100, 98, 95], [60, 58], [10]]);
    for (const batch of batches) {
      const cells = batch.length * (batch[0]?.tokens.length ?? 0);
      const real = batch.reduce((sum, planned) => sum + planned.tokens.length, 0);
      expect(cells - real).toBeLessThanOrEqual(0.1 * cells);
    }
  });

  it('hands the size rule the scored positions of the batch so far plus the new row', () => {
    const seen: number[] = [];
    planBatches([row(5, 3), row(5, 2), row(5, 4)], (_rows, _length, scored) => {
      seen.push(scored);
      return true;
    });
    expect(seen).toEqual([5, 9]);
  });

  it("folds a row that is a prefix of a longer row into it, and packs each request's own end", () => {
    const inputs = [
      { inputTokens: [1, 2, 3], continuationTokens: [4] },
      { inputTokens: [1, 2, 3, 5], continuationTokens: [5, 6] },
      { inputTokens: [1, 2], continuationTokens: [3] },
      { inputTokens: [1, 2, 3, 5, 6, 7], continuationTokens: [8] },
      { inputTokens: [9], continuationTokens: [1] },
    ];
    const rows = planRows(inputs, { mergePrefixRows: true });
    expect(rows.map((planned) => planned.tokens)).toEqual([[1, 2, 3, 5, 6, 7], [9]]);
    expect([...(rows[0]?.requestIndices ?? [])].sort()).toEqual([0, 1, 2, 3]);
    // Request 2 ([1, 2] → 3) scores position 1, the earliest of the row: five positions to the end.
    expect(rows[0]?.scoredTail).toBe(5);
    const { batch, requestIndices } = packBatch(rows, inputs);
    const endOf = (request: number): number => batch.requestEnds?.[[...requestIndices].indexOf(request)] ?? -1;
    expect([0, 1, 2, 3, 4].map(endOf)).toEqual([3, 4, 2, 6, 1]);
    expect(planRows(inputs)).toHaveLength(5);
  });

  it('keeps scoredTail the longest continuation among requests sharing a row', () => {
    const rows = planRows([
      { inputTokens: [1, 2, 3], continuationTokens: [4] },
      { inputTokens: [1, 2, 3], continuationTokens: [2, 3, 4] },
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.scoredTail).toBe(3);
  });
});

describe('auto batch size', () => {
  const dims = { vocabSize: 50_304, hiddenSize: 768, attentionHeads: 12 };

  it('counts logits at scored positions only when the LM head is sliced', () => {
    const full = estimateBatchBytes(16, 128, dims, 16);
    const sliced = estimateBatchBytes(16, 128, { ...dims, logitsSliced: true }, 16);
    expect(full - sliced).toBe((16 * 128 - 16) * 50_304 * 4);
  });

  it('lets more rows into a pass when logits are sliced, within the token budget', () => {
    const rowsAllowed = (fits: ReturnType<typeof batchFitsFor>, length: number): number => {
      let rows = 1;
      while (fits(rows + 1, length, rows + 1)) rows += 1;
      return rows;
    };
    const full = rowsAllowed(batchFitsFor('auto', dims, 64 * 1024 * 1024, undefined, 1_000_000), 128);
    const sliced = rowsAllowed(batchFitsFor('auto', { ...dims, logitsSliced: true }, 64 * 1024 * 1024, undefined, 1_000_000), 128);
    expect(sliced).toBeGreaterThan(4 * full);
    expect(rowsAllowed(batchFitsFor('auto', { ...dims, logitsSliced: true }, 1024 ** 3), 128)).toBe(Math.floor(DEFAULT_TOKENS_PER_BATCH / 128));
  });

  it('drops the attention score matrices from the estimate when attention is fused', () => {
    const unfused = estimateBatchBytes(4, 256, dims, 4);
    const fused = estimateBatchBytes(4, 256, { ...dims, attentionFused: true }, 4);
    expect(unfused - fused).toBe(4 * 12 * 256 * 256 * 4 * 2);
  });

  it('sizes auto passes by activation elements and, unfused, by attention scores', () => {
    // GPT-2 small: 512 tokens whatever the row length (the activation budget binds first).
    expect(defaultTokensPerBatch(dims, 30)).toBe(DEFAULT_TOKENS_PER_BATCH);
    expect(defaultTokensPerBatch({ ...dims, attentionFused: true }, 30)).toBe(ACTIVATIONS_PER_BATCH / 768);
    // A 64-wide model: fused, the activations allow 6,144 tokens at any length; unfused, short rows batch more
    // and long rows stay at 512, where rows × T² reaches the score budget.
    const narrow = { vocabSize: 512, hiddenSize: 64, attentionHeads: 8 };
    expect(defaultTokensPerBatch({ ...narrow, attentionFused: true }, 300)).toBe(6144);
    expect(defaultTokensPerBatch(narrow, 32)).toBe(SCORE_ROWS_PER_BATCH / 32);
    expect(defaultTokensPerBatch(narrow, 300)).toBe(DEFAULT_TOKENS_PER_BATCH);
    expect(defaultTokensPerBatch({ vocabSize: 512, hiddenSize: 4096, attentionHeads: 32, attentionFused: true }, 10)).toBe(DEFAULT_TOKENS_PER_BATCH);
    expect(defaultTokensPerBatch({ vocabSize: 512, hiddenSize: 8, attentionHeads: 1, attentionFused: true }, 10)).toBe(8192);
  });

  it('caps auto passes at the small-job cap, and a fixed token budget overrides both', () => {
    const narrow = { vocabSize: 512, hiddenSize: 64, attentionHeads: 8, logitsSliced: true };
    const rowsAllowed = (fits: ReturnType<typeof batchFitsFor>, length: number): number => {
      let rows = 1;
      while (fits(rows + 1, length, rows + 1)) rows += 1;
      return rows;
    };
    expect(rowsAllowed(batchFitsFor('auto', narrow, 1024 ** 3), 32)).toBe(SCORE_ROWS_PER_BATCH / 32 / 32);
    expect(rowsAllowed(batchFitsFor('auto', narrow, 1024 ** 3, undefined, undefined, 1024), 32)).toBe(32);
    expect(rowsAllowed(batchFitsFor('auto', narrow, 1024 ** 3, undefined, 256, 1024), 32)).toBe(8);
  });

  it('charges the broadcast prefix KV per row', () => {
    const withKv = { ...dims, logitsSliced: true, kvFloatsPerToken: 2 * 12 * 768 };
    const without = estimateBatchBytes(4, 32, withKv, 4);
    const withPrefix = estimateBatchBytes(4, 32, withKv, 4, { pastLength: 500 });
    expect(withPrefix - without).toBeGreaterThan(4 * 2 * 12 * 768 * 500 * 4);
  });

  it('BAD CALL – a fixed batch size must be a positive integer', () => {
    expect(() => batchFitsFor(0, dims)).toThrow(RangeError);
    expect(() => batchFitsFor(2.5, dims)).toThrow(RangeError);
  });
});

describe('planPrefixGroups', () => {
  const prefixed = (prefix: number[], suffix: number[], scoredTail = 1): PlannedRow => ({
    tokens: [...prefix, ...suffix],
    requestIndices: [suffix[0] ?? 0],
    scoredTail,
  });
  const shotsA = Array.from({ length: 40 }, (_, index) => 100 + index);
  const shotsB = [...shotsA.slice(0, 10), ...Array.from({ length: 30 }, (_, index) => 300 + index)];

  it('groups rows by their shared prefix and cuts it off the rows', () => {
    const rows = [prefixed(shotsA, [1, 2, 3]), prefixed(shotsB, [4, 5]), prefixed(shotsA, [6, 7, 8, 9]), prefixed(shotsB, [1]), [9, 9, 9].map(Number)].map(
      (item) => (Array.isArray(item) ? { tokens: item, requestIndices: [99], scoredTail: 1 } : item),
    );
    const plan = planPrefixGroups(rows, 32);
    expect(plan.groups).toHaveLength(2);
    const byFirst = new Map(plan.groups.map((group) => [group.prefix[10], group]));
    expect(byFirst.get(110)?.prefix).toEqual(shotsA);
    expect(byFirst.get(110)?.suffixRows.map((suffix) => suffix.tokens)).toEqual([
      [6, 7, 8, 9],
      [1, 2, 3],
    ]);
    expect(byFirst.get(300)?.prefix).toEqual(shotsB);
    expect(plan.plainRows.map((plain) => plain.tokens)).toEqual([[9, 9, 9]]);
  });

  it('never lets the prefix reach a scored position', () => {
    // The second row scores its last 3 positions, two of which lie inside the 40-token common prefix.
    const rows = [prefixed(shotsA, [1, 2]), { tokens: [...shotsA, 5], requestIndices: [2], scoredTail: 3 }];
    const plan = planPrefixGroups(rows, 32);
    expect(plan.groups[0]?.prefix).toHaveLength(38);
    for (const suffix of plan.groups[0]?.suffixRows ?? []) expect(suffix.tokens.length).toBeGreaterThanOrEqual(suffix.scoredTail);
  });

  it('leaves rows whose shared prefix is shorter than the minimum alone', () => {
    const plan = planPrefixGroups([prefixed(shotsA.slice(0, 20), [1]), prefixed(shotsA.slice(0, 20), [2])], 32);
    expect(plan.groups).toHaveLength(0);
    expect(plan.plainRows).toHaveLength(2);
  });
});
