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
import { scoreMathReasoning } from '../math-reasoning/score.js';
import { readPromptTemplateFile } from '../math-reasoning/template-file.js';
import { normalizeFlagSpelling, parseModelCommand } from './command-args.js';
import { printUsage } from './command-line.js';
import {
  LEAN,
  LEAN_TIMEOUT,
  MAX_NEW_TOKENS,
  MAX_PROMPT_TOKENS,
  NO_ROUGE_STEMMER,
  ORT_LIBRARY,
  OUTPUT_FILE,
  positiveCount,
  PROVIDER,
  QUIET,
  TEMPLATE,
  THREADS,
  TOKENIZER,
} from './common-flags.js';
import { commandUsage, flag, tableSpec, withHelp } from './flag-table.js';
import { UsageError, type CliIo } from './exit-error.js';
import { emitJsonReport } from './json-report.js';
import { commandStatus } from './progress.js';

const MATH_REASONING_FLAGS = [
  flag({
    name: 'data',
    kind: 'string',
    value: z.string({ error: '--data FILE.jsonl is required' }).min(1),
    placeholder: 'FILE',
    help: "JSON Lines with name, informal_statement, informal_proof, formal_proof (MLRB's autoformalization set); formal_proof is the reference",
  }),
  TEMPLATE,
  MAX_NEW_TOKENS,
  MAX_PROMPT_TOKENS,
  flag({ name: 'limit', kind: 'string', value: positiveCount.optional(), placeholder: 'N', help: 'the first N problems only' }),
  LEAN,
  LEAN_TIMEOUT,
  NO_ROUGE_STEMMER,
  OUTPUT_FILE,
  withHelp(TOKENIZER, 'tokenizer.json, when it is not beside the model'),
  PROVIDER,
  THREADS,
  ORT_LIBRARY,
  withHelp(QUIET, 'no progress or notes on stderr: the report, warnings and errors only'),
] as const;

export const MATH_REASONING_USAGE = commandUsage({
  synopsis: 'usage: mlrb-eval math-reasoning MODEL --data FILE.jsonl [options]',
  operands: [['MODEL', 'an ONNX causal LM, or its folder']],
  flags: MATH_REASONING_FLAGS,
});

export async function runMathReasoningCommand(argv: readonly string[], io: CliIo, openGenerator: OpenTextGenerator = openBuiltInGenerator): Promise<number> {
  const args = normalizeFlagSpelling(argv);
  const parsed = parseModelCommand(args, tableSpec('math-reasoning', MATH_REASONING_FLAGS, args));
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
