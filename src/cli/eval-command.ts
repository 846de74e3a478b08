/**
 * `mlrb-eval MODEL --tasks NAME …`: flags → evaluate() options (validated by the same zod schema the
 * library uses), progress to stderr, the table to stdout, JSON and samples to files.
 */
import { z } from 'zod';
import type { EvaluateOptions } from '../run/evaluate-options.js';
import { evaluate } from '../run/evaluate.js';
import { printUsage } from './command-line.js';
import { parseEvalArgs } from './eval-args.js';
import { commandStatus } from './progress.js';
import { describeTaskNames } from '../tasks/task-names.js';
import { planResultFiles, printResultTables, writeResultFiles } from './result-files.js';
import { runShardEval } from './shard-eval.js';
import { scoreCacheNote } from './score-cache-note.js';
import { renderTaskList } from './task-list.js';
import type { CliIo } from './exit-error.js';
import type { LmEvalResults } from '../eval/result-types.js';

/** Where a flag's help text starts, and the width usage text wraps at. */
const HELP_COLUMN = 24;
const USAGE_WIDTH = 100;

/** The --tasks help, listing the registry's names (so a new suite shows up without an edit here). */
function tasksHelp(): string {
  const names = describeTaskNames();
  const text =
    `comma-separated task, group and tag names. lm-eval's: ${names.lmEval.join(', ')}; ` +
    `BabyLM 2024's: ${names.babyLm.join(', ')}; ours: ${names.ours.join(', ')} (--suite is the same flag; --tasks list lists every name)`;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && HELP_COLUMN + line.length + 1 + word.length > USAGE_WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(HELP_COLUMN)}`);
}

export const EVAL_USAGE = `usage: mlrb-eval MODEL --tasks NAME[,…] [--data DIR] [options]
       mlrb-eval --tasks list|list_groups|list_subtasks|list_tags

  MODEL                 an ONNX causal LM, or its folder (model.onnx, else its only .onnx file)
  --tasks NAMES         ${tasksHelp()}
  --data DIR            the suite's data folder (or a folder with one sub-folder per suite), in the
                        release layout or as a Hugging Face hub download (parquet); default: the
                        hub cache ($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub)
  --tokenizer FILE      tokenizer.json (default: beside the model)
  --config FILE         config.json (default: beside the model)
  --num-fewshot K       few-shot examples per prompt (default: the task's own, 0 but gsm8k's 5)
  --limit N             first N documents of each task; below 1, that fraction of each task
  --batch-size N|auto   rows per forward pass, or auto from a memory budget (default auto;
                        lm-eval's auto:N means auto)
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
  --output FILE         write lm-eval-compatible results JSON to FILE
  --output-path PATH    as lm-eval: PATH/<model>/results_<date>.json (or PATH_<date>.json for
                        a .json PATH); with --log-samples, samples_<task>_<date>.jsonl beside it
  --log-samples FILE    write per-document records as JSON lines (a switch with --output-path)
  --show-breakdowns     also print BLiMP's tables by field and linguistics_term
  --shard I/N           score only shard I of N (counted from 0: I is 0 … N-1) and write the shard
                        file to --output; mlrb-eval merge joins the N files into this run's results
  --use-cache DIR       the caches' folder: tokenized requests and scores (default ~/.cache/mlrb-eval,
                        or $MLRB_CACHE_DIR); scores are stored as each forward pass finishes, so a
                        killed run resumes where it stopped (--cache-dir is the same flag)
  --cache-max-mb N      size cap of the score cache (default 1024); least recently used models go first
  --no-cache            read and write no cache (tokens or scores)
  --lm-eval-version V   whose rules to follow: 0.4.4-0.4.8 (default; MLRB's numbers) or 0.4.13
                        (today's lm-eval: BOS before contexts where the tokenizer adds one, and
                        0.4.13's results layout)
  --verbose             say what loading decided (LM-head slicing, fusion, prefix reuse, cache)
  --quiet               no progress or notes on stderr: the tables, warnings and errors only
  Every flag may also be spelled with underscores (--num_fewshot, --output_path).`;

export async function runEvalCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseEvalArgs(argv);
  if (args.help) return printUsage(io, EVAL_USAGE);
  if (args.list !== undefined) {
    io.stdout.write(renderTaskList(args.list));
    return 0;
  }
  const status = commandStatus(io, { quiet: args.quiet });
  // --verbose is asked for explicitly, so its notes print even with --quiet.
  const log = args.verbose ? (message: string) => io.stderr.write(`${message}\n`) : undefined;
  for (const note of args.notes) log?.(note);
  // Every path is checked before any work: an hour of scoring must not end in an unwritable path.
  const files = planResultFiles(args.outputs, args.options.model, new Date());
  const options: EvaluateOptions = {
    ...args.options,
    ...(args.quiet ? {} : { onProgress: status.scoring }),
    ...(log ? { onLog: log } : {}),
    onWarning: status.warn,
  };
  if (options.shard !== undefined) return runShardEval(options, args.outputs, status);
  const evaluated = await evaluate(options);
  printResultTables(evaluated, args.showBreakdowns, io);
  const info = evaluated.results.mlrb;
  status.note(
    `scored ${info.tokens_scored.toLocaleString('en-US')} tokens in ${info.wall_time_s.toFixed(1)} s ` +
      `(${Math.round(info.tokens_per_s).toLocaleString('en-US')} tok/s) on ${info.provider}${scoreCacheNote(info.score_cache)}${generationNote(info['generation'])}`,
  );
  writeResultFiles(evaluated, files, status.note);
  return 0;
}

const generationFacts = z.object({ requests: z.number(), generated_tokens: z.number(), generation_time_s: z.number() });

/** The generation route's share of the run, when it had generate_until tasks. */
function generationNote(facts: LmEvalResults['mlrb'][string] | undefined): string {
  const parsed = generationFacts.safeParse(facts);
  if (!parsed.success) return '';
  const { requests, generated_tokens: tokens, generation_time_s: seconds } = parsed.data;
  return `; generated ${tokens.toLocaleString('en-US')} tokens for ${requests.toLocaleString('en-US')} prompts in ${seconds.toFixed(1)} s`;
}
