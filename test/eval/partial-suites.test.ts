/**
 * A suite folder that lacks subtasks is refused with the list of what is missing (BAD_DATA); allowPartial
 * scores the rest, and every group that lost a member is reported as `<group>_partial`, with `mlrb.partial`
 * listing the missing tasks, so a partial score cannot pass for the suite's.
 */
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MlrbError } from '../../src/errors.js';
import { computeTaskMetrics } from '../../src/eval/metrics.js';
import { buildResults } from '../../src/eval/results.js';
import { BLIMP_PARADIGMS } from '../../src/tasks/blimp/paradigms.js';
import { MMLU_SUBJECTS } from '../../src/tasks/mmlu/subjects.js';
import { loadSuite } from '../../src/tasks/registry.js';
import { writeFullBlimp } from '../support/full-blimp.js';
import { writeSuperGlueFixture } from '../support/superglue-fixtures.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { writeTinyMmlu } from '../support/tiny-datasets.js';
import { refusedWith } from '../support/expect-mlrb-error.js';
import { repoRoot } from '../support/shared-data.js';

const root = makeTempDir('partial');

const refusal = (load: Promise<unknown>): Promise<MlrbError> => refusedWith('BAD_DATA', load);

describe('BLiMP folders', () => {
  const two = writeFullBlimp(path.join(root, 'blimp-two'), ['adjunct_island', 'wh_island']);

  it('EXPECTED FAILURE – 2 of 67 paradigms: refused, listing all 65 missing', async () => {
    const error = await refusal(loadSuite('blimp', { dataDir: two }));
    expect(error.message).toMatch(/BLiMP data in .*blimp-two is incomplete: 65 of 67 subtasks are missing \(blimp_anaphor_gender_agreement, /);
    expect(error.message).toContain('blimp_wh_vs_that_with_gap_long_distance');
    expect(error.message).not.toContain('blimp_adjunct_island');
    expect(error.message).toMatch(/--allow-partial/);
    expect(error.details.missing).toHaveLength(65);
  });

  it('with allowPartial: the present paradigms, in a group named blimp_partial', async () => {
    const suite = await loadSuite('blimp', { dataDir: two, allowPartial: true });
    expect(suite.tasks.map((task) => task.name)).toEqual(['blimp_adjunct_island', 'blimp_wh_island']);
    expect(suite.missing).toHaveLength(65);
    expect(suite.groups).toEqual([
      {
        name: 'blimp_partial',
        alias: 'blimp (partial: 65 of 67 subtasks missing)',
        subtasks: ['blimp_adjunct_island', 'blimp_wh_island'],
        weightBySize: false,
        version: 2, // lm-eval's _blimp.yaml group metadata.version
      },
    ]);
  });

  it('all 67 paradigms are the whole suite; an explicit selection is a subset on purpose, not a partial suite', async () => {
    const full = await loadSuite('blimp', { dataDir: writeFullBlimp(path.join(root, 'blimp-full')) });
    expect(full.tasks).toHaveLength(BLIMP_PARADIGMS.length);
    expect(full.groups.map((group) => group.name)).toEqual(['blimp']);
    expect(full.missing).toBeUndefined();
    const chosen = await loadSuite('blimp', { dataDir: two, paradigms: ['wh_island'] });
    expect(chosen.groups.map((group) => group.name)).toEqual(['blimp']);
  });

  it('EXPECTED FAILURE – a broken file in an incomplete folder is reported as the broken file', async () => {
    const dir = writeFullBlimp(path.join(root, 'blimp-broken'), ['adjunct_island']);
    writeFileSync(path.join(dir, 'adjunct_island.jsonl'), '{"sentence_good": 1}\n');
    const error = await refusal(loadSuite('blimp', { dataDir: dir }));
    expect(error.message).toMatch(/adjunct_island\.jsonl line 1: field "sentence_good"/);
  });

  it('the results of a partial run: no `blimp` group, blimp_partial with the mean of what ran, and mlrb.partial', async () => {
    const suite = await loadSuite('blimp', { dataDir: two, allowPartial: true });
    // adjunct_island: both pairs right (acc 1); wh_island: one of two (acc 0.5).
    const logliks: Record<string, number[][]> = {
      blimp_adjunct_island: [
        [-1, -2],
        [-1, -3],
      ],
      blimp_wh_island: [
        [-1, -2],
        [-3, -1],
      ],
    };
    const taskMetrics = new Map(
      suite.tasks.map((task) => [
        task.name,
        computeTaskMetrics(
          task,
          (logliks[task.name] ?? []).map((pair, docId) => ({ docId, logliks: pair, isGreedy: [false, false] })),
        ),
      ]),
    );
    const mlrb = {
      tool_version: 't',
      model_sha256: 'm',
      model_content_sha256: 'c',
      data_fingerprint: 'd',
      provider: 'cpu',
      wall_time_s: 1,
      tokens_scored: 1,
      tokens_per_s: 1,
    };
    const results = buildResults({ suites: [suite], taskMetrics, run: { modelPath: 'model.onnx', batchSize: 'auto' }, mlrb });
    expect(Object.keys(results.groups ?? {})).toEqual(['blimp_partial']);
    expect(results.groups?.blimp_partial?.['acc,none']).toBe(0.75);
    expect(results.groups?.blimp_partial?.alias).toMatch(/partial/);
    expect(results.mlrb.partial).toEqual({ missing: suite.missing });
    const complete = buildResults({ suites: [{ ...suite, missing: [] }], taskMetrics, run: { modelPath: 'model.onnx', batchSize: 'auto' }, mlrb });
    expect(complete.mlrb.partial).toBeUndefined();
  });
});

describe('MMLU folders', () => {
  const dir = writeTinyMmlu(
    path.join(root, 'mmlu'),
    MMLU_SUBJECTS.filter((subject) => subject !== 'anatomy' && subject !== 'virology'),
  );
  // A dev file alone missing makes its subject missing too.
  rmSync(path.join(dir, 'dev', 'world_religions_dev.csv'));

  it('EXPECTED FAILURE – subjects without their test or dev file: refused, listing them', async () => {
    const error = await refusal(loadSuite('mmlu', { dataDir: dir }));
    expect(error.message).toMatch(/MMLU data in .* is incomplete: 3 of 57 subtasks are missing \(mmlu_anatomy, mmlu_virology, mmlu_world_religions\)/);
  });

  it('with allowPartial: each category that lost a subject, and mmlu itself, become *_partial', async () => {
    const suite = await loadSuite('mmlu', { dataDir: dir, allowPartial: true });
    expect(suite.tasks).toHaveLength(54);
    expect(suite.missing).toEqual(['mmlu_anatomy', 'mmlu_virology', 'mmlu_world_religions']);
    const names = suite.groups.map((group) => group.name);
    // anatomy is STEM, virology "other", world_religions humanities; social sciences is whole.
    expect(names).toEqual(['mmlu_partial', 'mmlu_humanities_partial', 'mmlu_other_partial', 'mmlu_social_sciences', 'mmlu_stem_partial']);
    expect(suite.groups[0]?.subtasks).toEqual(['mmlu_stem_partial', 'mmlu_other_partial', 'mmlu_social_sciences', 'mmlu_humanities_partial']);
    expect(suite.groups.find((group) => group.name === 'mmlu_stem_partial')?.alias).toBe(
      'stem (partial: without mmlu_anatomy, mmlu_virology, mmlu_world_religions)',
    );
  });
});

describe('SuperGLUE folders', () => {
  const withoutWsc = writeSuperGlueFixture({ folders: ['BoolQ', 'CB', 'COPA', 'MultiRC', 'ReCoRD', 'RTE', 'WiC'] });

  it('EXPECTED FAILURE – a folder without WSC is refused, naming the file its layout needs and where it comes from', async () => {
    const error = await refusal(loadSuite('superglue', { dataDir: withoutWsc }));
    expect(error.message).toMatch(/SuperGLUE data in .* is incomplete: 1 of 8 subtasks are missing \(wsc\)/);
    expect(error.message).toContain(
      `this folder is in the release layout and lacks WSC/val.jsonl: unzip https://dl.fbaipublicfiles.com/glue/superglue/data/v2/WSC.zip into ${withoutWsc}`,
    );
    expect(error.message).toContain("the Hugging Face hub's layout (aps/super_glue: <task>/validation-00000-of-00001.parquet)");
  });

  it('EXPECTED FAILURE – a hub download without record names the parquet file and the hf download that fetches it', async () => {
    const hub = path.join(makeTempDir('superglue-hub'), 'superglue');
    cpSync(path.join(repoRoot, 'test', 'fixtures', 'hub', 'parquet', 'superglue'), hub, { recursive: true });
    rmSync(path.join(hub, 'record'), { recursive: true });
    const error = await refusal(loadSuite('superglue', { dataDir: hub }));
    expect(error.message).toContain(
      `this folder is in the Hugging Face hub's layout (aps/super_glue) and lacks record/validation-00000-of-00001.parquet: hf download aps/super_glue --repo-type dataset --include 'record/*' --local-dir ${hub}`,
    );
  });

  it('with allowPartial: superglue_partial over the seven, saying which is missing', async () => {
    const suite = await loadSuite('superglue', { dataDir: withoutWsc, allowPartial: true });
    expect(suite.groups.map((group) => [group.name, group.alias])).toEqual([['superglue_partial', 'superglue (partial: without wsc)']]);
    expect(suite.groups[0]?.subtasks).toHaveLength(7);
    expect(suite.missing).toEqual(['wsc']);
    // One task asked for by name is complete by definition.
    expect((await loadSuite('boolq', { dataDir: withoutWsc })).groups).toEqual([]);
  });
});
