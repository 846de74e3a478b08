/**
 * SuperGLUE loading and prompts on fixtures in the release layout. Expected prompts are worked out by hand
 * from lm-eval's task files (super_glue/<task>/default.yaml, copa/utils.py, wsc/preprocess_wsc.py, record/util.py)
 * and the Hugging Face builder (labels, MultiRC flattening, ReCoRD spans, the wsc.fixed span fix).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MlrbError } from '../../../src/errors.js';
import { buildTaskRequests } from '../../../src/eval/task-requests.js';
import { loadSuite } from '../../../src/tasks/registry.js';
import type { MultipleChoiceTask } from '../../../src/tasks/types.js';
import { writeSuperGlueFixture } from '../../support/superglue-fixtures.js';

const taskOf = async (name: 'boolq' | 'cb' | 'copa' | 'multirc' | 'record' | 'rte' | 'wic' | 'wsc', dataDir: string): Promise<MultipleChoiceTask> => {
  const suite = await loadSuite(name, { dataDir });
  return suite.tasks[0] as MultipleChoiceTask;
};
const summary = (task: MultipleChoiceTask) => task.docs.map((doc) => ({ text: doc.text, choices: doc.choices, target: doc.target }));

describe('SuperGLUE prompts (lm-eval v0.4.4–v0.4.8)', () => {
  const root = writeSuperGlueFixture();

  it('boolq, cb, sglue_rte: templates, choices and ClassLabel targets', async () => {
    expect(summary(await taskOf('boolq', root))[0]).toEqual({
      text: 'Sky -- The sky is blue.\nQuestion: is the sky blue?\nAnswer:',
      choices: ['no', 'yes'],
      target: 1,
    });
    expect(summary(await taskOf('cb', root)).map((doc) => doc.target)).toEqual([0, 2, 1]);
    expect(summary(await taskOf('cb', root))[0]?.text).toBe('It rained all day.\nQuestion: the ground is wet. True, False, or Neither?\nAnswer:');
    const rte = await taskOf('rte', root);
    expect(rte.name).toBe('sglue_rte');
    expect(summary(rte)[1]).toEqual({ text: 'Ann owns a cat.\nQuestion: Ann has a dog. True or False?\nAnswer:', choices: ['True', 'False'], target: 1 });
  });

  it('copa: stripped premise minus its period, connector, choices lowercased with a space of their own', async () => {
    const copa = await taskOf('copa', root);
    expect(summary(copa)).toEqual([
      { text: 'The man fell because', choices: [' he slipped on ice.', ' ümit laughed.'], target: 0 },
      { text: 'I was hungry therefore', choices: [' i slept.', ' i ate.'], target: 1 },
    ]);
    // lm-eval's delimiter quirk: the continuation starts with two spaces.
    expect(buildTaskRequests(copa)[0]?.continuation).toBe('  he slipped on ice.');
  });

  it('multirc: one document per answer, the answer through Python string escapes, label 1 on the "no" choice', async () => {
    const multirc = await taskOf('multirc', root);
    expect(summary(multirc)).toEqual([
      {
        text: 'Files live in C:\\temp. Tom reads them.\nQuestion: Where do files live?\nAnswer:',
        // '''C:\temp\nIs …''' read by ast.literal_eval: "\t" becomes a tab.
        choices: ['C:\temp\nIs the answer correct? yes', 'C:\temp\nIs the answer correct? no'],
        target: 1,
      },
      {
        text: 'Files live in C:\\temp. Tom reads them.\nQuestion: Where do files live?\nAnswer:',
        choices: ['Nowhere\nIs the answer correct? yes', 'Nowhere\nIs the answer correct? no'],
        target: 0,
      },
    ]);
    expect(multirc.docs[0]?.source).toMatchObject({ idx: { paragraph: 0, question: 0, answer: 0 }, label: 1 });
  });

  it('wic: the word is sentence1[start1:end1] in code points', async () => {
    expect(summary(await taskOf('wic', root))[0]?.text).toBe(
      "Sentence 1: 😀 bank on it.\nSentence 2: The river bank.\nQuestion: Is the word 'bank' used in the same way in the two sentences above?\nAnswer:",
    );
  });

  it('wsc: the wsc.fixed span fix, the pronoun marked by word index, general_detokenize', async () => {
    const wsc = await taskOf('wsc', root);
    expect(summary(wsc)[0]).toEqual({
      text: 'Passage: The table won\'t fit through the doorway because *it* is too wide.\nQuestion: In the passage above, does the pronoun "*it*" refer to "*The table*"?\nAnswer:',
      choices: ['no', 'yes'],
      target: 1,
    });
    expect(wsc.docs[0]?.source).toMatchObject({ span1_text: 'The table', span2_index: 9 });
  });

  it('record: highlights, sorted unique entities cut by inclusive code-point spans, the default delimiter', async () => {
    const record = await taskOf('record', root);
    const [first] = record.docs;
    expect(first?.text).toBe('😀 Alice met Bob in Paris. Alice waved.\n\n  - Bob left Paris.\n  - Alice stayed.\n');
    expect(first?.choices).toEqual([
      '  - Alice said goodbye to Bob.',
      '  - Bob said goodbye to Bob.',
      '  - Paris said goodbye to Bob.',
      '  - 😀 said goodbye to Bob.',
    ]);
    expect(first?.answers).toEqual({ candidates: ['Alice', 'Bob', 'Paris', '😀'], gold: ['Alice'] });
    expect(first?.targetText).toBe('  - Alice said goodbye to Bob.');
    expect(record.docs[1]?.target).toBe(2);
    // record/default.yaml sets no target_delimiter: lm-eval's default " " goes before each choice (its logged
    // arguments show three spaces; test/e2e/lm-eval-samples.e2e.test.ts holds the requests to a real run).
    expect(record.targetDelimiter).toBe(' ');
    expect(record.metrics).toEqual(['f1', 'em']);
    expect(buildTaskRequests(record)[0]?.continuation).toBe('   - Alice said goodbye to Bob.');
  });
});

describe('SuperGLUE data files', () => {
  it('the shared/ variant ("true"/"false" strings) loads to the same documents as the release (booleans)', async () => {
    const official = writeSuperGlueFixture({ style: 'booleans' });
    const variant = writeSuperGlueFixture({ style: 'strings' });
    for (const name of ['boolq', 'wic', 'wsc'] as const) {
      const [a, b] = await Promise.all([taskOf(name, official), taskOf(name, variant)]);
      expect(a.docs.map((doc) => [doc.text, doc.target, doc.source])).toEqual(b.docs.map((doc) => [doc.text, doc.target, doc.source]));
    }
  });

  it('EXPECTED FAILURE – bad rows name the file, the line and the field', async () => {
    const root = writeSuperGlueFixture({ folders: ['CB', 'BoolQ', 'WSC'] });
    writeFileSync(
      path.join(root, 'CB', 'val.jsonl'),
      '{"premise": "p", "hypothesis": "h", "label": "entailment", "idx": 0}\n{"premise": "p", "hypothesis": "h", "label": "maybe", "idx": 1}\n',
    );
    await expect(loadSuite('cb', { dataDir: root })).rejects.toThrow(
      /CB[/\\]val\.jsonl line 2: field "label": label must be one of "entailment", "contradiction", "neutral"/,
    );
    writeFileSync(path.join(root, 'BoolQ', 'val.jsonl'), '{"question": "q", "passage": "p", "idx": 0}\n');
    await expect(loadSuite('boolq', { dataDir: root })).rejects.toThrow(/line 1: field "label"/);
    writeFileSync(
      path.join(root, 'WSC', 'val.jsonl'),
      '{"text": "A b c .", "target": {"span1_index": 0, "span1_text": "Zed", "span2_index": 1, "span2_text": "b"}, "idx": 0, "label": true}\n',
    );
    const error: unknown = await loadSuite('wsc', { dataDir: root }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MlrbError);
    expect((error as MlrbError).code).toBe('BAD_DATA');
    expect((error as MlrbError).message).toMatch(/line 1: span1_text "Zed" is not in the text/);
  });

  it('EXPECTED FAILURE – a task folder that is missing', async () => {
    const root = writeSuperGlueFixture({ folders: ['CB'] });
    await expect(loadSuite('boolq', { dataDir: root })).rejects.toThrow(/BoolQ[/\\]val\.jsonl/);
    await expect(loadSuite('superglue', { dataDir: path.join(root, 'CB') })).rejects.toThrow(/no superglue data/);
  });

  it('superglue: all eight tasks and the score group; a missing task makes it superglue_partial', async () => {
    const full = await loadSuite('superglue', { dataDir: writeSuperGlueFixture() });
    expect(full.tasks.map((task) => task.name)).toEqual(['boolq', 'cb', 'copa', 'multirc', 'record', 'sglue_rte', 'wic', 'wsc']);
    expect(full.groups).toEqual([
      {
        name: 'superglue',
        subtasks: ['boolq', 'cb', 'copa', 'multirc', 'record', 'sglue_rte', 'wic', 'wsc'],
        weightBySize: false,
        version: 1,
        scoreMetrics: { boolq: 'acc', cb: 'acc', copa: 'acc', multirc: 'acc', record: 'f1', sglue_rte: 'acc', wic: 'acc', wsc: 'acc' },
      },
    ]);
    const partial = await loadSuite('superglue', { dataDir: writeSuperGlueFixture({ folders: ['CB', 'COPA'] }), allowPartial: true });
    expect(partial.groups[0]?.name).toBe('superglue_partial');
    expect(partial.groups[0]?.alias).toBe('superglue (partial: without boolq, multirc, record, sglue_rte, wic, wsc)');
  });

  it('few-shot: examples from train.jsonl when present, else from the validation split (noted in the config)', async () => {
    const withTrain = await loadSuite('cb', { dataDir: writeSuperGlueFixture({ folders: ['CB'], train: ['CB'] }), numFewshot: 1 });
    const task = withTrain.tasks[0] as MultipleChoiceTask;
    expect(task.sourceFiles.map((file) => path.basename(file))).toEqual(['val.jsonl', 'train.jsonl']);
    expect(task.lmEval?.splits).toEqual({ training_split: 'train', validation_split: 'validation' });
    expect(task.fewshot).toMatchObject({ sampler: 'default', drawsExtra: true, seed: 1234 });
    // random.Random(1234).sample(range(3), 2) → [1, 0]; for document 0 the train copy of document 0 is equal and
    // dropped, leaving document 1 ("Maybe he came." → Neither).
    expect(buildTaskRequests(task)[0]?.context).toBe(
      'Maybe he came.\nQuestion: he came. True, False, or Neither?\nAnswer: Neither\n\nIt rained all day.\nQuestion: the ground is wet. True, False, or Neither?\nAnswer:',
    );
    const fallback = await loadSuite('cb', { dataDir: writeSuperGlueFixture({ folders: ['CB'] }), numFewshot: 1 });
    expect(fallback.tasks[0]?.lmEval?.splits.fewshot_split).toBe('validation');
    expect(() => loadSuite('cb', { dataDir: '/nowhere', numFewshot: -1 })).toThrow(RangeError);
    await expect(loadSuite('cb', { dataDir: writeSuperGlueFixture({ folders: ['CB'] }), numFewshot: 3 })).rejects.toThrow(/needs 4 few-shot documents/);
  });
});
