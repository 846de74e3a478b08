/**
 * The suites the CLI can name. Each entry is data: a name, its loader and where the name comes from; adding a
 * suite is one more entry and one more options type, with no change to the evaluator, and the CLI's usage and
 * errors list it from here. Every SuperGLUE task is also a suite of its own (`--suite boolq,cb`); `rte` is
 * accepted for lm-eval's `sglue_rte`. A multiple-choice task over one dataset is a SingleTask (src/tasks/single/):
 * one file and one entry here. A suite may hold any kind of task (types.ts `Task`); wikitext's is loglikelihood_rolling,
 * gsm8k's generate_until.
 */
import { loadBabyLmSuite, type BabyLmLoadOptions } from './babylm/load.js';
import { loadBlimpSuite, type BlimpLoadOptions } from './blimp/load.js';
import { loadMmluSuite, type MmluLoadOptions } from './mmlu/load.js';
import { arcChallenge, arcEasy } from './single/arc.js';
import { hellaswag } from './single/hellaswag.js';
import { piqa } from './single/piqa.js';
import { loadSingleTaskSuite } from './single/single-task.js';
import { winogrande } from './single/winogrande.js';
import { loadWikitextSuite } from './wikitext/load.js';
import { loadGsm8kSuite, type Gsm8kLoadOptions } from './gsm8k/load.js';
import { loadSuperGlueSuite, loadSuperGlueTaskSuite, type SuperGlueLoadOptions, type SuperGlueTaskName } from './superglue/load.js';
import type { Suite, SuiteLoadOptions } from './types.js';

/** Each suite's load options; the key set is the set of suite names. */
export interface SuiteOptionsByName {
  readonly mmlu: MmluLoadOptions;
  readonly blimp: BlimpLoadOptions;
  readonly superglue: SuperGlueLoadOptions;
  readonly boolq: SuperGlueLoadOptions;
  readonly cb: SuperGlueLoadOptions;
  readonly copa: SuperGlueLoadOptions;
  readonly multirc: SuperGlueLoadOptions;
  readonly record: SuperGlueLoadOptions;
  readonly sglue_rte: SuperGlueLoadOptions;
  readonly rte: SuperGlueLoadOptions;
  readonly wic: SuperGlueLoadOptions;
  readonly wsc: SuperGlueLoadOptions;
  readonly blimp_filtered: BabyLmLoadOptions;
  readonly blimp_supplement: BabyLmLoadOptions;
  readonly ewok_filtered: BabyLmLoadOptions;
  readonly hellaswag: SuiteLoadOptions;
  readonly arc_easy: SuiteLoadOptions;
  readonly arc_challenge: SuiteLoadOptions;
  readonly piqa: SuiteLoadOptions;
  readonly winogrande: SuiteLoadOptions;
  readonly wikitext: SuiteLoadOptions;
  readonly gsm8k: Gsm8kLoadOptions;
}

export type SuiteName = keyof SuiteOptionsByName;

/**
 * Whose name a suite goes by: lm-eval's own (a task, group or tag of v0.4.4–v0.4.8), BabyLM 2024's evaluation
 * pipeline's (an lm-eval fork), ours (a suite lm-eval has no single name for), or another spelling of one of
 * those. The CLI's usage lists them in these classes.
 */
export type SuiteNameOrigin = 'lm-eval' | 'babylm' | 'ours' | 'alias';

/** What the suite's name names, as lm-eval's task listing sorts names: a group (an aggregate over subtasks) or a task. */
export type SuiteNameKind = 'group' | 'task';

interface SuiteEntry<Options> {
  /** Its Suite type says which kind of task the suite holds (a multiple-choice suite: Suite<MultipleChoiceTask>). */
  readonly load: (options: Options) => Promise<Suite>;
  readonly origin: SuiteNameOrigin;
  readonly kind: SuiteNameKind;
}

type SuiteEntries = { readonly [Name in SuiteName]: SuiteEntry<SuiteOptionsByName[Name]> };

const superGlueTask = (name: SuperGlueTaskName): SuiteEntry<SuperGlueLoadOptions> => ({
  load: (options) => loadSuperGlueTaskSuite(name, options),
  origin: 'lm-eval',
  kind: 'task',
});

const SUITES = {
  mmlu: { load: loadMmluSuite, origin: 'lm-eval', kind: 'group' },
  blimp: { load: loadBlimpSuite, origin: 'lm-eval', kind: 'group' },
  superglue: { load: loadSuperGlueSuite, origin: 'ours', kind: 'group' },
  boolq: superGlueTask('boolq'),
  cb: superGlueTask('cb'),
  copa: superGlueTask('copa'),
  multirc: superGlueTask('multirc'),
  record: superGlueTask('record'),
  sglue_rte: superGlueTask('sglue_rte'),
  rte: { ...superGlueTask('sglue_rte'), origin: 'alias' },
  wic: superGlueTask('wic'),
  wsc: superGlueTask('wsc'),
  hellaswag: { load: (options) => loadSingleTaskSuite(hellaswag, options), origin: 'lm-eval', kind: 'task' },
  arc_easy: { load: (options) => loadSingleTaskSuite(arcEasy, options), origin: 'lm-eval', kind: 'task' },
  arc_challenge: { load: (options) => loadSingleTaskSuite(arcChallenge, options), origin: 'lm-eval', kind: 'task' },
  piqa: { load: (options) => loadSingleTaskSuite(piqa, options), origin: 'lm-eval', kind: 'task' },
  winogrande: { load: (options) => loadSingleTaskSuite(winogrande, options), origin: 'lm-eval', kind: 'task' },
  wikitext: { load: loadWikitextSuite, origin: 'lm-eval', kind: 'task' },
  gsm8k: { load: loadGsm8kSuite, origin: 'lm-eval', kind: 'task' },
  blimp_filtered: { load: (options) => loadBabyLmSuite('blimp_filtered', options), origin: 'babylm', kind: 'group' },
  blimp_supplement: { load: (options) => loadBabyLmSuite('blimp_supplement', options), origin: 'babylm', kind: 'group' },
  ewok_filtered: { load: (options) => loadBabyLmSuite('ewok_filtered', options), origin: 'babylm', kind: 'group' },
} as const satisfies SuiteEntries;

/** The suite a name loads, with the kind of its tasks. */
export type LoadedSuite<Name extends SuiteName> = Awaited<ReturnType<(typeof SUITES)[Name]['load']>>;

export const SUITE_NAMES: readonly SuiteName[] = Object.keys(SUITES) as SuiteName[];

/** The suite names whose name comes from `origin`, in registry order. */
export function suiteNamesFrom(origin: SuiteNameOrigin): SuiteName[] {
  return SUITE_NAMES.filter((name) => SUITES[name].origin === origin);
}

/** Whether the suite's name names a group or a task, and whose name it is. */
export function suiteNameFacts(name: SuiteName): { readonly kind: SuiteNameKind; readonly origin: SuiteNameOrigin } {
  const { kind, origin } = SUITES[name];
  return { kind, origin };
}

export function isSuiteName(name: string): name is SuiteName {
  return Object.hasOwn(SUITES, name);
}

export function loadSuite<Name extends SuiteName>(name: Name, options: SuiteOptionsByName[Name]): Promise<LoadedSuite<Name>> {
  if (!isSuiteName(name)) {
    throw new RangeError(`unknown suite ${JSON.stringify(name)}; known suites: ${SUITE_NAMES.join(', ')}`);
  }
  const load = SUITES[name].load as (options: SuiteOptionsByName[Name]) => Promise<LoadedSuite<Name>>;
  return load(options);
}
