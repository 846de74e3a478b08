/** The real MMLU and BLiMP copies in ../shared load completely; skipped, visibly, where shared/ is absent. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadSuite } from '../../src/tasks/registry.js';

const dataDir = fileURLToPath(new URL('../../../shared/data', import.meta.url));
const hasData = existsSync(dataDir);

describe.skipIf(!hasData)('real data in ../shared', () => {
  it('MMLU: 57 subjects, 14,042 test and 285 dev questions, lm-eval category sizes', async () => {
    const suite = await loadSuite('mmlu', { dataDir, numFewshot: 5 });
    expect(suite.tasks).toHaveLength(57);
    expect(suite.tasks.reduce((sum, task) => sum + task.docs.length, 0)).toBe(14_042);
    expect(suite.tasks.reduce((sum, task) => sum + (task.fewshot?.docs.length ?? 0), 0)).toBe(285);
    const sizes = Object.fromEntries(suite.groups.map((group) => [group.name, group.subtasks.length]));
    expect(sizes).toEqual({ mmlu: 4, mmlu_stem: 19, mmlu_humanities: 13, mmlu_social_sciences: 12, mmlu_other: 13 });
    const algebra = suite.tasks.find((task) => task.name === 'mmlu_abstract_algebra');
    expect(algebra?.fewshot?.docs[0]?.text).toBe('Find all c in Z_3 such that Z_3[x]/(x^2 + c) is a field.\nA. 0\nB. 1\nC. 2\nD. 3\nAnswer:');
    expect(algebra?.fewshot?.docs[0]?.target).toBe(1);
  });

  it('BLiMP: 67 paradigms of 1,000 pairs, each tagged with field and linguistics_term', async () => {
    const suite = await loadSuite('blimp', { dataDir });
    expect(suite.tasks).toHaveLength(67);
    expect(suite.tasks.every((task) => task.docs.length === 1000)).toBe(true);
    expect(suite.tasks.every((task) => task.tags.field !== undefined && task.tags.linguistics_term !== undefined)).toBe(true);
    expect(new Set(suite.tasks.map((task) => task.tags.field))).toEqual(new Set(['syntax', 'morphology', 'semantics', 'syntax_semantics']));
    expect(suite.groups[0]?.subtasks).toHaveLength(67);
  });
});
