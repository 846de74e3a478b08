/**
 * The eval command's flags → evaluate() options plus where outputs go. Flags are parsed once: node's parseArgs
 * for the syntax (both `--num-fewshot` and lm-eval's `--num_fewshot`), then one zod schema for the values.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { EvaluateOptions } from '../config/evaluate-options.js';
import { PROVIDER_CHOICES } from '../model/execution-provider.js';
import { LM_EVAL_VERSIONS } from '../eval/lm-eval-version.js';
import { defaultHubCacheDir } from '../tasks/hub-cache.js';
import { parseShardSpec } from '../eval/shard.js';
import { normalizeFlagSpelling } from './command-args.js';
import { ExitError } from './exit-error.js';

const STRING_FLAGS = [
  'suite', 'tasks', 'data', 'tokenizer', 'config', 'num-fewshot', 'limit', 'batch-size', 'memory-budget-mb', 'max-length',
  'threads', 'provider', 'ort-library', 'output', 'output-path', 'cache-dir', 'use-cache', 'cache-max-mb', 'lm-eval-version', 'shard',
] as const;
const BOOLEAN_FLAGS = ['allow-partial', 'no-cpu-fusion', 'no-cache', 'verbose', 'quiet', 'show-breakdowns'] as const;

const wholeNumber = (flag: string) =>
  z.string().regex(/^\d+$/, { error: (issue) => `--${flag} expects a whole number, got ${JSON.stringify(issue.input)}` }).transform(Number);

/** lm-eval's `auto:N` re-tunes the batch size N times; our auto planner sizes every batch, so it means auto. */
const batchSizeFlag = z.union([
  z.literal('auto').transform(() => ({ batchSize: 'auto' as const, lmEvalAuto: false })),
  z.string().regex(/^auto:\d+$/).transform(() => ({ batchSize: 'auto' as const, lmEvalAuto: true })),
  wholeNumber('batch-size').transform((batchSize) => ({ batchSize, lmEvalAuto: false })),
], { error: (issue) => `--batch-size expects N, auto or auto:N, got ${JSON.stringify(issue.input)}` });

const limitFlag = z
  .string()
  .regex(/^(\d+(\.\d*)?|\.\d+)$/, { error: (issue) => `--limit expects a count or a fraction below 1, got ${JSON.stringify(issue.input)}` })
  .transform(Number);

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
  limit: limitFlag.optional(),
  'batch-size': batchSizeFlag.optional(),
  'memory-budget-mb': wholeNumber('memory-budget-mb').optional(),
  'max-length': wholeNumber('max-length').optional(),
  threads: wholeNumber('threads').optional(),
  provider: z.enum(PROVIDER_CHOICES, { error: (issue) => `--provider expects ${PROVIDER_CHOICES.join(', ')}, got ${JSON.stringify(issue.input)}` }).optional(),
  'ort-library': z.string().optional(),
  output: z.string().optional(),
  'output-path': z.string().optional(),
  'log-samples': z.union([z.string(), z.boolean()]).optional(),
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
  'show-breakdowns': z.boolean().optional(),
  shard: shardFlag.optional(),
});

export interface EvalOutputs {
  /** --output FILE: the results JSON at exactly that path. */
  readonly output?: string;
  /** --output-path PATH: lm-eval's layout (src/cli/lm-eval-output.ts). */
  readonly outputPath?: string;
  /** --log-samples FILE (without --output-path): every task's records in one JSON-lines file. */
  readonly samplesFile?: string;
  /** --log-samples with --output-path: lm-eval's per-task samples files. */
  readonly samplesBesideResults: boolean;
}

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
function cacheFolderFlag(values: z.output<typeof flagsSchema>, usage: string): string | false | undefined {
  const named = [values['cache-dir'], values['use-cache']].filter((value): value is string => value !== undefined);
  if (values['no-cache'] && named.length > 0) throw new ExitError(2, `give --no-cache or a cache folder (--use-cache / --cache-dir), not both\n\n${usage}`);
  if (named.length === 2 && named[0] !== named[1]) throw new ExitError(2, `--use-cache and --cache-dir name the same folder; give one\n\n${usage}`);
  if (named[0] === '') throw new ExitError(2, `--use-cache expects a folder\n\n${usage}`);
  return values['no-cache'] ? false : named[0];
}

export function parseEvalArgs(argv: readonly string[], usage: string): EvalArgs {
  const args = normalizeFlagSpelling(argv);
  const samplesAreSwitch = logSamplesIsSwitch(args);
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        ...Object.fromEntries(STRING_FLAGS.map((flag) => [flag, { type: 'string' as const }])),
        ...Object.fromEntries(BOOLEAN_FLAGS.map((flag) => [flag, { type: 'boolean' as const }])),
        'log-samples': { type: samplesAreSwitch ? 'boolean' : 'string' },
      },
    });
  } catch (error) {
    throw new ExitError(2, `${(error as Error).message}\n\n${usage}`);
  }
  const flags = flagsSchema.safeParse(parsed.values);
  if (!flags.success) throw new ExitError(2, `${flags.error.issues.map((issue) => issue.message).join('\n')}\n\n${usage}`);
  const values = flags.data;
  const [model, ...extra] = parsed.positionals;
  if (model === undefined || extra.length > 0) throw new ExitError(2, `expected exactly one MODEL path (an .onnx file or its folder)\n\n${usage}`);
  if (values.suite !== undefined && values.tasks !== undefined) throw new ExitError(2, `give --suite or --tasks, not both (they take the same names)\n\n${usage}`);
  const suite = values.tasks ?? values.suite;
  if (suite === undefined) throw new ExitError(2, `--tasks (or --suite) is required\n\n${usage}`);
  if (values.output !== undefined && values['output-path'] !== undefined) throw new ExitError(2, `give --output FILE or --output-path PATH, not both\n\n${usage}`);
  if (values.shard !== undefined) checkShardOutputs(values, usage);
  const cacheDir = cacheFolderFlag(values, usage);
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
    options: defined,
    outputs: outputsFromFlags(values),
    verbose: values.verbose === true,
    quiet: values.quiet === true,
    showBreakdowns: values['show-breakdowns'] === true,
    notes,
  };
}

/** A shard writes one shard file and nothing else: tables, samples and lm-eval's layout come from the merge. */
function checkShardOutputs(values: z.output<typeof flagsSchema>, usage: string): void {
  const refused = (['output-path', 'log-samples', 'show-breakdowns'] as const).filter((flag) => values[flag] !== undefined);
  if (refused.length > 0) throw new ExitError(2, `--shard writes a shard file; give ${refused.map((flag) => `--${flag}`).join(', ')} to mlrb-eval merge instead\n\n${usage}`);
  if (values.output === undefined) throw new ExitError(2, `--shard needs --output FILE, where the shard's scores go for mlrb-eval merge\n\n${usage}`);
}

/** lm-eval's --log_samples is a switch that puts samples beside --output_path; ours alone names a file. */
export function logSamplesIsSwitch(args: readonly string[]): boolean {
  return args.some((arg) => arg === '--output-path' || arg.startsWith('--output-path='));
}

export function outputsFromFlags(values: { readonly output?: string | undefined; readonly 'output-path'?: string | undefined; readonly 'log-samples'?: string | boolean | undefined }): EvalOutputs {
  const logSamples = values['log-samples'];
  return {
    ...(values.output !== undefined ? { output: values.output } : {}),
    ...(values['output-path'] !== undefined ? { outputPath: values['output-path'] } : {}),
    ...(typeof logSamples === 'string' ? { samplesFile: logSamples } : {}),
    samplesBesideResults: logSamples === true,
  };
}
