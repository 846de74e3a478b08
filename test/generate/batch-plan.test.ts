/**
 * planGenerationBatches (src/generate/batch-plan.ts): every prompt in exactly one batch, batches no larger than asked,
 * lengths within a batch no further apart than allowed, longest first. Checked on seeded random lengths against the
 * rules themselves, and on small cases written out by hand.
 */
import { describe, expect, it } from 'vitest';
import { planGenerationBatches } from '../../src/generate/batch-plan.js';
import { seededRandom } from '../support/random-requests.js';

describe('planGenerationBatches', () => {
  it('cuts at the batch size and where the lengths would spread too far', () => {
    const lengths = [5, 9, 6, 9, 2, 1];
    expect(planGenerationBatches(lengths, 8, Number.POSITIVE_INFINITY)).toEqual([[1, 3, 2, 0, 4, 5]]);
    expect(planGenerationBatches(lengths, 4, Number.POSITIVE_INFINITY)).toEqual([
      [1, 3, 2, 0],
      [4, 5],
    ]);
    expect(planGenerationBatches(lengths, 8, 0)).toEqual([[1, 3], [2], [0], [4], [5]]);
    // 9 - 6 = 3 fits a spread of 3; 9 - 5 does not, and 5 - 1 = 4 does not either.
    expect(planGenerationBatches(lengths, 8, 3)).toEqual([[1, 3, 2], [0, 4], [5]]);
  });

  it('keeps its rules on random lengths', () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 200; trial += 1) {
      const lengths = Array.from({ length: 1 + Math.floor(random() * 30) }, () => 1 + Math.floor(random() * 50));
      const batchSize = 1 + Math.floor(random() * 9);
      const spread = Math.floor(random() * 20);
      const batches = planGenerationBatches(lengths, batchSize, spread);
      expect(batches.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, index) => index));
      for (const batch of batches) {
        const own = batch.map((index) => lengths[index]!);
        expect(batch.length).toBeLessThanOrEqual(batchSize);
        expect(Math.max(...own) - Math.min(...own)).toBeLessThanOrEqual(spread);
        expect(own).toEqual([...own].sort((a, b) => b - a));
      }
      // A batch is cut early only when the next prompt would not fit it.
      for (let b = 0; b + 1 < batches.length; b += 1) {
        const next = lengths[batches[b + 1]![0]!]!;
        expect(batches[b]!.length === batchSize || lengths[batches[b]![0]!]! - next > spread).toBe(true);
      }
    }
  });
});
