/**
 * The suites the CLI can name. Each entry is data: a name, its loader and where the name comes from; suite names
 * and each suite's options type are read off these entries, so adding a suite is one more entry, with no change to
 * the evaluator, and the CLI's usage and errors list it from here. Every SuperGLUE task is also a suite of its own (`--suite boolq,cb`); `rte` is
 * accepted for lm-eval's `sglue_rte`. A multiple-choice task over one dataset is a SingleTask (src/tasks/single/):
 * one file and one entry here. A suite may hold any kind of task (types.ts `Task`); wikitext's is loglikelihood_rolling,
 * gsm8k's generate_until.
 */
import { loadBabyLmSuite, type BabyLmLoadOptions } from './babylm/load.js';
import { loadBlimpSuite } from './blimp/load.js';
import { loadMmluSuite } from './mmlu/load.js';
import { arcChallenge, arcEasy } from './single/arc.js';
import { hellaswag } from './single/hellaswag.js';
import { piqa } from './single/piqa.js';
import { loadSingleTaskSuite, type SingleTask } from './single/single-task.js';
import { winogrande } from './single/winogrande.js';
import { loadWikitextSuite } from './wikitext/load.js';
import { loadGsm8kSuite } from './gsm8k/load.js';
import { loadSuperGlueSuite, loadSuperGlueTaskSuite, type SuperGlueLoadOptions, type SuperGlueTaskName } from './superglue/load.js';
import type { TaskDocument } from './task-spec.js';
import type { Suite, SuiteLoadOptions } from './types.js';

/**
 * Whose name a suite goes by: lm-eval's own (a task, group or tag of v0.4.4–v0.4.8), BabyLM 2024's evaluation
 * pipeline's (an lm-eval fork), ours (a suite lm-eval has no single name for), or another spelling of one of
 * those. The CLI's usage lists them in these classes.
 */
export type SuiteNameOrigin = 'lm-eval' | 'babylm' | 'ours' | 'alias';

/** What the suite's name names, as lm-eval's task listing sorts names: a group (an aggregate over subtasks) or a task. */
export type SuiteNameKind = 'group' | 'task';

interface SuiteEntry<Options, Loaded extends Suite> {
  /** Its Suite type says which kind of task the suite holds (a multiple-choice suite: Suite<MultipleChoiceTask>). */
  readonly load: (options: Options) => Promise<Loaded>;
  readonly origin: SuiteNameOrigin;
  readonly kind: SuiteNameKind;
}

/** An entry keeps its loader's options and suite types, so the registry below is the one list of names and options. */
const entry = <Options, Loaded extends Suite>(
  load: (options: Options) => Promise<Loaded>,
  origin: SuiteNameOrigin,
  kind: SuiteNameKind,
): SuiteEntry<Options, Loaded> => ({ load, origin, kind });

const superGlueTask = (name: SuperGlueTaskName, origin: SuiteNameOrigin = 'lm-eval') =>
  entry((options: SuperGlueLoadOptions) => loadSuperGlueTaskSuite(name, options), origin, 'task');
const singleTask = <Doc extends TaskDocument>(task: SingleTask<Doc>) =>
  entry((options: SuiteLoadOptions) => loadSingleTaskSuite(task, options), 'lm-eval', 'task');
const babyLm = (name: Parameters<typeof loadBabyLmSuite>[0]) => entry((options: BabyLmLoadOptions) => loadBabyLmSuite(name, options), 'babylm', 'group');

const SUITES = {
  mmlu: entry(loadMmluSuite, 'lm-eval', 'group'),
  blimp: entry(loadBlimpSuite, 'lm-eval', 'group'),
  superglue: entry(loadSuperGlueSuite, 'ours', 'group'),
  boolq: superGlueTask('boolq'),
  cb: superGlueTask('cb'),
  copa: superGlueTask('copa'),
  multirc: superGlueTask('multirc'),
  record: superGlueTask('record'),
  sglue_rte: superGlueTask('sglue_rte'),
  rte: superGlueTask('sglue_rte', 'alias'),
  wic: superGlueTask('wic'),
  wsc: superGlueTask('wsc'),
  hellaswag: singleTask(hellaswag),
  arc_easy: singleTask(arcEasy),
  arc_challenge: singleTask(arcChallenge),
  piqa: singleTask(piqa),
  winogrande: singleTask(winogrande),
  wikitext: entry(loadWikitextSuite, 'lm-eval', 'task'),
  gsm8k: entry(loadGsm8kSuite, 'lm-eval', 'task'),
  blimp_filtered: babyLm('blimp_filtered'),
  blimp_supplement: babyLm('blimp_supplement'),
  ewok_filtered: babyLm('ewok_filtered'),
} as const;

export type SuiteName = keyof typeof SUITES;

/** Each suite's load options, read off its loader. */
export type SuiteOptionsByName = { readonly [Name in SuiteName]: (typeof SUITES)[Name] extends SuiteEntry<infer Options, Suite> ? Options : never };

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
