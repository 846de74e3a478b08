/**
 * The eval command's flags → evaluate() options plus where outputs go. Flags are parsed once, by
 * parseCommandLine (both `--num-fewshot` and lm-eval's `--num_fewshot`), with one zod schema for the values.
 */
import { z } from 'zod';
import type { EvaluateOptions } from '../run/evaluate-options.js';
import { PROVIDER_CHOICES } from '../model/execution-provider.js';
import { LM_EVAL_VERSIONS } from '../eval/lm-eval-version.js';
import { defaultHubCacheDir } from '../tasks/hub-cache.js';
import { parseShardSpec } from '../run/shard.js';
import { limitOption, normalizeFlagSpelling, onlyModel } from './command-args.js';
import { parseCommandLine, type FlagConfig } from './command-line.js';
import { UsageError } from './exit-error.js';
import { resolveTaskNames, UnknownTaskError } from '../tasks/task-names.js';
import { didYouMean } from '../text/closest-names.js';
import { TASK_LISTINGS, type TaskListing } from './task-list.js';
import { outputsFromFlags, resultFlags, resultFlagsShape, type EvalOutputs } from './result-flags.js';

const STRING_FLAGS = [
  'suite',
  'tasks',
  'data',
  'tokenizer',
  'config',
  'num-fewshot',
  'limit',
  'batch-size',
  'memory-budget-mb',
  'max-length',
  'threads',
  'provider',
  'ort-library',
  'cache-dir',
  'use-cache',
  'cache-max-mb',
  'lm-eval-version',
  'shard',
] as const;
const BOOLEAN_FLAGS = ['allow-partial', 'no-cpu-fusion', 'no-cache', 'verbose', 'quiet'] as const;

/** The flags' syntax; --log-samples is a switch or takes a file depending on the line (src/cli/result-flags.ts). */
function evalFlags(args: readonly string[]): FlagConfig {
  return {
    ...Object.fromEntries(STRING_FLAGS.map((flag) => [flag, { type: 'string' as const }])),
    ...Object.fromEntries(BOOLEAN_FLAGS.map((flag) => [flag, { type: 'boolean' as const }])),
    ...resultFlags(args),
  };
}

/** Usage errors name the command that `mlrb-eval MODEL …` runs. */
const usageError = (problem: string): UsageError => new UsageError('eval', problem);

export const wholeNumber = (flag: string) =>
  z
    .string()
    .regex(/^\d+$/, { error: (issue) => `--${flag} expects a whole number, got ${JSON.stringify(issue.input)}` })
    .transform(Number);

/** lm-eval's `auto:N` re-tunes the batch size N times; our auto planner sizes every batch, so it means auto. */
const batchSizeFlag = z.union(
  [
    z.literal('auto').transform(() => ({ batchSize: 'auto' as const, lmEvalAuto: false })),
    z
      .string()
      .regex(/^auto:\d+$/)
      .transform(() => ({ batchSize: 'auto' as const, lmEvalAuto: true })),
    wholeNumber('batch-size').transform((batchSize) => ({ batchSize, lmEvalAuto: false })),
  ],
  { error: (issue) => `--batch-size expects N, auto or auto:N, got ${JSON.stringify(issue.input)}` },
);

const shardFlag = z.string().transform((text, context) => {
  try {
    return parseShardSpec(text);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const flagsSchema = z.strictObject({
  suite: z.string().optional(),
  tasks: z.string().optional(),
  data: z.string().optional(),
  tokenizer: z.string().optional(),
  config: z.string().optional(),
  'num-fewshot': wholeNumber('num-fewshot').optional(),
  limit: limitOption.optional(),
  'batch-size': batchSizeFlag.optional(),
  'memory-budget-mb': wholeNumber('memory-budget-mb').optional(),
  'max-length': wholeNumber('max-length').optional(),
  threads: wholeNumber('threads').optional(),
  provider: z.enum(PROVIDER_CHOICES, { error: (issue) => `--provider expects ${PROVIDER_CHOICES.join(', ')}, got ${JSON.stringify(issue.input)}` }).optional(),
  'ort-library': z.string().optional(),
  ...resultFlagsShape,
  'cache-dir': z.string().optional(),
  'lm-eval-version': z
    .enum(LM_EVAL_VERSIONS, { error: (issue) => `--lm-eval-version expects ${LM_EVAL_VERSIONS.join(' or ')}, got ${JSON.stringify(issue.input)}` })
    .optional(),
  'use-cache': z.string().optional(),
  'cache-max-mb': wholeNumber('cache-max-mb').optional(),
  'allow-partial': z.boolean().optional(),
  'no-cpu-fusion': z.boolean().optional(),
  'no-cache': z.boolean().optional(),
  verbose: z.boolean().optional(),
  quiet: z.boolean().optional(),
  shard: shardFlag.optional(),
});

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
function cacheFolderFlag(values: z.output<typeof flagsSchema>): string | false | undefined {
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
  const line = parseCommandLine(args, { command: 'eval', flags: evalFlags(args), schema: flagsSchema });
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
function checkShardOutputs(values: z.output<typeof flagsSchema>): void {
  const refused = (['output-path', 'log-samples', 'show-breakdowns'] as const).filter((flag) => values[flag] !== undefined);
  if (refused.length > 0) throw usageError(`--shard writes a shard file; give ${refused.map((flag) => `--${flag}`).join(', ')} to mlrb-eval merge instead`);
  if (values.output === undefined) throw usageError("--shard needs --output FILE, where the shard's scores go for mlrb-eval merge");
}
