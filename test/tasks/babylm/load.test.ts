/** BabyLM 2024's blimp_filtered and blimp_supplement suites on a generated evaluation_data folder. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { aggregateGroups } from '../../../src/eval/aggregate.js';
import { computeTaskMetrics } from '../../../src/eval/metrics.js';
import { buildTaskRequests } from '../../../src/eval/task-requests.js';
import { loadSuite } from '../../../src/tasks/registry.js';
import { writeBabyLmFixture } from '../../support/babylm-fixtures.js';

describe('BabyLM BLiMP suites', () => {
  const root = writeBabyLmFixture();

  it('names tasks like the BabyLM pipeline and groups them per suite', async () => {
    const filtered = await loadSuite('blimp_filtered', { dataDir: root });
    expect(filtered.tasks.map((task) => [task.name, task.docs.length])).toEqual([
      ['blimp_anaphor_gender_agreement_filtered', 3],
      ['blimp_determiner_noun_agreement_1_filtered', 1],
    ]);
    expect(filtered.groups).toEqual([
      {
        name: 'blimp_filtered',
        subtasks: ['blimp_anaphor_gender_agreement_filtered', 'blimp_determiner_noun_agreement_1_filtered'],
        weightBySize: false,
        version: 1,
      },
    ]);
    const supplement = await loadSuite('blimp_supplement', { dataDir: path.join(root, 'supplement_filtered') });
    expect(supplement.tasks.map((task) => task.name)).toEqual(['blimp_supplement_hypernym', 'blimp_supplement_qa_congruence_easy']);
  });

  it('scores pairs like BLiMP: empty context, [good, bad], gold 0, and num_fewshot pinned to 0', async () => {
    const supplement = await loadSuite('blimp_supplement', { dataDir: root, numFewshot: 3 });
    const task = supplement.tasks[1];
    expect(task?.numFewshot).toBe(0);
    expect(buildTaskRequests(task!)).toEqual([
      { taskName: 'blimp_supplement_qa_congruence_easy', docId: 0, choiceIndex: 0, context: '', continuation: ' A: What did you eat?\nB: Pizza.' },
      { taskName: 'blimp_supplement_qa_congruence_easy', docId: 0, choiceIndex: 1, context: '', continuation: ' A: What did you eat?\nB: Yesterday.' },
    ]);
  });

  it('the group is the macro average of its subtasks', async () => {
    const suite = await loadSuite('blimp_filtered', { dataDir: root });
    const [big, small] = suite.tasks;
    // big: 2 of 3 right; small: 1 of 1 right → macro (2/3 + 1) / 2, where the micro mean would be 3/4.
    const metrics = new Map([
      [
        big!.name,
        computeTaskMetrics(
          big!,
          [0, 1, 2].map((docId) => ({ docId, logliks: docId === 2 ? [-2, -1] : [-1, -2], isGreedy: [false, false] })),
        ),
      ],
      [small!.name, computeTaskMetrics(small!, [{ docId: 0, logliks: [-1, -2], isGreedy: [false, false] }])],
    ]);
    expect(aggregateGroups(suite.groups, metrics).get('blimp_filtered')?.metrics[0]?.value).toBe((2 / 3 + 1) / 2);
  });

  it('EXPECTED FAILURE – a missing folder or a bad row', async () => {
    await expect(loadSuite('blimp_supplement', { dataDir: path.join(root, 'blimp_filtered') })).rejects.toThrow(/no supplement_filtered data/);
    writeFileSync(path.join(root, 'supplement_filtered', 'hypernym.jsonl'), '{"sentence_good": "A dog."}\n');
    await expect(loadSuite('blimp_supplement', { dataDir: root })).rejects.toThrow(/hypernym\.jsonl line 1: field "sentence_bad"/);
  });
});
