/**
 * `mlrb-eval MODEL --suite NAME …`: flags → evaluate() options (validated by the same zod schema the
 * library uses), progress to stderr, the table to stdout, JSON and samples to files.
 */
import { statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { EvaluateOptions } from '../config/evaluate-options.js';
import { evaluate } from '../eval/evaluate.js';
import { writeResultOutput } from '../io/result-output.js';
import { PROVIDER_CHOICES, type ProviderChoice } from '../model/execution-provider.js';
import { createProgressReporter } from './progress.js';
import { renderResultsTable } from './table.js';
import { ExitError, type CliIo } from './exit-error.js';

export const EVAL_USAGE = `usage: mlrb-eval MODEL --suite NAME[,…] --data DIR [options]

  --suite NAMES         comma-separated: mmlu, blimp, superglue (or boolq, cb, copa, multirc,
                        record, sglue_rte, wic, wsc), blimp_filtered, blimp_supplement
  --data DIR            the suite's data folder (or a folder with one sub-folder per suite)
  --tokenizer FILE      tokenizer.json (default: beside the model)
  --num-fewshot K       few-shot examples per prompt (default 0)
  --limit N             first N documents of each task
  --batch-size N|auto   rows per forward pass, or auto from a memory budget (default auto)
  --memory-budget-mb M  memory the auto batch size plans for (default 256)
  --max-length N        override the model's max length
  --allow-partial       score a data folder that lacks some subtasks (MMLU subjects, BLiMP
                        paradigms, SuperGLUE tasks); groups are then named <group>_partial
  --threads N           ONNX Runtime threads per forward pass (default 1, one pass per core;
                        0: ORT's default, all cores on one pass at a time)
  --provider P          cpu (default), cuda, or auto (cuda when it loads, else cpu with a warning)
  --ort-library FILE    another ONNX Runtime shared library (also MLRB_ORT_LIBRARY)
  --no-cpu-fusion       run attention as the exported graph's separate nodes instead of the fused
                        CPU kernel (same numbers, slower; for comparison)
  --output FILE         write lm-eval-compatible results JSON
  --log-samples FILE    write per-document records as JSON lines
  --cache-dir DIR       tokenized-request cache (default ~/.cache/mlrb-eval)
  --no-cache            do not read or write the token cache
  --verbose             say what loading decided (LM-head slicing, fusion, prefix reuse, cache)
  --quiet               no progress output`;

function integerFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new ExitError(2, `${flag} expects a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

function providerFlag(value: string | undefined): ProviderChoice | undefined {
  if (value === undefined) return undefined;
  if (!(PROVIDER_CHOICES as readonly string[]).includes(value)) {
    throw new ExitError(2, `--provider expects ${PROVIDER_CHOICES.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as ProviderChoice;
}

function parseEvalArgs(argv: readonly string[], io: CliIo): { options: EvaluateOptions; output?: string; logSamples?: string } {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      suite: { type: 'string' },
      data: { type: 'string' },
      tokenizer: { type: 'string' },
      'num-fewshot': { type: 'string' },
      limit: { type: 'string' },
      'batch-size': { type: 'string' },
      'memory-budget-mb': { type: 'string' },
      'max-length': { type: 'string' },
      'allow-partial': { type: 'boolean' },
      threads: { type: 'string' },
      provider: { type: 'string' },
      'ort-library': { type: 'string' },
      'no-cpu-fusion': { type: 'boolean' },
      output: { type: 'string' },
      'log-samples': { type: 'string' },
      'cache-dir': { type: 'string' },
      'no-cache': { type: 'boolean' },
      verbose: { type: 'boolean' },
      quiet: { type: 'boolean' },
    },
  });
  const [model, ...extra] = positionals;
  if (model === undefined || extra.length > 0) throw new ExitError(2, `expected exactly one MODEL path\n\n${EVAL_USAGE}`);
  if (values.suite === undefined) throw new ExitError(2, `--suite is required\n\n${EVAL_USAGE}`);
  if (values.data === undefined) throw new ExitError(2, `--data is required: the folder with the ${values.suite} data files\n\n${EVAL_USAGE}`);
  const batchFlag = values['batch-size'];
  const memoryMb = integerFlag(values['memory-budget-mb'], '--memory-budget-mb');
  const options: EvaluateOptions = {
    model,
    suite: values.suite,
    dataDir: values.data,
    tokenizer: values.tokenizer,
    numFewshot: integerFlag(values['num-fewshot'], '--num-fewshot'),
    limit: integerFlag(values.limit, '--limit'),
    batchSize: batchFlag === undefined || batchFlag === 'auto' ? 'auto' : integerFlag(batchFlag, '--batch-size'),
    memoryBudgetBytes: memoryMb === undefined ? undefined : memoryMb * 1024 * 1024,
    maxLength: integerFlag(values['max-length'], '--max-length'),
    allowPartial: values['allow-partial'] === true ? true : undefined,
    threads: integerFlag(values.threads, '--threads'),
    provider: providerFlag(values.provider),
    ortLibrary: values['ort-library'],
    cpuFusion: values['no-cpu-fusion'] ? false : undefined,
    logSamples: values['log-samples'] !== undefined,
    onProgress: values.quiet ? undefined : progressFor(io),
    cacheDir: values['no-cache'] ? false : values['cache-dir'],
    onLog: values.verbose ? (message: string) => io.stderr.write(`${message}\n`) : undefined,
    onWarning: (message: string) => io.stderr.write(`warning: ${message}\n`),
  };
  // zod's strictObject rejects keys that are present but undefined for optional fields only when typed so;
  // dropping them keeps the parsed options identical to what a library caller would pass.
  const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as EvaluateOptions;
  return { options: defined, ...(values.output ? { output: values.output } : {}), ...(values['log-samples'] ? { logSamples: values['log-samples'] } : {}) };
}

function progressFor(io: CliIo): NonNullable<EvaluateOptions['onProgress']> {
  const reporters = new Map<string, ReturnType<typeof createProgressReporter>>();
  return (progress) => {
    let reporter = reporters.get(progress.label);
    if (!reporter) {
      reporter = createProgressReporter(progress.label, io.stderr as NodeJS.WriteStream);
      reporters.set(progress.label, reporter);
    }
    reporter(progress);
  };
}

/**
 * An output path that can never be written is a usage mistake, found before an hour of scoring rather than
 * after: the target must not be a folder, and the nearest part of its path that exists must be a folder.
 */
function checkOutputPath(file: string | undefined, flag: string): void {
  if (file === undefined) return;
  const target = path.resolve(file);
  if (statOrNull(target)?.isDirectory()) throw new ExitError(2, `${flag} ${file} is a directory; name a file`);
  for (let ancestor = path.dirname(target); ; ancestor = path.dirname(ancestor)) {
    const stats = statOrNull(ancestor);
    if (stats !== null) {
      if (!stats.isDirectory()) throw new ExitError(2, `${flag} ${file} cannot be created: ${ancestor} is not a directory`);
      return;
    }
    if (path.dirname(ancestor) === ancestor) return;
  }
}

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

export async function runEvalCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { options, output, logSamples } = parseEvalArgs(argv, io);
  checkOutputPath(output, '--output');
  checkOutputPath(logSamples, '--log-samples');
  const { results, samples } = await evaluate(options);
  io.stdout.write(`${renderResultsTable(results)}\n`);
  if (results.groups && Object.keys(results.groups).length > 0) io.stdout.write(`\n${renderResultsTable(results, 'groups')}\n`);
  const info = results.mlrb;
  io.stderr.write(
    `scored ${info.tokens_scored.toLocaleString('en-US')} tokens in ${info.wall_time_s.toFixed(1)} s ` +
      `(${Math.round(info.tokens_per_s).toLocaleString('en-US')} tok/s) on ${info.provider}\n`,
  );
  if (output) {
    writeResultOutput(output, `${JSON.stringify(results, null, 2)}\n`, '--output');
    io.stderr.write(`results written to ${output}\n`);
  }
  if (logSamples && samples) {
    const lines = [...samples].flatMap(([task, records]) => records.map((record) => JSON.stringify({ task, ...record })));
    writeResultOutput(logSamples, `${lines.join('\n')}\n`, '--log-samples');
    io.stderr.write(`samples written to ${logSamples}\n`);
  }
  return 0;
}
