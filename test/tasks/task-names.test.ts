/** lm-eval's --tasks names → suites and selections (src/tasks/task-names.ts), against lm-eval's task lists. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVAL_USAGE } from '../../src/cli/eval-command.js';
import { SUITE_NAMES } from '../../src/tasks/registry.js';
import { describeTaskNames, listTaskNames, resolveTaskNames, UnknownTaskError } from '../../src/tasks/task-names.js';
import { closestNames } from '../../src/text/closest-names.js';
import { repoRoot } from '../support/shared-data.js';

/** lm-eval's own task and group names with their versions (test/fixtures/lm-eval, recorded from its task YAMLs). */
const lmEvalNames = Object.keys(
  (JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'lm-eval', 'task-versions.json'), 'utf8')) as { versions: Record<string, number> }).versions,
);

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

  it('EXPECTED FAILURE – unknown names, all listed at once, each with the nearest known names', () => {
    let thrown: unknown;
    try {
      resolveTaskNames('mmlu_anatomyy,blimp_adjunct_islnad,zzzzzzzz');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnknownTaskError);
    expect(thrown).toBeInstanceOf(RangeError);
    expect((thrown as UnknownTaskError).unknown).toEqual([
      { name: 'mmlu_anatomyy', suggestions: ['mmlu_anatomy'] },
      { name: 'blimp_adjunct_islnad', suggestions: ['blimp_adjunct_island'] },
      { name: 'zzzzzzzz', suggestions: [] },
    ]);
    expect((thrown as Error).message).toBe(
      'unknown task "mmlu_anatomyy" (did you mean "mmlu_anatomy"?), "blimp_adjunct_islnad" (did you mean "blimp_adjunct_island"?), "zzzzzzzz"; ' +
        'listTaskNames() (on the command line: --tasks list) gives every name',
    );
    expect(() => resolveTaskNames(' , ')).toThrow(RangeError);
  });
});

describe('listTaskNames: what --tasks list prints and "did you mean" picks from', () => {
  const listed = listTaskNames();
  const names = listed.map((entry) => entry.name);

  it('holds every task and group name lm-eval has for MMLU, BLiMP and SuperGLUE, and each resolves', () => {
    expect(lmEvalNames.filter((name) => !names.includes(name))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(() => resolveTaskNames(name), name).not.toThrow();
    expect(names.filter((name) => name.startsWith('mmlu_') && listed.find((entry) => entry.name === name)?.kind === 'task')).toHaveLength(57);
    expect(names.filter((name) => /^blimp_(?!filtered|supplement)/.test(name))).toHaveLength(67);
  });

  it("every suite of the registry, with lm-eval's kind for its names (a group aggregates, a tag does not)", () => {
    expect(SUITE_NAMES.filter((name) => !names.includes(name))).toEqual([]);
    const kind = (name: string) => listed.find((entry) => entry.name === name)?.kind;
    expect([kind('mmlu'), kind('mmlu_stem'), kind('blimp'), kind('superglue'), kind('blimp_filtered')]).toEqual(['group', 'group', 'group', 'group', 'group']);
    expect([kind('super-glue-lm-eval-v1'), kind('boolq'), kind('mmlu_anatomy'), kind('hellaswag'), kind('gsm8k')]).toEqual([
      'tag',
      'task',
      'task',
      'task',
      'task',
    ]);
  });
});

describe('closestNames', () => {
  const known = ['mmlu_anatomy', 'mmlu_astronomy', 'blimp', 'boolq', 'wic', 'wsc'];
  it('a typo, a swap, a missing or an extra letter, another case', () => {
    expect(closestNames('mmlu_anatomyy', known)).toEqual(['mmlu_anatomy']);
    expect(closestNames('mmlu_anatmoy', known)).toEqual(['mmlu_anatomy']);
    expect(closestNames('blmp', known)).toEqual(['blimp']);
    expect(closestNames('BOOLQ', known)).toEqual(['boolq']);
  });

  it('ties are all offered; nothing is offered when nothing is close', () => {
    expect(closestNames('wxc', known)).toEqual(['wic', 'wsc']);
    expect(closestNames('superglue', known)).toEqual([]);
    expect(closestNames('q', known)).toEqual([]);
  });
});

describe('the names the CLI lists come from the registry', () => {
  it('--help names every suite but the rte alias, each class once', () => {
    const vocabulary = describeTaskNames();
    const listed = [...vocabulary.lmEval, ...vocabulary.babyLm, ...vocabulary.ours];
    expect(SUITE_NAMES.filter((name) => !listed.includes(name))).toEqual(['rte']);
    expect(new Set(listed).size).toBe(listed.length);
    expect(vocabulary.babyLm).toEqual([
      'blimp_filtered',
      'blimp_<paradigm>_filtered',
      'blimp_supplement',
      'blimp_supplement_<subtask>',
      'ewok_filtered',
      'ewok_<domain>_filtered',
    ]);
    expect(vocabulary.ours).toEqual(['superglue']);
    const help = EVAL_USAGE.replaceAll(/\n +/g, ' ');
    for (const name of listed) expect(help).toContain(name);
  });
});
