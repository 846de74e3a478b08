/**
 * The new suites through evaluate() on the repo's tiny test model: the hub fixtures score exactly as the release
 * files they were written beside, and acc / acc_norm are recomputed here from the logged log-likelihoods with
 * lm-eval's definitions and lm-eval's own choice strings (the continuations it built from the same rows,
 * test/fixtures/lm-eval/task-requests.json), not ours.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { evaluate } from '../../src/index.js';
import { repoRoot } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';

const fixtures = path.join(repoRoot, 'test/fixtures/tasks');
const recorded = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/lm-eval/task-requests.json'), 'utf8')) as {
  readonly cases: readonly {
    readonly task: string;
    readonly numFewshot: number;
    readonly docs: readonly { readonly arguments: readonly (readonly [string, string])[] }[];
  }[];
};

/** numpy.argmax: the first maximum. */
const argmax = (values: readonly number[]): number => values.reduce((best, value, index) => (value > (values[best] as number) ? index : best), 0);

describe('evaluate() on the new suites', () => {
  const model = writeTinyCausalLm(path.join(makeTempDir('single-task-model'), 'model')).modelPath;
  const cases = [
    { suite: 'hellaswag', release: 'release/hellaswag', hub: 'hub/hellaswag' },
    { suite: 'arc_easy', release: 'release/ARC-V1-Feb2018-2', hub: 'hub/ai2_arc' },
    { suite: 'arc_challenge', release: 'release/ARC-V1-Feb2018-2', hub: 'hub/ai2_arc' },
    { suite: 'piqa', release: 'release/piqa', hub: 'hub/piqa' },
    { suite: 'winogrande', release: 'release/winogrande', hub: 'hub/winogrande' },
  ] as const;

  for (const { suite, release, hub } of cases) {
    it(`${suite}, 2-shot: parquet = release files, and acc / acc_norm = lm-eval's definitions over the logged log-likelihoods`, async () => {
      const run = (dir: string) => evaluate({ model, suite, dataDir: path.join(fixtures, dir), numFewshot: 2, logSamples: true, cacheDir: false });
      const [fromRelease, fromHub] = await Promise.all([run(release), run(hub)]);
      expect(fromHub.results.results).toEqual(fromRelease.results.results);
      expect(fromHub.results['n-shot']).toEqual({ [suite]: 2 });

      const samples = fromHub.samples?.get(suite) ?? [];
      const lmEvalDocs = recorded.cases.find((entry) => entry.task === suite && entry.numFewshot === 2)?.docs ?? [];
      expect(samples).toHaveLength(lmEvalDocs.length);
      let accSum = 0;
      let accNormSum = 0;
      samples.forEach((sample, index) => {
        const logliks = sample.filtered_resps.map((response) =>
          typeof response === 'number' ? response : typeof response === 'string' ? Number.NaN : response[0],
        );
        // lm-eval's acc_norm divides by len(choice), in code points, the choice being the continuation without its
        // target delimiter (WinoGrande reports acc only).
        const choices = (lmEvalDocs[index]?.arguments ?? []).map(([, continuation]) => continuation.slice(1));
        const acc = argmax(logliks) === sample.target ? 1 : 0;
        const accNorm = argmax(logliks.map((loglik, choice) => loglik / Array.from(choices[choice] ?? '').length)) === sample.target ? 1 : 0;
        expect(sample.acc).toBe(acc);
        if (suite !== 'winogrande') expect(sample.acc_norm).toBe(accNorm);
        accSum += acc;
        accNormSum += accNorm;
      });
      const metrics = fromHub.results.results[suite];
      expect(metrics?.['acc,none']).toBe(accSum / samples.length);
      if (suite !== 'winogrande') expect(metrics?.['acc_norm,none']).toBe(accNormSum / samples.length);
    });
  }
});
