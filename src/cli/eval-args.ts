/**
 * The eval command's flags → evaluate() options plus where outputs go. The flags are one table (EVAL_FLAGS, which
 * also gives the usage), parsed once by parseCommandLine (both `--num-fewshot` and lm-eval's `--num_fewshot`).
 */
import { z } from 'zod';
import type { EvaluateOptions } from '../run/evaluate-options.js';
import { defaultHubCacheDir } from '../tasks/hub-cache.js';
import { parseShardSpec } from '../run/shard.js';
import { normalizeFlagSpelling, onlyModel } from './command-args.js';
import { parseCommandLine } from './command-line.js';
import {
  ALLOW_PARTIAL,
  BATCH_SIZE,
  CACHE_DIR,
  CONFIG,
  LIMIT,
  LM_EVAL_VERSION,
  MAX_LENGTH,
  NO_CACHE,
  NO_CPU_FUSION,
  NUM_FEWSHOT,
  ORT_LIBRARY,
  PROVIDER,
  QUIET,
  THREADS,
  TOKENIZER,
  USE_CACHE,
  wholeNumber,
} from './common-flags.js';
import { UsageError } from './exit-error.js';
import { flag, sameAs, tableSpec, withHelp, type FlagValues, switchFlag } from './flag-table.js';
import { describeTaskNames, resolveTaskNames, UnknownTaskError } from '../tasks/task-names.js';
import { didYouMean } from '../text/closest-names.js';
import { TASK_LISTINGS, type TaskListing } from './task-list.js';
import { outputsFromFlags, RESULT_FLAGS, type EvalOutputs } from './result-flags.js';

/** Usage errors name the command that `mlrb-eval MODEL …` runs. */
const usageError = (problem: string): UsageError => new UsageError('eval', problem);

/** The --tasks help, listing the registry's names (so a new suite shows up without an edit here). */
function tasksHelp(): string {
  const names = describeTaskNames();
  return (
    `comma-separated task, group and tag names. lm-eval's: ${names.lmEval.join(', ')}; ` +
    `BabyLM 2024's: ${names.babyLm.join(', ')}; ours: ${names.ours.join(', ')} (--tasks list lists every name)`
  );
}

const TASKS = flag({ name: 'tasks', kind: 'string', value: z.string().optional(), placeholder: 'NAMES', help: tasksHelp() });

const shard = z.string().transform((text, context) => {
  try {
    return parseShardSpec(text);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

/** The eval command's flags, in the order its usage lists them. */
export const EVAL_FLAGS = [
  TASKS,
  sameAs(TASKS, 'suite'),
  flag({
    name: 'data',
    kind: 'string',
    value: z.string().optional(),
    placeholder: 'DIR',
    help:
      "the suite's data folder (or a folder with one sub-folder per suite), in the release layout or as a Hugging Face hub download " +
      '(parquet); default: the hub cache ($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub)',
  }),
  TOKENIZER,
  CONFIG,
  NUM_FEWSHOT,
  LIMIT,
  BATCH_SIZE,
  flag({
    name: 'memory-budget-mb',
    kind: 'string',
    value: wholeNumber('memory-budget-mb').optional(),
    placeholder: 'M',
    help: 'memory the auto batch size plans for (default 256)',
  }),
  MAX_LENGTH,
  ALLOW_PARTIAL,
  withHelp(THREADS, "ONNX Runtime threads per forward pass (default 1, one pass per core; 0: ORT's default, all cores on one pass at a time)"),
  PROVIDER,
  ORT_LIBRARY,
  NO_CPU_FUSION,
  ...RESULT_FLAGS,
  flag({
    name: 'shard',
    kind: 'string',
    value: shard.optional(),
    placeholder: 'I/N',
    help: "score only shard I of N (counted from 0: I is 0 … N-1) and write the shard file to --output; mlrb-eval merge joins the N files into this run's results",
  }),
  withHelp(
    CACHE_DIR,
    "the caches' folder: tokenized requests and scores (default ~/.cache/mlrb-eval, or $MLRB_CACHE_DIR); scores are stored as each forward pass " +
      'finishes, so a killed run resumes where it stopped',
  ),
  USE_CACHE,
  flag({
    name: 'cache-max-mb',
    kind: 'string',
    value: wholeNumber('cache-max-mb').optional(),
    placeholder: 'N',
    help: 'size cap of the score cache (default 1024); least recently used models go first',
  }),
  NO_CACHE,
  LM_EVAL_VERSION,
  switchFlag('verbose', 'say what loading decided (LM-head slicing, fusion, prefix reuse, cache)'),
  withHelp(QUIET, 'no progress or notes on stderr: the tables, warnings and errors only'),
] as const;

type EvalFlagValues = FlagValues<typeof EVAL_FLAGS>;

export interface EvalArgs {
  readonly options: Omit<EvaluateOptions, 'onLog' | 'onWarning' | 'onProgress'>;
  readonly outputs: EvalOutputs;
  readonly verbose: boolean;
  readonly quiet: boolean;
  readonly showBreakdowns: boolean;
  /** What was accepted but means something else here, for --verbose. */
  readonly notes: readonly string[];
}

/**
 * lm-eval's `--use_cache DIR` and our `--cache-dir DIR` name the same folder (tokens and scores); `--no-cache`
 * turns every cache off and cannot be combined with either.
 */
function cacheFolderFlag(values: EvalFlagValues): string | false | undefined {
  const named = [values['cache-dir'], values['use-cache']].filter((value): value is string => value !== undefined);
  if (values['no-cache'] && named.length > 0) throw usageError('give --no-cache or a cache folder (--use-cache / --cache-dir), not both');
  if (named.length === 2 && named[0] !== named[1]) throw usageError('--use-cache and --cache-dir name the same folder; give one');
  if (named[0] === '') throw usageError('--use-cache expects a folder');
  return values['no-cache'] ? false : named[0];
}

/** --help, `--tasks list` (lm-eval's listing; no MODEL needed), or the command line read. */
export type ParsedEvalArgs =
  | { readonly help: true }
  | { readonly help: false; readonly list: TaskListing }
  | ({ readonly help: false; readonly list?: undefined } & EvalArgs);

/** Task names checked before anything is opened; an unknown one is a usage error with the names nearest it. */
function checkTaskNames(names: string): void {
  try {
    resolveTaskNames(names);
  } catch (error) {
    if (!(error instanceof UnknownTaskError)) throw usageError((error as Error).message);
    const described = error.unknown.map(
      ({ name, suggestions }) => `unknown task ${JSON.stringify(name)}${suggestions.length > 0 ? `; ${didYouMean(suggestions)}` : ''}`,
    );
    throw usageError(`${described.join('\n')}\n'mlrb-eval --tasks list' lists every task, group and tag`);
  }
}

export function parseEvalArgs(argv: readonly string[]): ParsedEvalArgs {
  const args = normalizeFlagSpelling(argv);
  const line = parseCommandLine(args, tableSpec('eval', EVAL_FLAGS, args));
  if (line.help) return line;
  const values = line.options;
  if (values.suite !== undefined && values.tasks !== undefined) throw usageError('give --suite or --tasks, not both (they take the same names)');
  const suite = values.tasks ?? values.suite;
  const listing = TASK_LISTINGS.find((name) => name === suite);
  if (listing !== undefined) return { help: false, list: listing };
  const model = onlyModel('eval', line.positionals);
  if (suite === undefined) throw usageError('--tasks (or --suite) is required');
  checkTaskNames(suite);
  const outputs = outputsFromFlags('eval', values);
  if (values.shard !== undefined) checkShardOutputs(values);
  const cacheDir = cacheFolderFlag(values);
  const batch = values['batch-size'];
  const notes = batch?.lmEvalAuto ? [`--batch-size auto:N: treated as auto (batches are sized from the memory budget, so there is nothing to re-tune)`] : [];
  const logSamples = values['log-samples'];
  const options = {
    model,
    suite,
    // Without --data, lm-eval users' data is in the Hugging Face hub cache (suites find their dataset there).
    dataDir: values.data ?? defaultHubCacheDir(),
    tokenizer: values.tokenizer,
    config: values.config,
    numFewshot: values['num-fewshot'],
    limit: values.limit,
    batchSize: batch?.batchSize,
    memoryBudgetBytes: values['memory-budget-mb'] === undefined ? undefined : values['memory-budget-mb'] * 1024 * 1024,
    maxLength: values['max-length'],
    allowPartial: values['allow-partial'] === true ? true : undefined,
    threads: values.threads,
    provider: values.provider,
    ortLibrary: values['ort-library'],
    rewrites: values['no-cpu-fusion'] ? { cpuFusion: false } : undefined,
    logSamples: logSamples !== undefined && logSamples !== false,
    cacheDir,
    scoreCacheMaxBytes: values['cache-max-mb'] === undefined ? undefined : values['cache-max-mb'] * 1024 * 1024,
    lmEvalVersion: values['lm-eval-version'],
    shard: values.shard,
  };
  // The library schema is strict about keys; dropping the unset ones gives exactly what a library caller passes.
  const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as EvalArgs['options'];
  return {
    help: false,
    options: defined,
    outputs,
    verbose: values.verbose === true,
    quiet: values.quiet === true,
    showBreakdowns: values['show-breakdowns'] === true,
    notes,
  };
}

/** A shard writes one shard file and nothing else: tables, samples and lm-eval's layout come from the merge. */
function checkShardOutputs(values: EvalFlagValues): void {
  const refused = (['output-path', 'log-samples', 'show-breakdowns'] as const).filter((flag) => values[flag] !== undefined);
  if (refused.length > 0) throw usageError(`--shard writes a shard file; give ${refused.map((flag) => `--${flag}`).join(', ')} to mlrb-eval merge instead`);
  if (values.output === undefined) throw usageError("--shard needs --output FILE, where the shard's scores go for mlrb-eval merge");
}
