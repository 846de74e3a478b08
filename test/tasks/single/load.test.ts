/**
 * The single-dataset suites (HellaSwag, ARC, PIQA, WinoGrande) and BabyLM's EWoK on the fixtures in
 * test/fixtures/tasks (scripts/data/build_task_fixtures.py): both layouts give the same documents, hand-worked
 * prompts, and the data errors a user can meet. What lm-eval builds from the same rows is checked in
 * test/eval/task-requests.test.ts.
 */
import { copyFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTaskRequests } from '../../../src/eval/task-requests.js';
import { loadSuite, type SuiteName } from '../../../src/tasks/registry.js';
import { preprocessHellaSwag } from '../../../src/tasks/single/hellaswag.js';
import { resolveTaskNames } from '../../../src/tasks/task-names.js';
import type { MultipleChoiceTask } from '../../../src/tasks/types.js';
import { pythonCapitalize } from '../../../src/text/python-text.js';
import { refusedWith } from '../../support/expect-mlrb-error.js';
import { repoRoot } from '../../support/shared-data.js';
import { makeTempDir } from '../../support/temp-dirs.js';

const fixtures = path.join(repoRoot, 'test/fixtures/tasks');
const release = (folder: string): string => path.join(fixtures, 'release', folder);
const hub = (folder: string): string => path.join(fixtures, 'hub', folder);

async function onlyTask(suite: SuiteName, dataDir: string, numFewshot = 0): Promise<MultipleChoiceTask> {
  const loaded = await loadSuite(suite, { dataDir, numFewshot });
  expect(loaded.tasks).toHaveLength(1);
  expect(loaded.groups).toEqual([]);
  return loaded.tasks[0] as MultipleChoiceTask;
}

describe('release and hub layouts give the same documents', () => {
  const cases = [
    { suite: 'hellaswag', release: release('hellaswag'), hub: hub('hellaswag'), docs: 4 },
    { suite: 'arc_easy', release: release('ARC-V1-Feb2018-2'), hub: hub('ai2_arc'), docs: 3 },
    { suite: 'arc_challenge', release: release('ARC-V1-Feb2018-2'), hub: hub('ai2_arc'), docs: 2 },
    { suite: 'piqa', release: release('piqa'), hub: hub('piqa'), docs: 3 },
    { suite: 'winogrande', release: release('winogrande'), hub: hub('winogrande'), docs: 3 },
  ] as const;
  for (const { suite, release: releaseDir, hub: hubDir, docs } of cases) {
    it(`${suite}, with its few-shot split`, async () => {
      const [fromRelease, fromHub] = await Promise.all([onlyTask(suite, releaseDir, 2), onlyTask(suite, hubDir, 2)]);
      expect(fromRelease.docs).toHaveLength(docs);
      expect(fromHub.docs).toEqual(fromRelease.docs);
      expect(fromHub.fewshot?.docs).toEqual(fromRelease.fewshot?.docs);
      expect(buildTaskRequests(fromHub)).toEqual(buildTaskRequests(fromRelease));
      expect(fromRelease.sourceFiles.length).toBeGreaterThanOrEqual(2);
    });
  }

  it('a 0-shot run reads only the evaluated split', async () => {
    const dir = makeTempDir('hellaswag-val-only');
    copyFileSync(path.join(release('hellaswag'), 'hellaswag_val.jsonl'), path.join(dir, 'hellaswag_val.jsonl'));
    const task = await onlyTask('hellaswag', dir);
    expect(task.sourceFiles).toEqual([path.join(dir, 'hellaswag_val.jsonl')]);
    const error = await refusedWith('BAD_DATA', loadSuite('hellaswag', { dataDir: dir, numFewshot: 1 }));
    expect(error.message).toMatch(/HellaSwag data in .* has no train split for few-shot examples \(expected hellaswag_train\.jsonl\)/);
  });
});

describe('hand-worked prompts', () => {
  it("HellaSwag's preprocess: strip first, ' [title]' → '. ', [...] removed, double spaces collapsed once", () => {
    // Worked by hand, and the same as lm-eval's utils.preprocess gives: the strip comes before the removals,
    // so the space left by "[header]" stays.
    expect(preprocessHellaSwag('  [header] How to cook [title] Boil water.  [step] Wait.  ')).toBe(' How to cook. Boil water.  Wait.');
    expect(preprocessHellaSwag('a [b]c[d] e')).toBe('a c e');
    // Python's "." stops only at \n: a bracket pair spanning \r goes, one spanning \n stays.
    expect(preprocessHellaSwag('x [a\rb] y [c\nd] z')).toBe('x y [c\nd] z');
  });

  it('HellaSwag: activity label, ctx_a, capitalized ctx_b; gold from the string label', async () => {
    const task = await onlyTask('hellaswag', hub('hellaswag'));
    expect(task.docs[0]?.text).toBe(
      'Removing ice from car: Then, the man writes over the snow covering the window of a car, and a woman wearing winter clothes smiles. Then',
    );
    expect(task.docs[1]?.choices[0]).toBe('You can use a hose. Water in the morning.');
    expect(task.docs[2]?.text).toBe('Walking: A woman walks down the street. Sstraße signs are everywhere.');
    expect(task.docs.map((doc) => doc.target)).toEqual([3, 0, 2, 1]);
    expect(task.metrics).toEqual(['acc', 'acc_norm']);
  });

  it("ARC: the target is the answer key's place among the labels, letters or digits", async () => {
    const task = await onlyTask('arc_easy', hub('ai2_arc'));
    expect(task.docs[1]?.text).toBe('Question: Which tool measures mass?\nAnswer:');
    expect(task.docs[1]?.choices).toEqual(['a ruler', 'a balance', 'a thermometer', 'a clock']);
    expect(task.docs.map((doc) => doc.target)).toEqual([2, 1, 4]);
  });

  it('WinoGrande: one context per option, the rest of the sentence scored after each', async () => {
    const task = await onlyTask('winogrande', release('winogrande'));
    expect(buildTaskRequests(task).slice(2, 4)).toEqual([
      {
        taskName: 'winogrande',
        docId: 1,
        choiceIndex: 0,
        context: "The trophy doesn't fit into the brown suitcase because the trophy is too large",
        continuation: ' .',
      },
      {
        taskName: 'winogrande',
        docId: 1,
        choiceIndex: 1,
        context: "The trophy doesn't fit into the brown suitcase because the suitcase is too small",
        continuation: ' .',
      },
    ]);
    expect(task.docs.map((doc) => doc.target)).toEqual([0, 1, 1]);
    expect(task.docs[2]?.source).toEqual({
      sentence: "Ian volunteered to eat Dennis's menudo after already having a bowl because _ despised eating  intestine. ",
      option1: 'Ian',
      option2: 'Dennis',
      answer: '2',
    });
  });

  it("PIQA: the release's labels file joins its questions by line", async () => {
    const task = await onlyTask('piqa', release('piqa'));
    expect(task.docs.map((doc) => [doc.text, doc.target])).toEqual([
      ["Question: How do I ready a guinea pig cage for it's new occupants?\nAnswer:", 0],
      ['Question: To make a cake moist,\nAnswer:', 1],
      ['Question: Open a jar \nAnswer:', 0],
    ]);
  });

  it("Python's str.capitalize (values from CPython 3.11)", () => {
    expect(pythonCapitalize('hELLO wORLD')).toBe('Hello world');
    expect(pythonCapitalize('ßtraße')).toBe('Sstraße');
    expect(pythonCapitalize('ǆungla')).toBe('ǅungla');
    expect(pythonCapitalize('ﬁsh')).toBe('Fish');
    expect(pythonCapitalize('ᾳ')).toBe('ᾼ');
    expect(pythonCapitalize('ᾲ')).toBe('Ὰ\u0345');
    expect(pythonCapitalize('ŉ')).toBe('ʼN');
    expect(pythonCapitalize('ანა')).toBe('ანა');
    expect(pythonCapitalize('')).toBe('');
  });
});

describe("BabyLM's ewok_filtered", () => {
  it('one task per domain, context Context1, choices [Target1, Target2], gold 0, pinned to 0-shot', async () => {
    const suite = await loadSuite('ewok_filtered', { dataDir: release('evaluation_data'), numFewshot: 5 });
    expect(suite.tasks.map((task) => [task.name, task.docs.length, task.numFewshot])).toEqual([
      ['ewok_agent-properties_filtered', 4, 0],
      ['ewok_spatial-relations_filtered', 2, 0],
    ]);
    expect(suite.groups).toEqual([
      { name: 'ewok_filtered', subtasks: ['ewok_agent-properties_filtered', 'ewok_spatial-relations_filtered'], weightBySize: false, version: 1 },
    ]);
    // The filter script's swapped copy: the same pair scored the other way round.
    expect(buildTaskRequests(suite.tasks[0] as MultipleChoiceTask).slice(0, 4)).toEqual([
      { taskName: 'ewok_agent-properties_filtered', docId: 0, choiceIndex: 0, context: 'Ali is a baker.', continuation: ' Ali makes bread.' },
      { taskName: 'ewok_agent-properties_filtered', docId: 0, choiceIndex: 1, context: 'Ali is a baker.', continuation: ' Ali flies planes.' },
      { taskName: 'ewok_agent-properties_filtered', docId: 1, choiceIndex: 0, context: 'Ali is a pilot.', continuation: ' Ali flies planes.' },
      { taskName: 'ewok_agent-properties_filtered', docId: 1, choiceIndex: 1, context: 'Ali is a pilot.', continuation: ' Ali makes bread.' },
    ]);
  });

  it('--tasks takes the group and its subtasks by name', () => {
    expect(resolveTaskNames('ewok_spatial-relations_filtered,hellaswag')).toEqual([
      { suite: 'ewok_filtered', tasks: ['ewok_spatial-relations_filtered'], groups: [] },
      { suite: 'hellaswag' },
    ]);
  });
});

describe('EXPECTED FAILURE – data a task cannot score', () => {
  function copyOf(folder: string): string {
    const dir = makeTempDir('single-task');
    cpSync(folder, dir, { recursive: true });
    return dir;
  }

  it('WinoGrande: a sentence without a blank names its line', async () => {
    const dir = copyOf(release('winogrande'));
    writeFileSync(path.join(dir, 'dev.jsonl'), '{"qID":"x","sentence":"No blank here.","option1":"a","option2":"b","answer":"1"}\n');
    const error = await refusedWith('BAD_DATA', loadSuite('winogrande', { dataDir: dir }));
    expect(error.message).toMatch(/dev\.jsonl line 1: column "sentence": has no blank "_" to fill/);
  });

  it('ARC: an answer key that is not a choice label', async () => {
    const dir = copyOf(release('ARC-V1-Feb2018-2'));
    writeFileSync(
      path.join(dir, 'ARC-Easy', 'ARC-Easy-Test.jsonl'),
      '{"id":"q","question":{"stem":"?","choices":[{"text":"a","label":"A"},{"text":"b","label":"B"}]},"answerKey":"3"}\n',
    );
    const error = await refusedWith('BAD_DATA', loadSuite('arc_easy', { dataDir: dir }));
    expect(error.message).toMatch(/ARC-Easy-Test\.jsonl line 1: column "answerKey": "3" is not one of the choice labels A, B/);
  });

  it('PIQA: a labels file that does not match its questions', async () => {
    const dir = copyOf(release('piqa'));
    writeFileSync(path.join(dir, 'valid-labels.lst'), '0\n1\n');
    const error = await refusedWith('BAD_DATA', loadSuite('piqa', { dataDir: dir }));
    expect(error.message).toMatch(/valid-labels\.lst has 2 labels for 3 questions/);
  });

  it('HellaSwag: a label that indexes no ending', async () => {
    const dir = copyOf(release('hellaswag'));
    writeFileSync(
      path.join(dir, 'hellaswag_val.jsonl'),
      '{"ind":1,"activity_label":"a","ctx_a":"b","ctx_b":"c","ctx":"b c","split":"val","split_type":"indomain","label":4,"endings":["x","y"],"source_id":"s"}\n',
    );
    const error = await refusedWith('BAD_DATA', loadSuite('hellaswag', { dataDir: dir }));
    expect(error.message).toMatch(/line 1: column "label": "4" is not the index of one of the 2 endings/);
  });

  it('a folder in neither layout lists both', async () => {
    const dir = makeTempDir('empty-task');
    mkdirSync(path.join(dir, 'piqa'));
    const error = await refusedWith('BAD_DATA', loadSuite('piqa', { dataDir: dir }));
    expect(error.message).toMatch(/Accepted PIQA layouts: \(1\) the release, valid\.jsonl and valid-labels\.lst .*\(2\) the Hugging Face hub's/);
    rmSync(dir, { recursive: true, force: true });
  });
});
