/**
 * The Hugging Face hub's parquet layouts give the documents the release layouts give. The fixtures
 * (test/fixtures/hub, built by scripts/data/build_hub_fixtures.py with pyarrow) hold the same rows both ways:
 * release/ as ../shared has them, parquet/ as the hub's tooling writes them (hub column names, ClassLabel ints,
 * MultiRC one row per answer, ReCoRD sorted sets, wsc.fixed with the builder's span fix, snappy).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSuite, type SuiteName } from '../../src/tasks/registry.js';
import type { MultipleChoiceDoc, MultipleChoiceTask, Suite } from '../../src/tasks/types.js';
import { multipleChoiceSuite } from '../support/task-builders.js';
import { hasShared, repoRoot, sharedPaths } from '../support/shared-data.js';

const fixtures = path.join(repoRoot, 'test', 'fixtures', 'hub');
const release = (suite: string): string => path.join(fixtures, 'release', suite);
const parquet = (folder: string): string => path.join(fixtures, 'parquet', folder);

const load = (suite: SuiteName, dataDir: string, numFewshot = 0): Promise<Suite<MultipleChoiceTask>> =>
  loadSuite(suite, { dataDir, allowPartial: true, numFewshot }).then(multipleChoiceSuite);

/** What scoring reads of a document; `source` is compared per suite, since the hub names some fields its own way. */
const scored = (doc: MultipleChoiceDoc) => ({
  docId: doc.docId,
  text: doc.text,
  choices: doc.choices,
  target: doc.target,
  targetText: doc.targetText,
  answers: doc.answers,
});
const scoredTask = (task: MultipleChoiceTask) => ({
  name: task.name,
  description: task.description,
  docs: task.docs.map(scored),
  fewshot: task.fewshot?.docs.map(scored),
  tags: task.tags,
  metrics: task.metrics,
  lmEval: task.lmEval,
});

const HUB_BLIMP_COLUMNS = [
  'sentence_good',
  'sentence_bad',
  'field',
  'linguistics_term',
  'UID',
  'simple_LM_method',
  'one_prefix_method',
  'two_prefix_method',
  'lexically_identical',
  'pair_id',
] as const;

describe('hub parquet layouts match the release layouts', () => {
  it('MMLU: cais/mmlu `all` and per-subject configs give the release docs, dev split included', async () => {
    const expected = await load('mmlu', release('mmlu'));
    expect(expected.tasks.map((task) => task.docs.length)).toEqual([5, 5, 5]);
    for (const folder of ['mmlu-all', 'mmlu-subjects']) {
      const hub = await load('mmlu', parquet(folder));
      expect(hub.tasks.map(scoredTask)).toEqual(expected.tasks.map(scoredTask));
      expect(hub.tasks.map((task) => task.docs.map((doc) => doc.source))).toEqual(expected.tasks.map((task) => task.docs.map((doc) => doc.source)));
      expect(hub.groups).toEqual(expected.groups);
      expect(hub.missing).toEqual(expected.missing);
    }
    // The answer ClassLabel is the index: anatomy's first test question is answered A in the release CSV.
    const anatomy = (await load('mmlu', parquet('mmlu-all'))).tasks.find((task) => task.name === 'mmlu_anatomy');
    expect(anatomy?.docs[0]?.target).toBe(0);
    expect(anatomy?.fewshot?.docs).toHaveLength(5);
  });

  it('under a limit, hub files give the release docs and the same split sizes (n-samples original)', async () => {
    const limited = (suite: SuiteName, dataDir: string, limit: number) =>
      loadSuite(suite, { dataDir, allowPartial: true, limit })
        .then(multipleChoiceSuite)
        .then((loaded) => loaded.tasks.map((task) => ({ ...scoredTask(task), totalDocs: task.totalDocs })));
    for (const limit of [2, 0.5]) {
      const blimp = await limited('blimp', release('blimp'), limit);
      expect(blimp.every((task) => task.docs.length < (task.totalDocs ?? 0))).toBe(true);
      expect(await limited('blimp', parquet('blimp'), limit)).toEqual(blimp);
      const mmlu = await limited('mmlu', release('mmlu'), limit);
      for (const folder of ['mmlu-all', 'mmlu-subjects']) expect(await limited('mmlu', parquet(folder), limit)).toEqual(mmlu);
    }
  });

  it('BLiMP: nyu-mll/blimp configs give the release pairs; the logged row is the hub row (pair_id an int)', async () => {
    const expected = await load('blimp', release('blimp'));
    const hub = await load('blimp', parquet('blimp'));
    expect(hub.tasks.map(scoredTask)).toEqual(expected.tasks.map(scoredTask));
    expect(hub.groups).toEqual(expected.groups);
    hub.tasks.forEach((task, taskIndex) =>
      task.docs.forEach((doc, docIndex) => {
        const releaseSource = expected.tasks[taskIndex]?.docs[docIndex]?.source ?? {};
        // The hub's nine other columns, as in the release; the builder drops the release's one_prefix_* fields.
        expect(Object.keys(doc.source)).toEqual([...HUB_BLIMP_COLUMNS]);
        for (const column of HUB_BLIMP_COLUMNS.slice(0, -1)) expect(doc.source[column]).toEqual(releaseSource[column]);
        expect(doc.source.pair_id).toBe(Number(releaseSource.pairID));
      }),
    );
  });

  it('SuperGLUE: all eight aps/super_glue configs give the release docs, zero- and few-shot', async () => {
    for (const numFewshot of [0, 1]) {
      const expected = await load('superglue', release('superglue'), numFewshot);
      const hub = await load('superglue', parquet('superglue'), numFewshot);
      expect(hub.tasks.map((task) => task.name)).toEqual(['boolq', 'cb', 'copa', 'multirc', 'record', 'sglue_rte', 'wic', 'wsc']);
      expect(hub.missing).toBeUndefined();
      expect(hub.tasks.map(scoredTask)).toEqual(expected.tasks.map(scoredTask));
      expect(hub.groups).toEqual(expected.groups);
    }
  });

  it('SuperGLUE sources: the hub row is the builder row, as the release reader builds it', async () => {
    const expected = await load('superglue', release('superglue'));
    const hub = await load('superglue', parquet('superglue'));
    hub.tasks.forEach((task, taskIndex) =>
      task.docs.forEach((doc, docIndex) => {
        const releaseSource = expected.tasks[taskIndex]?.docs[docIndex]?.source ?? {};
        // The shared copy adds a `version` field to WiC rows, which the builder drops.
        const { version: _version, ...builderFields } = releaseSource;
        expect(doc.source).toEqual(builderFields);
      }),
    );
  });

  it('WSC: the plain `wsc` config gets the span fix on reading, so it equals wsc.fixed', async () => {
    const fixedOnly = await load('wsc', parquet('superglue'));
    const wsc = fixedOnly.tasks[0] as MultipleChoiceTask;
    // Row 5 of the shared copy says "The table" where the text has "the table"; the builder recases it.
    expect(wsc.docs[4]?.text).toContain('refer to "*the table*"?');
    expect(wsc.docs[4]?.source).toMatchObject({ idx: 5, span1_text: 'the table' });
  });

  it('ReCoRD: entities and answers as the builder stores them (sorted sets), prompts as the release gives', async () => {
    const record = (await load('record', parquet('superglue'))).tasks[0] as MultipleChoiceTask;
    expect(record.docs.map((doc) => doc.answers)).toEqual([
      { candidates: ['Dana Ruiz', 'Elmsford', 'Monday'], gold: ['Dana Ruiz'] },
      { candidates: ['Dana Ruiz', 'Elmsford', 'Monday'], gold: ['Elmsford'] },
    ]);
    expect(record.docs[1]?.choices[1]).toBe('  - The bridge in Elmsford opened on Monday.');
  });
});

describe('compression codecs', () => {
  it('zstd, gzip, brotli and lz4 files decode to the snappy file’s docs', async () => {
    const snappy = (await load('cb', parquet('superglue'))).tasks.map(scoredTask);
    for (const codec of ['zstd', 'gzip', 'brotli', 'lz4']) {
      const suite = await load('cb', path.join(fixtures, 'codecs', codec));
      expect(suite.tasks.map(scoredTask)).toEqual(snappy);
    }
  });
});

describe.skipIf(!hasShared)('fixtures are the first rows of ../shared/data', () => {
  it('MMLU and BLiMP release fixtures equal the shared data, cut to the fixture size', async () => {
    const fixtureMmlu = await load('mmlu', release('mmlu'));
    const sharedMmlu = await loadSuite('mmlu', { dataDir: sharedPaths.mmlu, subjects: ['abstract_algebra', 'anatomy', 'sociology'], limit: 5 });
    expect(fixtureMmlu.tasks.map(scoredTask)).toEqual(sharedMmlu.tasks.map(scoredTask));
    const fixtureBlimp = await load('blimp', release('blimp'));
    const sharedBlimp = await loadSuite('blimp', {
      dataDir: sharedPaths.blimp,
      paradigms: ['adjunct_island', 'anaphor_gender_agreement', 'causative'],
      limit: 5,
    });
    expect(fixtureBlimp.tasks.map(scoredTask)).toEqual(sharedBlimp.tasks.map(scoredTask));
  });
});
