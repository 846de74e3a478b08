/**
 * stories260K on the seven SuperGLUE tasks in shared/ (ReCoRD, which shared/ lacks, on a fixture), request by
 * request against the independent path: 0-shot on the first documents of each task, and 2-shot, whose
 * examples lm-eval's default sampler draws from the validation split here (shared/ has no train.jsonl).
 * Needs ../shared; skipped visibly without it.
 */
import { describe, expect, it } from 'vitest';
import { loadSuite } from '../../src/tasks/registry.js';
import { compareSuiteWithReference } from '../support/compare-with-reference.js';
import { hasShared, sharedPaths } from '../support/shared-data.js';
import { writeSuperGlueFixture } from '../support/superglue-fixtures.js';
import { FULL_TIER } from '../support/test-tier.js';

const SHARED_TASKS = ['boolq', 'cb', 'copa', 'multirc', 'sglue_rte', 'wic', 'wsc'];

describe.skipIf(!hasShared)('stories260K on SuperGLUE matches the independent path', () => {
  it.runIf(FULL_TIER)('0-shot, 30 documents per task, all seven shared tasks', async () => {
    const suite = await loadSuite('superglue', { dataDir: sharedPaths.superglue, limit: 30, allowPartial: true });
    expect(suite.tasks.map((task) => task.name)).toEqual(SHARED_TASKS);
    const comparison = await compareSuiteWithReference(sharedPaths.stories, suite);
    expect(comparison.documents).toBe(7 * 30);
    expect(comparison.requests).toBe(30 * (2 + 3 + 2 + 2 + 2 + 2 + 2));
    expect(comparison.maxAbsDiff).toBeLessThan(1e-4);
    expect(comparison.greedyMismatches).toBe(0);
    expect(comparison.predictionMismatches).toBe(0);
  });

  it('2-shot with the default sampler (k + 1 drawn, the evaluated document dropped)', async () => {
    const suites = await Promise.all(['cb', 'copa', 'wsc'].map((name) => loadSuite(name as 'cb', { dataDir: sharedPaths.superglue, limit: 4, numFewshot: 2 })));
    const comparison = await compareSuiteWithReference(sharedPaths.stories, { name: 'fewshot', tasks: suites.flatMap((suite) => suite.tasks), groups: [] });
    expect(comparison.documents).toBe(12);
    expect(comparison.maxAbsDiff).toBeLessThan(1e-4);
    expect(comparison.predictionMismatches).toBe(0);
  });

  it('ReCoRD (fixture): one request per entity, empty target delimiter', async () => {
    const suite = await loadSuite('record', { dataDir: writeSuperGlueFixture({ folders: ['ReCoRD'] }) });
    const comparison = await compareSuiteWithReference(sharedPaths.stories, suite);
    expect(comparison.requests).toBe(8);
    expect(comparison.maxAbsDiff).toBeLessThan(1e-4);
    expect(comparison.greedyMismatches).toBe(0);
    expect(comparison.predictionMismatches).toBe(0);
  });
});
