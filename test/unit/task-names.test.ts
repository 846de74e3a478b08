/** lm-eval's --tasks names → suites and selections (src/tasks/task-names.ts), against lm-eval's task lists. */
import { describe, expect, it } from 'vitest';
import { EVAL_USAGE } from '../../src/cli/eval-command.js';
import { SUITE_NAMES } from '../../src/tasks/registry.js';
import { describeTaskNames, resolveTaskNames } from '../../src/tasks/task-names.js';

describe('resolveTaskNames', () => {
  it('groups, subtasks and the SuperGLUE tag', () => {
    expect(resolveTaskNames('mmlu')).toEqual([{ suite: 'mmlu' }]);
    expect(resolveTaskNames('mmlu_anatomy,mmlu_astronomy')).toEqual([{ suite: 'mmlu', subjects: ['anatomy', 'astronomy'], groups: [] }]);
    // lm-eval's _mmlu_social_sciences.yaml lists 12 subjects.
    const social = resolveTaskNames('mmlu_social_sciences')[0];
    expect(social?.subjects).toHaveLength(12);
    expect(social?.groups).toEqual(['mmlu_social_sciences']);
    expect(resolveTaskNames('blimp_adjunct_island')).toEqual([{ suite: 'blimp', paradigms: ['adjunct_island'], groups: [] }]);
    expect(resolveTaskNames('super-glue-lm-eval-v1')).toEqual([{ suite: 'superglue', groups: [] }]);
    expect(resolveTaskNames('boolq,sglue_rte').map((selection) => selection.suite)).toEqual(['boolq', 'sglue_rte']);
  });

  it('a whole suite absorbs its parts; BabyLM subtasks are kept by name', () => {
    expect(resolveTaskNames('mmlu_anatomy,mmlu')).toEqual([{ suite: 'mmlu' }]);
    expect(resolveTaskNames('blimp_adjunct_island_filtered,blimp_supplement_hypernym')).toEqual([
      { suite: 'blimp_filtered', tasks: ['blimp_adjunct_island_filtered'], groups: [] },
      { suite: 'blimp_supplement', tasks: ['blimp_supplement_hypernym'], groups: [] },
    ]);
  });

  it('EXPECTED FAILURE – unknown names, all listed at once', () => {
    expect(() => resolveTaskNames('mmlu_nonesuch,blimp_nonesuch')).toThrow(/unknown task\(s\) "mmlu_nonesuch", "blimp_nonesuch"/);
    expect(() => resolveTaskNames(' , ')).toThrow(RangeError);
  });
});

describe('the names the CLI lists come from the registry', () => {
  it('--help and the unknown-name error name every suite but the rte alias, each class once', () => {
    const vocabulary = describeTaskNames();
    const listed = [...vocabulary.lmEval, ...vocabulary.babyLm, ...vocabulary.ours];
    expect(SUITE_NAMES.filter((name) => !listed.includes(name))).toEqual(['rte']);
    expect(new Set(listed).size).toBe(listed.length);
    expect(vocabulary.babyLm).toEqual(['blimp_filtered', 'blimp_<paradigm>_filtered', 'blimp_supplement', 'blimp_supplement_<subtask>', 'ewok_filtered', 'ewok_<domain>_filtered']);
    expect(vocabulary.ours).toEqual(['superglue']);
    const help = EVAL_USAGE.replaceAll(/\n +/g, ' ');
    for (const name of listed) expect(help).toContain(name);
    expect(() => resolveTaskNames('nonesuch')).toThrow(/known: mmlu, .*hellaswag, arc_easy, arc_challenge, piqa, winogrande.*ewok_filtered/);
  });
});
