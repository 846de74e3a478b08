/**
 * lm-eval's `--tasks` vocabulary mapped onto our suites: task names (`mmlu_anatomy`, `blimp_adjunct_island`,
 * `boolq`), group names (`mmlu`, `mmlu_stem`, `blimp`) and the SuperGLUE tag (`super-glue-lm-eval-v1`), plus
 * our own suite names (`superglue`, `blimp_filtered` …). As in lm-eval, naming a task runs that task alone:
 * its group is reported only when the group itself is named, and a tag is a list of tasks with no aggregate.
 */
import { closestNames, didYouMean } from '../text/closest-names.js';
import type { SuiteName, SuiteNameOrigin } from './registry.js';
import { isSuiteName, SUITE_NAMES, suiteNameFacts, suiteNamesFrom } from './registry.js';
import { BLIMP_PARADIGMS } from './blimp/paradigms.js';
import { MMLU_CATEGORIES, MMLU_SUBJECT_CATEGORIES, isMmluSubject, type MmluCategory } from './mmlu/subjects.js';
import type { Suite } from './types.js';

/** lm-eval's tag over the eight SuperGLUE tasks (v0.4.4–v0.4.8). */
export const SUPERGLUE_TAG = 'super-glue-lm-eval-v1';

/** One suite to load and what of it to keep. */
export interface SuiteSelection {
  readonly suite: SuiteName;
  /** MMLU subjects to load; absent: all (with the loader's completeness rules). */
  readonly subjects?: readonly string[];
  /** BLiMP paradigms to load; absent: every file in the folder. */
  readonly paradigms?: readonly string[];
  /** Tasks to keep after loading (BabyLM subtasks, whose loader has no selection); absent: all. */
  readonly tasks?: readonly string[];
  /** Groups to report; absent: every group the loader builds. */
  readonly groups?: readonly string[];
}

/** What one name asks for; `whole` means the suite as the loader builds it. */
type Request =
  | { readonly suite: SuiteName; readonly whole: true }
  | {
      readonly suite: SuiteName;
      readonly whole: false;
      readonly subjects?: readonly string[];
      readonly paradigms?: readonly string[];
      readonly tasks?: readonly string[];
      readonly groups: readonly string[];
    };

/** BabyLM subtask names, and how usage text spells them. */
const BABYLM_SUBTASK_PATTERNS: readonly { readonly suite: SuiteName; readonly pattern: RegExp; readonly shown: string }[] = [
  { suite: 'blimp_supplement', pattern: /^blimp_supplement_.+$/, shown: 'blimp_supplement_<subtask>' },
  { suite: 'blimp_filtered', pattern: /^blimp_.+_filtered$/, shown: 'blimp_<paradigm>_filtered' },
  { suite: 'ewok_filtered', pattern: /^ewok_.+_filtered$/, shown: 'ewok_<domain>_filtered' },
];

/** How usage text spells the group and subtask names a suite also answers to. */
const LM_EVAL_SUBTASK_NAMES: Readonly<Partial<Record<SuiteName, readonly string[]>>> = {
  mmlu: [`mmlu_{${MMLU_CATEGORIES.join(',')}}`, 'mmlu_<subject>'],
  blimp: ['blimp_<paradigm>'],
};

function requestFor(name: string): Request | undefined {
  if (name === SUPERGLUE_TAG) return { suite: 'superglue', whole: false, groups: [] };
  if (isSuiteName(name)) return { suite: name, whole: true };
  const category = name.startsWith('mmlu_') ? name.slice('mmlu_'.length) : undefined;
  if (category !== undefined && (MMLU_CATEGORIES as readonly string[]).includes(category)) {
    const subjects = Object.entries(MMLU_SUBJECT_CATEGORIES)
      .filter(([, owner]) => owner === (category as MmluCategory))
      .map(([subject]) => subject);
    return { suite: 'mmlu', whole: false, subjects, groups: [name] };
  }
  if (category !== undefined && isMmluSubject(category)) return { suite: 'mmlu', whole: false, subjects: [category], groups: [] };
  for (const { suite, pattern } of BABYLM_SUBTASK_PATTERNS) {
    if (pattern.test(name)) return { suite, whole: false, tasks: [name], groups: [] };
  }
  const paradigm = name.startsWith('blimp_') ? name.slice('blimp_'.length) : undefined;
  if (paradigm !== undefined && BLIMP_PARADIGMS.includes(paradigm)) return { suite: 'blimp', whole: false, paradigms: [paradigm], groups: [] };
  return undefined;
}

/** The names --tasks accepts, by whose names they are (for usage text and errors); built from the registry. */
export interface TaskNameVocabulary {
  /** lm-eval's task, group and tag names, with the patterns of MMLU's and BLiMP's subtasks. */
  readonly lmEval: readonly string[];
  /** BabyLM 2024's pipeline's groups and the patterns of their subtasks. */
  readonly babyLm: readonly string[];
  /** Suites of ours. */
  readonly ours: readonly string[];
}

export function describeTaskNames(): TaskNameVocabulary {
  const lmEval = [...suiteNamesFrom('lm-eval').flatMap((name) => [name, ...(LM_EVAL_SUBTASK_NAMES[name] ?? [])]), SUPERGLUE_TAG];
  const babyLm = suiteNamesFrom('babylm').flatMap((name) => [
    name,
    ...BABYLM_SUBTASK_PATTERNS.filter((entry) => entry.suite === name).map((entry) => entry.shown),
  ]);
  return { lmEval, babyLm, ours: suiteNamesFrom('ours') };
}

/** One name --tasks accepts, as lm-eval's task listing shows it: a group, a tag or a task, and the suite it loads. */
export interface ListedTaskName {
  readonly name: string;
  readonly kind: 'group' | 'tag' | 'task';
  readonly suite: SuiteName;
  /** Whose name it is (an alias is another spelling of one of the suite's names). */
  readonly origin: SuiteNameOrigin;
}

/**
 * Every name --tasks accepts, built from the registry and the suites' own name lists (MMLU's subjects and
 * categories, BLiMP's paradigms). BabyLM's subtasks depend on the data downloaded, so they are not here; usage
 * text shows their patterns (describeTaskNames). The source of `--tasks list` and of "did you mean".
 */
export function listTaskNames(): ListedTaskName[] {
  const listed: ListedTaskName[] = [];
  for (const suite of SUITE_NAMES) {
    const { kind, origin } = suiteNameFacts(suite);
    listed.push({ name: suite, kind, suite, origin });
    if (suite === 'mmlu') {
      listed.push(...MMLU_CATEGORIES.map((category) => ({ name: `mmlu_${category}`, kind: 'group' as const, suite, origin })));
      listed.push(...Object.keys(MMLU_SUBJECT_CATEGORIES).map((subject) => ({ name: `mmlu_${subject}`, kind: 'task' as const, suite, origin })));
    }
    if (suite === 'blimp') listed.push(...BLIMP_PARADIGMS.map((paradigm) => ({ name: `blimp_${paradigm}`, kind: 'task' as const, suite, origin })));
  }
  listed.push({ name: SUPERGLUE_TAG, kind: 'tag', suite: 'superglue', origin: 'lm-eval' });
  return listed;
}

/** Names --tasks does not know, each with the known names nearest it (a RangeError: the caller's mistake). */
export class UnknownTaskError extends RangeError {
  constructor(readonly unknown: readonly { readonly name: string; readonly suggestions: readonly string[] }[]) {
    const described = unknown.map(({ name, suggestions }) => `${JSON.stringify(name)}${suggestions.length > 0 ? ` (${didYouMean(suggestions)})` : ''}`);
    super(`unknown task ${described.join(', ')}; listTaskNames() (on the command line: --tasks list) gives every name`);
    this.name = 'UnknownTaskError';
  }
}

/**
 * Comma-separated names → one selection per suite, in first-named order. Unknown names are one
 * UnknownTaskError naming them all, each with the nearest known names, before any file is read.
 */
export function resolveTaskNames(spec: string): SuiteSelection[] {
  const names = [
    ...new Set(
      spec
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name.length > 0),
    ),
  ];
  if (names.length === 0) throw new RangeError('no task named: give task, group or tag names separated by commas');
  const requests = names.map((name) => ({ name, request: requestFor(name) }));
  const unknown = requests.filter(({ request }) => request === undefined).map(({ name }) => name);
  if (unknown.length > 0) {
    const known = listTaskNames().map((entry) => entry.name);
    throw new UnknownTaskError(unknown.map((name) => ({ name, suggestions: closestNames(name, known) })));
  }
  const bySuite = new Map<SuiteName, Request[]>();
  for (const { request } of requests) {
    if (request === undefined) continue;
    bySuite.set(request.suite, [...(bySuite.get(request.suite) ?? []), request]);
  }
  return [...bySuite].map(([suite, asked]) => mergeRequests(suite, asked));
}

/** A whole suite absorbs any part of it; parts add up (a subject and its category load that category). */
function mergeRequests(suite: SuiteName, asked: readonly Request[]): SuiteSelection {
  if (asked.some((request) => request.whole)) return { suite };
  const union = (pick: (request: Exclude<Request, { whole: true }>) => readonly string[] | undefined): string[] | undefined => {
    const lists = asked.flatMap((request) => (request.whole ? [] : [pick(request)])).filter((list) => list !== undefined);
    return lists.length === 0 ? undefined : [...new Set(lists.flat())].sort();
  };
  const subjects = union((request) => request.subjects);
  const paradigms = union((request) => request.paradigms);
  const tasks = union((request) => request.tasks);
  return {
    suite,
    ...(subjects ? { subjects } : {}),
    ...(paradigms ? { paradigms } : {}),
    ...(tasks ? { tasks } : {}),
    groups: union((request) => request.groups) ?? [],
  };
}

/**
 * Keeps what the selection names of a loaded suite. A kept group whose subtasks were dropped would aggregate
 * nothing, so a group is kept only when it is named; BabyLM subtasks named alone drop their group, as in lm-eval.
 */
export function applySelection(suite: Suite, selection: SuiteSelection): Suite {
  const keepTasks = selection.tasks === undefined ? undefined : new Set(selection.tasks);
  const tasks = keepTasks === undefined ? suite.tasks : suite.tasks.filter((task) => keepTasks.has(task.name));
  if (keepTasks !== undefined) {
    const absent = [...keepTasks].filter((name) => !tasks.some((task) => task.name === name));
    if (absent.length > 0) throw new RangeError(`task(s) ${absent.join(', ')} not found in the ${suite.name} data folder`);
  }
  const keepGroups = selection.groups === undefined ? undefined : new Set(selection.groups);
  const groups = keepGroups === undefined ? suite.groups : suite.groups.filter((group) => keepGroups.has(group.name));
  return { ...suite, tasks, groups };
}
