import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MlrbError } from '../../../src/errors.js';
import { loadBlimpSuite } from '../../../src/tasks/blimp/load.js';

const pair = (good: string, bad: string, field = 'syntax', term = 'island_effects', uid = 'adjunct_island'): string =>
  JSON.stringify({ sentence_good: good, sentence_bad: bad, field, linguistics_term: term, UID: uid, pairID: '0' });

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mlrb-blimp-'));
  const dir = join(root, 'blimp');
  await mkdir(dir);
  await writeFile(
    join(dir, 'adjunct_island.jsonl'),
    [pair('Who did he see?', 'Who did he see him?'), pair('A b.', 'B a.'), pair('C.', 'D.')].join('\n') + '\n',
  );
  await writeFile(
    join(dir, 'principle_A_case_2.jsonl'),
    pair('She saw herself.', 'Herself saw her.', 'syntax/semantics', 'binding', 'principle_A_case_2') + '\n',
  );
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('loadBlimpSuite', () => {
  it('makes one task per paradigm with lm-eval blimp requests: empty context, good sentence is choice 0', async () => {
    const suite = await loadBlimpSuite({ dataDir: root, allowPartial: true });
    expect(suite.tasks.map((task) => task.name)).toEqual(['blimp_adjunct_island', 'blimp_principle_A_case_2']);
    const [island] = suite.tasks;
    expect(island).toMatchObject({ version: 1, description: '', targetDelimiter: ' ', numFewshot: 0, metrics: ['acc'], totalDocs: 3 });
    expect(island?.docs[0]).toMatchObject({ docId: 0, text: '', choices: ['Who did he see?', 'Who did he see him?'], target: 0 });
    expect(island?.docs[0]?.source).toMatchObject({ UID: 'adjunct_island', pairID: '0' });
    expect(suite.groups).toEqual([
      {
        name: 'blimp_partial',
        alias: 'blimp (partial: 65 of 67 subtasks missing)',
        subtasks: ['blimp_adjunct_island', 'blimp_principle_A_case_2'],
        weightBySize: false,
        version: 2,
      },
    ]);
  });

  it('tags each paradigm with its field and linguistics_term, folding syntax/semantics into syntax_semantics', async () => {
    const suite = await loadBlimpSuite({ dataDir: join(root, 'blimp'), allowPartial: true });
    expect(suite.tasks.map((task) => task.tags)).toEqual([
      { field: 'syntax', linguistics_term: 'island_effects', paradigm: 'adjunct_island' },
      { field: 'syntax_semantics', linguistics_term: 'binding', paradigm: 'principle_A_case_2' },
    ]);
  });

  it('filters paradigms and applies limit', async () => {
    const suite = await loadBlimpSuite({ dataDir: root, paradigms: ['adjunct_island'], limit: 2 });
    expect(suite.tasks).toHaveLength(1);
    expect(suite.tasks[0]?.docs.map((doc) => doc.choices[0])).toEqual(['Who did he see?', 'A b.']);
  });

  it('under a limit parses only the pairs it takes, and counts the rest for n-samples original', async () => {
    const dir = join(root, 'limited');
    await mkdir(dir, { recursive: true });
    // Line 4 is not JSON, line 5 another paradigm's pair: both lie past every limit below.
    await writeFile(join(dir, 'adjunct_island.jsonl'), `${pair('a', 'b')}\n\n${pair('c', 'd')}\n{"sentence_good":\n${pair('e', 'f', 'morphology')}\n`);
    const limited = async (limit: number) => (await loadBlimpSuite({ dataDir: dir, paradigms: ['adjunct_island'], limit })).tasks[0];
    expect(await limited(2)).toMatchObject({ totalDocs: 4, docs: [{ choices: ['a', 'b'] }, { choices: ['c', 'd'] }] });
    // A fraction is of every non-blank line: ceil(4 × 0.25) = 1.
    expect(await limited(0.25)).toMatchObject({ totalDocs: 4, docs: [{ choices: ['a', 'b'] }] });
    await expect(limited(3)).rejects.toThrow(/adjunct_island\.jsonl line 4: not valid JSON/);
  });

  it('BAD CALL – an unknown paradigm is rejected with the available list', async () => {
    await expect(loadBlimpSuite({ dataDir: root, paradigms: ['nope'] })).rejects.toThrow(/unknown BLiMP paradigm.*nope.*adjunct_island/);
  });

  describe('broken files', () => {
    const loadBroken = async (name: string, content: string): Promise<MlrbError> => {
      const dir = join(root, name);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'adjunct_island.jsonl'), content);
      const error: unknown = await loadBlimpSuite({ dataDir: dir }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MlrbError);
      expect((error as MlrbError).code).toBe('BAD_DATA');
      return error as MlrbError;
    };

    it('EXPECTED FAILURE – a line that is not JSON names file and line', async () => {
      const error = await loadBroken('bad-json', `${pair('a', 'b')}\n\n{"sentence_good": "x",\n`);
      expect(error.message).toContain(join(root, 'bad-json', 'adjunct_island.jsonl'));
      expect(error.message).toMatch(/line 3: not valid JSON/);
      expect(error.details).toMatchObject({ line: 3 });
    });

    it('EXPECTED FAILURE – a record without sentence_bad names the field', async () => {
      const error = await loadBroken('missing-field', `${pair('a', 'b')}\n{"sentence_good": "x", "field": "f", "linguistics_term": "t", "UID": "u"}\n`);
      expect(error.message).toMatch(/adjunct_island\.jsonl line 2: field "sentence_bad"/);
    });

    it('EXPECTED FAILURE – pairs from two paradigms in one file', async () => {
      const error = await loadBroken('mixed', `${pair('a', 'b')}\n${pair('c', 'd', 'morphology')}\n`);
      expect(error.message).toMatch(/line 2: field\/linguistics_term/);
    });
  });
});
