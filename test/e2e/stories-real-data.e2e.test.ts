/**
 * stories260K on real MMLU and BLiMP rows (a subset; scripts/verify-full.ts runs everything), request by
 * request against the independent path. Needs ../shared; skipped visibly without it.
 */
import { describe, expect, it } from 'vitest';
import { loadSuite } from '../../src/tasks/registry.js';
import { compareSuiteWithReference } from '../support/compare-with-reference.js';
import { hasShared, sharedPaths } from '../support/shared-data.js';
import { FULL_TIER } from '../support/test-tier.js';

describe.skipIf(!hasShared)('stories260K on real data matches the independent path', () => {
  it.runIf(FULL_TIER)('MMLU 0-shot, 2 questions per subject', async () => {
    const suite = await loadSuite('mmlu', { dataDir: sharedPaths.mmlu, limit: 2 });
    const comparison = await compareSuiteWithReference(sharedPaths.stories, suite);
    expect(comparison.documents).toBe(114);
    expect(comparison.requests).toBe(456);
    expect(comparison.maxAbsDiff).toBeLessThan(1e-4);
    expect(comparison.greedyMismatches).toBe(0);
    expect(comparison.predictionMismatches).toBe(0);
  });

  it('MMLU 2-shot, first subjects', async () => {
    const suite = await loadSuite('mmlu', { dataDir: sharedPaths.mmlu, limit: 2, numFewshot: 2, subjects: ['abstract_algebra', 'anatomy', 'virology'] });
    const comparison = await compareSuiteWithReference(sharedPaths.stories, suite);
    expect(comparison.maxAbsDiff).toBeLessThan(1e-4);
    expect(comparison.predictionMismatches).toBe(0);
  });

  it('BLiMP, 15 pairs per paradigm', async () => {
    const suite = await loadSuite('blimp', { dataDir: sharedPaths.blimp, limit: 15 });
    const comparison = await compareSuiteWithReference(sharedPaths.stories, suite);
    expect(comparison.documents).toBe(67 * 15);
    expect(comparison.maxAbsDiff).toBeLessThan(1e-4);
    expect(comparison.greedyMismatches).toBe(0);
    expect(comparison.predictionMismatches).toBe(0);
  });
});
