/**
 * `mlrb-eval generate MODEL --prompt TEXT …`: generates for each prompt and prints the texts, or writes them with
 * their ids, finish reasons and timing as JSON (--output). Runtime failures propagate as MlrbError to the CLI's
 * one error boundary; flag mistakes are usage errors (exit 2).
 */
import { z } from 'zod';
import { parseGenerateOptions } from '../generate/generate-options.js';
import { generate, type GenerateResult } from '../generate/generate.js';
import { writeResultOutput } from '../io/result-output.js';
import { parseModelCommand } from './command-args.js';
import { printUsage } from './command-line.js';
import {
  MAX_NEW_TOKENS,
  NO_CPU_FUSION,
  ORT_LIBRARY,
  OUTPUT_FILE,
  positiveCount,
  PROVIDER,
  QUIET,
  SEED,
  THREADS,
  TOKENIZER,
  wholeNumber,
} from './common-flags.js';
import { UsageError, type CliIo } from './exit-error.js';
import { commandUsage, flag, tableSpec, withHelp, type FlagValues, switchFlag } from './flag-table.js';
import { commandStatus } from './progress.js';
import { readPromptsFile } from './prompts-file.js';

const number = (name: string, check: (value: number) => boolean, expected: string) =>
  z
    .string()
    .regex(/^(\d+(\.\d*)?|\.\d+)$/, { error: (issue) => `--${name} expects ${expected}, got ${JSON.stringify(issue.input)}` })
    .transform(Number)
    .refine(check, `--${name} expects ${expected}`);

const GENERATE_FLAGS = [
  flag({ name: 'prompt', kind: 'repeatable', value: z.array(z.string()).default([]), placeholder: 'TEXT', help: 'a prompt' }),
  flag({
    name: 'prompts-file',
    kind: 'string',
    value: z.string().min(1).optional(),
    placeholder: 'FILE',
    help: '.txt: one prompt per line; .jsonl: a JSON string or {"prompt": …} per line',
  }),
  withHelp(MAX_NEW_TOKENS, 'new tokens per prompt at most (default 64)'),
  flag({
    name: 'stop',
    kind: 'repeatable',
    value: z.array(z.string()).default([]),
    placeholder: 'S',
    help: 'stop once the text contains S, cut before it',
  }),
  flag({
    name: 'temperature',
    kind: 'string',
    value: number('temperature', (value) => value > 0 && Number.isFinite(value), 'a number above 0').optional(),
    placeholder: 'T',
    help: 'sample at temperature T (> 0) instead of greedy decoding',
  }),
  flag({
    name: 'top-k',
    kind: 'string',
    value: wholeNumber('top-k').optional(),
    placeholder: 'K',
    help: 'with --temperature: sample among the K most likely tokens only',
  }),
  withHelp(SEED, 'with --temperature: the random seed (default 0); same seed, same tokens'),
  flag({ name: 'batch-size', kind: 'string', value: positiveCount.optional(), placeholder: 'N', help: 'prompts decoded together (default 8)' }),
  switchFlag('add-special-tokens', "encode prompts with the tokenizer's special tokens (a Llama template's BOS)"),
  withHelp(OUTPUT_FILE, 'write the generations as JSON (ids, text, finish reason, timing)'),
  PROVIDER,
  withHelp(THREADS, 'ONNX Runtime intra-op threads per forward pass'),
  withHelp(NO_CPU_FUSION, 'run attention as exported (same tokens, slower)'),
  TOKENIZER,
  ORT_LIBRARY,
  withHelp(QUIET, 'no progress on stderr: the generations, warnings and errors only'),
] as const;

export const GENERATE_USAGE = commandUsage({
  synopsis: 'usage: mlrb-eval generate MODEL (--prompt TEXT … | --prompts-file FILE) [options]',
  flags: GENERATE_FLAGS,
});

/** The flags that only sampling reads; the prompts must come from somewhere. */
function checkFlags(o: FlagValues<typeof GENERATE_FLAGS>): void {
  if (o.temperature === undefined && (o['top-k'] !== undefined || o.seed !== undefined)) {
    throw new UsageError('generate', '--top-k and --seed only apply to sampling: give --temperature too');
  }
  if (o.prompt.length === 0 && o['prompts-file'] === undefined) throw new UsageError('generate', 'give --prompt TEXT or --prompts-file FILE');
}

const FINISH_LABELS = { eos: 'EOS', max_new_tokens: 'max new tokens', stop_string: 'stop string' } as const;

function formatGenerations(prompts: readonly string[], result: GenerateResult): string {
  const tokens = result.generations.reduce((sum, generation) => sum + generation.tokenIds.length, 0);
  const blocks = result.generations.map(
    (generation, index) =>
      `[${index}] ${JSON.stringify(prompts[index])} (${generation.tokenIds.length} tokens, ${FINISH_LABELS[generation.finishReason]})\n${generation.text}\n`,
  );
  const mode = result.usedKvCache ? 'KV cache' : 'full recompute (no KV cache in the graph)';
  return `${blocks.join('\n')}\n${tokens} tokens in ${result.seconds.toFixed(2)} s (${(tokens / result.seconds).toFixed(1)} tokens/s, ${mode})\n`;
}

function generationsJson(model: string, prompts: readonly string[], result: GenerateResult, settings: object): string {
  const tokens = result.generations.reduce((sum, generation) => sum + generation.tokenIds.length, 0);
  return `${JSON.stringify(
    {
      model,
      settings,
      usedKvCache: result.usedKvCache,
      seconds: result.seconds,
      generatedTokens: tokens,
      tokensPerSecond: tokens / result.seconds,
      generations: result.generations.map((generation, index) => ({
        prompt: prompts[index],
        promptTokenCount: generation.promptTokenCount,
        tokenIds: [...generation.tokenIds],
        text: generation.text,
        finishReason: generation.finishReason,
      })),
    },
    null,
    2,
  )}\n`;
}

export async function runGenerateCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseModelCommand(argv, tableSpec('generate', GENERATE_FLAGS, argv));
  if (parsed.help) return printUsage(io, GENERATE_USAGE);
  const o = parsed.options;
  checkFlags(o);
  const prompts = [...o.prompt, ...(o['prompts-file'] !== undefined ? readPromptsFile(o['prompts-file']) : [])];
  const sampling = o.temperature !== undefined ? { temperature: o.temperature, topK: o['top-k'] ?? 0, seed: o.seed ?? 0 } : undefined;
  const status = commandStatus(io, { quiet: o.quiet === true });
  let options;
  try {
    options = parseGenerateOptions({
      model: parsed.model,
      prompts,
      ...(o['max-new-tokens'] !== undefined ? { maxNewTokens: o['max-new-tokens'] } : {}),
      stopStrings: o.stop,
      ...(sampling !== undefined ? { sampling } : {}),
      ...(o['batch-size'] !== undefined ? { batchSize: o['batch-size'] } : {}),
      addSpecialTokens: o['add-special-tokens'] === true,
      ...(o.provider !== undefined ? { provider: o.provider } : {}),
      ...(o.threads !== undefined ? { threads: o.threads } : {}),
      ...(o['no-cpu-fusion'] ? { cpuFusion: false } : {}),
      ...(o.tokenizer !== undefined ? { tokenizer: o.tokenizer } : {}),
      ...(o['ort-library'] !== undefined ? { ortLibrary: o['ort-library'] } : {}),
      onWarning: status.warn,
      ...(o.quiet ? {} : { onProgress: status.generation('generate') }),
    });
  } catch (error) {
    throw new UsageError('generate', (error as Error).message);
  }
  const result = await generate(options);
  io.stdout.write(formatGenerations(prompts, result));
  if (o.output !== undefined) {
    const settings = { maxNewTokens: options.maxNewTokens, stopStrings: options.stopStrings, sampling: options.sampling ?? null, batchSize: options.batchSize };
    writeResultOutput(o.output, generationsJson(parsed.model, prompts, result, settings), '--output');
  }
  return 0;
}
