/** lm-eval's --tasks names → suites and selections (src/tasks/task-names.ts), against lm-eval's task lists. */
import { describe, expect, it } from 'vitest';
import { resolveTaskNames } from '../../src/tasks/task-names.js';

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
