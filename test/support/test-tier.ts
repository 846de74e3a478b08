/**
 * Two sizes, across the unit, native and e2e tiers (vitest.config.ts). `npm test` (the README's command, for anyone at a 2-core machine) runs everything but the
 * longest-running checks, which repeat at a larger size what a quick test already covers (full BLiMP where
 * 10 pairs prove the rule, three shard processes per suite where one suite proves the merge). `npm run
 * test:full` (CI, `.ci/run`) sets MLRB_TEST_TIER=full and runs them too. A test of the full size is skipped,
 * visibly, in the quick one: mark it `it.runIf(FULL_TIER)`.
 */
export const FULL_TIER = process.env.MLRB_TEST_TIER === 'full';
