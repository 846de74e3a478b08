/**
 * `mlrb-eval generate MODEL --prompt TEXT …`: generates for each prompt and prints the texts, or writes them with
 * their ids, finish reasons and timing as JSON (--output). Runtime failures propagate as MlrbError to the CLI's
 * one error boundary; flag mistakes are usage errors (exit 2).
 */
import { z } from 'zod';
import { parseGenerateOptions } from '../generate/generate-options.js';
import { generate, type GenerateResult } from '../generate/generate.js';
import { writeResultOutput } from '../io/result-output.js';
import { PROVIDER_CHOICES } from '../model/execution-provider.js';
import { parseModelCommand } from './command-args.js';
import { printUsage, type FlagConfig } from './command-line.js';
import { UsageError, type CliIo } from './exit-error.js';
import { commandStatus, QUIET_FLAG } from './progress.js';
import { readPromptsFile } from './prompts-file.js';

export const GENERATE_USAGE = `usage: mlrb-eval generate MODEL (--prompt TEXT … | --prompts-file FILE) [options]
  --prompt TEXT          a prompt (repeatable)
  --prompts-file FILE    .txt: one prompt per line; .jsonl: a JSON string or {"prompt": …} per line
  --max-new-tokens N     new tokens per prompt at most (default 64)
  --stop S               stop once the text contains S, cut before it (repeatable)
  --temperature T        sample at temperature T (> 0) instead of greedy decoding
  --top-k K              with --temperature: sample among the K most likely tokens only
  --seed S               with --temperature: the random seed (default 0); same seed, same tokens
  --batch-size N         prompts decoded together (default 8)
  --add-special-tokens   encode prompts with the tokenizer's special tokens (a Llama template's BOS)
  --output FILE          write the generations as JSON (ids, text, finish reason, timing)
  --provider P           ${PROVIDER_CHOICES.join(', ')} (default cpu)
  --threads N            ONNX Runtime intra-op threads per forward pass
  --no-cpu-fusion        run attention as exported (same tokens, slower)
  --tokenizer FILE       tokenizer.json (default: beside the model)
  --ort-library PATH     ONNX Runtime shared library to use
  --quiet                no progress on stderr: the generations, warnings and errors only
`;

const FLAGS: FlagConfig = {
  prompt: { type: 'string', multiple: true },
  'prompts-file': { type: 'string' },
  'max-new-tokens': { type: 'string' },
  stop: { type: 'string', multiple: true },
  temperature: { type: 'string' },
  'top-k': { type: 'string' },
  seed: { type: 'string' },
  'batch-size': { type: 'string' },
  'add-special-tokens': { type: 'boolean' },
  output: { type: 'string' },
  provider: { type: 'string' },
  threads: { type: 'string' },
  'no-cpu-fusion': { type: 'boolean' },
  tokenizer: { type: 'string' },
  'ort-library': { type: 'string' },
  ...QUIET_FLAG,
};

const flagsSchema = z
  .object({
    prompt: z.array(z.string()).default([]),
    'prompts-file': z.string().min(1).optional(),
    'max-new-tokens': z.coerce.number().int().positive().default(64),
    stop: z.array(z.string()).default([]),
    temperature: z.coerce.number().positive().finite().optional(),
    'top-k': z.coerce.number().int().nonnegative().optional(),
    seed: z.coerce.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
    'batch-size': z.coerce.number().int().positive().default(8),
    'add-special-tokens': z.boolean().default(false),
    output: z.string().min(1).optional(),
    provider: z.enum(PROVIDER_CHOICES).default('cpu'),
    threads: z.coerce.number().int().nonnegative().optional(),
    'no-cpu-fusion': z.boolean().default(false),
    tokenizer: z.string().min(1).optional(),
    'ort-library': z.string().min(1).optional(),
    quiet: z.boolean().default(false),
  })
  .refine((flags) => flags.temperature !== undefined || (flags['top-k'] === undefined && flags.seed === undefined), {
    message: '--top-k and --seed only apply to sampling: give --temperature too',
  })
  .refine((flags) => flags.prompt.length > 0 || flags['prompts-file'] !== undefined, { message: 'give --prompt TEXT or --prompts-file FILE' });

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
  const parsed = parseModelCommand(argv, { command: 'generate', schema: flagsSchema, flags: FLAGS });
  if (parsed.help) return printUsage(io, GENERATE_USAGE);
  const o = parsed.options;
  const prompts = [...o.prompt, ...(o['prompts-file'] !== undefined ? readPromptsFile(o['prompts-file']) : [])];
  const sampling = o.temperature !== undefined ? { temperature: o.temperature, topK: o['top-k'] ?? 0, seed: o.seed ?? 0 } : undefined;
  const status = commandStatus(io, { quiet: o.quiet });
  let options;
  try {
    options = parseGenerateOptions({
      model: parsed.model,
      prompts,
      maxNewTokens: o['max-new-tokens'],
      stopStrings: o.stop,
      ...(sampling !== undefined ? { sampling } : {}),
      batchSize: o['batch-size'],
      addSpecialTokens: o['add-special-tokens'],
      provider: o.provider,
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
