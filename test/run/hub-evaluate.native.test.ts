/**
 * Through evaluate() on the repo's tiny test model, the hub parquet fixtures score exactly as the release-layout
 * files they were made from: the same per-task and group metrics, sample counts and configs. Only what names the
 * files (dataset_files, the data fingerprint) may differ.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/index.js';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { repoRoot } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'hub');

/** The results without what names files or times the run. */
function comparable(results: Awaited<ReturnType<typeof evaluate>>['results']) {
  const configs = Object.fromEntries(
    Object.entries(results.configs).map(([task, config]) => {
      const { dataset_files: _files, ...rest } = config;
      return [task, rest];
    }),
  );
  return { results: results.results, groups: results.groups, nSamples: results['n-samples'], nShot: results['n-shot'], versions: results.versions, configs };
}

describe('evaluate() on hub parquet = on the release files', () => {
  const model = writeTinyCausalLm(path.join(makeTempDir('hub-eval-model'), 'model')).modelPath;
  const cases = [
    { suite: 'mmlu', release: 'mmlu', hub: 'mmlu-all', numFewshot: 1 },
    { suite: 'mmlu', release: 'mmlu', hub: 'mmlu-subjects', numFewshot: 0 },
    { suite: 'blimp', release: 'blimp', hub: 'blimp', numFewshot: 0 },
    { suite: 'superglue', release: 'superglue', hub: 'superglue', numFewshot: 0 },
    { suite: 'superglue', release: 'superglue', hub: 'superglue', numFewshot: 1 },
  ] as const;

  for (const { suite, release, hub, numFewshot } of cases) {
    it(`${suite} from parquet/${hub}, ${numFewshot}-shot`, async () => {
      const run = (dataDir: string) => evaluate({ model, suite, dataDir, numFewshot, allowPartial: true, cacheDir: false });
      const fromRelease = await run(path.join(fixtures, 'release', release));
      const fromHub = await run(path.join(fixtures, 'parquet', hub));
      expect(Object.keys(fromHub.results.results).length).toBeGreaterThan(2);
      expect(comparable(fromHub.results)).toEqual(comparable(fromRelease.results));
    });
  }
});
