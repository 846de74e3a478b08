/**
 * `mlrb-eval math-reasoning MODEL --data FILE.jsonl`: MLRB's autoformalization task on one model. Generates a
 * Lean 3 statement and proof per problem, scores ROUGE-L and BLEU against the references and, with --lean,
 * compiles each output. The report (JSON) goes to --output (atomically) or stdout; a summary to stderr.
 * The generator comes from an OpenTextGenerator, so the engine plugs in at one place (main.ts passes the
 * built-in one) and tests pass a fake.
 */
import path from 'node:path';
import { z } from 'zod';
import { summarizeMathReasoning } from '../math-reasoning/format.js';
import { openBuiltInGenerator, type OpenTextGenerator } from '../math-reasoning/generator-source.js';
import { checkLeanExecutable } from '../math-reasoning/lean-check.js';
import { readMathProblems } from '../math-reasoning/problems.js';
import { parsePromptTemplate } from '../math-reasoning/prompt-template.js';
import { DEFAULT_LEAN_TIMEOUT_S, DEFAULT_MAX_NEW_TOKENS, DEFAULT_MAX_PROMPT_TOKENS, scoreMathReasoning } from '../math-reasoning/score.js';
import { readPromptTemplateFile } from '../math-reasoning/template-file.js';
import { PROVIDER_CHOICES } from '../model/execution-provider.js';
import { normalizeFlagSpelling, parseModelCommand } from './command-args.js';
import { printUsage } from './command-line.js';
import { UsageError, type CliIo } from './exit-error.js';
import { emitJsonReport } from './json-report.js';
import { commandStatus, QUIET_FLAG } from './progress.js';

export const MATH_REASONING_USAGE = `usage: mlrb-eval math-reasoning MODEL --data FILE.jsonl [options]
  MODEL                   an ONNX causal LM, or its folder
  --data FILE             JSON Lines with name, informal_statement, informal_proof, formal_proof
                          (MLRB's autoformalization set); formal_proof is the reference
  --template FILE         prompt template: {informal_statement}, {informal_proof}, {name}; {{ and }} for braces
  --max-new-tokens N      tokens generated per problem at most (default ${DEFAULT_MAX_NEW_TOKENS}); greedy decoding
  --max-prompt-tokens N   prompts keep their first N tokens (default ${DEFAULT_MAX_PROMPT_TOKENS})
  --limit N               the first N problems only
  --lean PATH             the lean or lake executable: compile each output (run in the current folder)
  --lean-timeout S        seconds per compile (default ${DEFAULT_LEAN_TIMEOUT_S})
  --no-rouge-stemmer      ROUGE-L without MLRB's Porter stemmer (rouge_score's use_stemmer=False)
  --output FILE           write the report (JSON) there, atomically; default: print it to stdout
  --tokenizer FILE        tokenizer.json, when it is not beside the model
  --provider P            cpu (default), cuda, or auto
  --threads N             ONNX Runtime threads
  --ort-library FILE      another ONNX Runtime shared library
  --quiet                 no progress or notes on stderr: the report, warnings and errors only
`;

const FLAGS = {
  data: { type: 'string' },
  template: { type: 'string' },
  'max-new-tokens': { type: 'string' },
  'max-prompt-tokens': { type: 'string' },
  limit: { type: 'string' },
  lean: { type: 'string' },
  'lean-timeout': { type: 'string' },
  'no-rouge-stemmer': { type: 'boolean' },
  output: { type: 'string' },
  tokenizer: { type: 'string' },
  provider: { type: 'string' },
  threads: { type: 'string' },
  'ort-library': { type: 'string' },
  ...QUIET_FLAG,
} as const;

const count = z
  .string()
  .regex(/^[1-9]\d*$/, { error: (issue) => `expected a whole number ≥ 1, got ${JSON.stringify(issue.input)}` })
  .transform(Number);
const seconds = z
  .string()
  .regex(/^(\d+(\.\d*)?|\.\d+)$/, { error: (issue) => `expected seconds, got ${JSON.stringify(issue.input)}` })
  .transform(Number)
  .refine((value) => value > 0, 'expected seconds > 0');

const optionsSchema = z.strictObject({
  data: z.string({ error: '--data FILE.jsonl is required' }).min(1),
  template: z.string().min(1).optional(),
  'max-new-tokens': count.optional(),
  'max-prompt-tokens': count.optional(),
  limit: count.optional(),
  lean: z.string().min(1).optional(),
  'lean-timeout': seconds.optional(),
  'no-rouge-stemmer': z.boolean().optional(),
  output: z.string().min(1).optional(),
  tokenizer: z.string().min(1).optional(),
  provider: z.enum(PROVIDER_CHOICES).optional(),
  threads: count.optional(),
  'ort-library': z.string().min(1).optional(),
  quiet: z.boolean().optional(),
});

export async function runMathReasoningCommand(argv: readonly string[], io: CliIo, openGenerator: OpenTextGenerator = openBuiltInGenerator): Promise<number> {
  const parsed = parseModelCommand(normalizeFlagSpelling(argv), { command: 'math-reasoning', schema: optionsSchema, flags: FLAGS });
  if (parsed.help) return printUsage(io, MATH_REASONING_USAGE);
  const o = parsed.options;
  if (o['lean-timeout'] !== undefined && o.lean === undefined) throw new UsageError('math-reasoning', '--lean-timeout needs --lean PATH');
  // Everything the user named is read before the model is opened: a typo or a bad row costs nothing.
  readMathProblems(o.data);
  const template = o.template === undefined ? undefined : readPromptTemplateFile(o.template);
  if (template !== undefined) parsePromptTemplate(template);
  const lean = o.lean === undefined ? undefined : path.resolve(o.lean);
  if (lean !== undefined) checkLeanExecutable(lean);

  const status = commandStatus(io, { quiet: o.quiet === true });
  const session = await openGenerator(parsed.model, {
    ...(o.tokenizer !== undefined ? { tokenizer: o.tokenizer } : {}),
    ...(o.provider !== undefined ? { provider: o.provider } : {}),
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
    ...(o['ort-library'] !== undefined ? { ortLibrary: o['ort-library'] } : {}),
  });
  let report;
  try {
    report = await scoreMathReasoning({
      data: o.data,
      generator: session.generator,
      encoder: session.encoder,
      ...(template !== undefined ? { template } : {}),
      ...(o['max-new-tokens'] !== undefined ? { maxNewTokens: o['max-new-tokens'] } : {}),
      ...(o['max-prompt-tokens'] !== undefined ? { maxPromptTokens: o['max-prompt-tokens'] } : {}),
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      ...(o['no-rouge-stemmer'] === true ? { rougeStemmer: false } : {}),
      ...(lean !== undefined ? { lean: { executable: lean, ...(o['lean-timeout'] !== undefined ? { timeoutS: o['lean-timeout'] } : {}) } } : {}),
      onProgress: status.generation('generating'),
      onCompileProgress: status.counter('Lean', 'outputs'),
    });
  } finally {
    await session.close();
  }
  status.note(summarizeMathReasoning(report).trimEnd());
  emitJsonReport(io, report, o.output, 'report', status.note);
  return 0;
}
