/**
 * Where a run record says missing data goes (src/mlrb/data-fetch.ts), checked against the loaders: each hub
 * fixture is laid where `hf download … --local-dir PLACE` would put the repository, and the loader must find it
 * from the run's --data folder alone. The loader's own BAD_DATA message, for an empty folder, names the same hub
 * repository, so the hint and the loader cannot drift apart.
 */
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSelection } from '../../src/run/load-suites.js';
import { mathDataFetch, suiteDataFetch, wikitextDataFetch } from '../../src/mlrb/data-fetch.js';
import { readWikitextTest } from '../../src/model-metrics/wikitext-text.js';
import { resolveTaskNames } from '../../src/tasks/task-names.js';
import { rejectedMlrbError } from '../support/expect-mlrb-error.js';
import { repoRoot } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';

const fixtures = path.join(repoRoot, 'test', 'fixtures');
/** A download of each repository, as the hub lays it out (the fixture holds a few rows of each). */
const HUB_DOWNLOADS: readonly { readonly suite: string; readonly download: string }[] = [
  { suite: 'mmlu_anatomy', download: 'hub/parquet/mmlu-subjects' },
  { suite: 'blimp_adjunct_island', download: 'hub/parquet/blimp' },
  { suite: 'superglue', download: 'hub/parquet/superglue' },
  { suite: 'hellaswag', download: 'tasks/hub/hellaswag' },
  { suite: 'arc_easy', download: 'tasks/hub/ai2_arc' },
  { suite: 'arc_challenge', download: 'tasks/hub/ai2_arc' },
  { suite: 'gsm8k', download: 'tasks/gsm8k/hub' },
];

const load = (suite: string, dataDir: string) =>
  Promise.all(resolveTaskNames(suite).map((selection) => loadSelection(selection, { dataDir, numFewshot: 0, allowPartial: true })));

describe('data fetch hints', () => {
  it.each(HUB_DOWNLOADS)(
    '$suite: the download laid where the hint says is found from --data; an empty --data names the same repository',
    async ({ suite, download }) => {
      const data = makeTempDir('fetch-hint');
      const fetch = suiteDataFetch(suite, data);
      expect(fetch.command).toBe(`hf download ${fetch.hub} --repo-type dataset --local-dir ${fetch.place}`);
      const error = await rejectedMlrbError(() => load(suite, data));
      expect(error.code).toBe('BAD_DATA');
      expect(error.message).toContain(`datasets--${fetch.hub?.replace('/', '--')}`);
      cpSync(path.join(fixtures, download), fetch.place, { recursive: true });
      const [loaded] = await load(suite, data);
      expect(loaded?.tasks.length).toBeGreaterThan(0);
    },
  );

  it("BabyLM's suites are not on the hub: the hint names the pipeline's evaluation_data folder, and a copy laid there is found", async () => {
    const data = makeTempDir('fetch-hint');
    const fetch = suiteDataFetch('ewok_filtered', data);
    expect(fetch).toMatchObject({
      hub: null,
      command: null,
      place: path.join(data, 'evaluation_data', 'ewok_filtered'),
      what: expect.stringContaining('evaluation-pipeline-2024'),
    });
    cpSync(path.join(fixtures, 'tasks', 'release', 'evaluation_data', 'ewok_filtered'), fetch.place, { recursive: true });
    expect((await load('ewok_filtered', data))[0]?.tasks.length).toBeGreaterThan(0);
    expect(suiteDataFetch('blimp_supplement', data).place).toBe(path.join(data, 'evaluation_data', 'supplement_filtered'));
  });

  it('WikiText for perplexity: the download laid at DATA/wikitext is found from the data folder', async () => {
    const data = makeTempDir('fetch-hint');
    const fetch = wikitextDataFetch(data);
    expect(fetch.command).toContain("--include 'wikitext-2-raw-v1/*'");
    mkdirSync(fetch.place, { recursive: true });
    cpSync(path.join(fixtures, 'model-metrics', 'wikitext-hub'), fetch.place, { recursive: true });
    expect((await readWikitextTest(data)).rows).toBeGreaterThan(0);
  });

  it("math_reasoning's problems: the prompt's dataset (prompts.py:371) as the JSON Lines --math-data reads", () => {
    expect(mathDataFetch('DATA')).toMatchObject({
      hub: 'AlgorithmicResearchGroup/math_reasoning_autoformalization_track',
      place: path.join('DATA', 'math_reasoning.jsonl'),
    });
  });

  it('BAD CALL – a name no suite answers to is a RangeError', () => {
    expect(() => suiteDataFetch('not_a_suite', 'DATA')).toThrow(RangeError);
  });
});
