/**
 * `mlrb-eval MODEL --tasks NAME …`: flags → evaluate() options (validated by the same zod schema the
 * library uses), progress to stderr, the table to stdout, JSON and samples to files.
 */
import { z } from 'zod';
import type { EvaluateOptions } from '../run/evaluate-options.js';
import { evaluate } from '../run/evaluate.js';
import { printUsage } from './command-line.js';
import { EVAL_FLAGS, parseEvalArgs } from './eval-args.js';
import { commandUsage } from './flag-table.js';
import { commandStatus } from './progress.js';
import { planResultFiles, printResultTables, writeResultFiles } from './result-files.js';
import { runShardEval } from './shard-eval.js';
import { scoreCacheNote } from './score-cache-note.js';
import { renderTaskList } from './task-list.js';
import type { CliIo } from './exit-error.js';
import type { LmEvalResults } from '../eval/result-types.js';

export const EVAL_USAGE = commandUsage({
  synopsis: `usage: mlrb-eval MODEL --tasks NAME[,…] [--data DIR] [options]
       mlrb-eval --tasks list|list_groups|list_subtasks|list_tags`,
  operands: [['MODEL', 'an ONNX causal LM, or its folder (model.onnx, else its only .onnx file)']],
  flags: EVAL_FLAGS,
  notes: ['Every flag may also be spelled with underscores (--num_fewshot, --output_path).'],
});

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
