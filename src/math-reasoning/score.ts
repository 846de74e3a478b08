/**
 * scoreMathReasoning: MLRB's autoformalization task end to end. Each problem's prompt (the template over its
 * informal statement and proof) is encoded, truncated and generated from; the outputs are scored against the
 * formal_proof references with ROUGE-L (mean F over problems: MLRB's rouge_l, with its Porter stemmer unless
 * turned off) and corpus BLEU (sacrebleu's defaults), and, when a Lean executable is given, compiled one by one.
 *
 * MLRB facts this follows (ML-Research-Agent-Evals agent_eval/benchmarks/bleu.py): prompts are encoded with
 * the tokenizer's special tokens and truncated to their first 512 tokens; 200 new tokens. MLRB samples
 * (temperature 0.7, top-k 50); the default here is greedy, so a score can be reproduced.
 */
import { z } from 'zod';
import { MlrbError } from '../errors.js';
import type { Generation, GenerationProgress, GenerationSettings, TextGenerator } from '../generate/types.js';
import { corpusBleu } from './bleu.js';
import type { PromptEncoder } from './generator-source.js';
import type { LeanSandbox } from './lean-box.js';
import { checkLeanExecutable, LeanWorkspace, type LeanOutcome } from './lean-check.js';
import { DEFAULT_PROMPT_TEMPLATE, parsePromptTemplate } from './prompt-template.js';
import { readMathProblems, type MathProblem } from './problems.js';
import { rougeL } from './rouge-l.js';
import { DEFAULT_LEAN_TIMEOUT_S, DEFAULT_MAX_NEW_TOKENS, DEFAULT_MAX_PROMPT_TOKENS } from './defaults.js';

const isGenerator = (value: unknown): value is TextGenerator => typeof (value as { generate?: unknown } | null)?.generate === 'function';
const isEncoder = (value: unknown): value is PromptEncoder =>
  typeof (value as { encodeWithSpecialTokens?: unknown } | null)?.encodeWithSpecialTokens === 'function';

export const mathReasoningOptionsSchema = z.strictObject({
  /** JSON Lines with name, informal_statement, informal_proof, formal_proof. */
  data: z.string().min(1),
  generator: z.custom<TextGenerator>(isGenerator, { error: 'generator must be a TextGenerator (an object with generate())' }),
  encoder: z.custom<PromptEncoder>(isEncoder, { error: 'encoder must have encodeWithSpecialTokens(text)' }),
  /** The prompt template's text (placeholders {informal_statement}, {informal_proof}, {name}). */
  template: z.string().min(1).default(DEFAULT_PROMPT_TEMPLATE),
  maxNewTokens: z.number().int().positive().default(DEFAULT_MAX_NEW_TOKENS),
  /** Prompts keep their first N tokens, as Hugging Face's truncation=True, max_length=N does. */
  maxPromptTokens: z.number().int().positive().default(DEFAULT_MAX_PROMPT_TOKENS),
  /** The first N problems only; a fraction below 1 takes that share, rounded up (lm-eval's --limit rule). */
  limit: z
    .number()
    .positive()
    .refine((value) => value < 1 || Number.isInteger(value), 'limit is a whole count, or a fraction below 1')
    .optional(),
  stopStrings: z.array(z.string()).default([]),
  /** ROUGE-L stems tokens with NLTK's Porter stemmer, as MLRB's evaluate rouge (use_stemmer=True) does. */
  rougeStemmer: z.boolean().default(true),
  lean: z
    .strictObject({
      executable: z.string().min(1),
      timeoutS: z
        .number()
        .positive()
        .max(24 * 3600)
        .default(DEFAULT_LEAN_TIMEOUT_S),
      /** The Lean project's root (default: the current folder). */
      cwd: z.string().min(1).optional(),
    })
    .optional(),
  onProgress: z.custom<(progress: GenerationProgress) => void>((value) => typeof value === 'function').optional(),
  /** Called as each output's Lean compile finishes (one at a time; each may take up to the Lean timeout). */
  onCompileProgress: z.custom<(compiled: number, total: number) => void>((value) => typeof value === 'function').optional(),
});
export type MathReasoningOptions = z.input<typeof mathReasoningOptionsSchema>;

export interface ProblemScore {
  readonly line: number;
  readonly name: string;
  readonly prompt_tokens: number;
  /** The prompt was longer than max_prompt_tokens and lost its end. */
  readonly prompt_truncated: boolean;
  readonly generated_tokens: number;
  readonly finish_reason: Generation['finishReason'];
  readonly output: string;
  /** ROUGE-L F-measure against formal_proof, 0–1. */
  readonly rouge_l: number;
  readonly lean: LeanOutcome | null;
}

export interface MathReasoningReport {
  readonly data_file: string;
  readonly problems_scored: number;
  readonly problems_in_file: number;
  readonly settings: {
    readonly template: string;
    readonly decoding: 'greedy';
    readonly max_new_tokens: number;
    readonly max_prompt_tokens: number;
    readonly stop_strings: readonly string[];
    readonly lean_timeout_s: number | null;
    /** The box the compiles ran in (lean-box.ts says what each one holds back); null when no Lean executable was given. */
    readonly lean_sandbox: LeanSandbox | null;
    /** ROUGE-L's tokens went through NLTK's Porter stemmer (rouge_score's use_stemmer), as in MLRB. */
    readonly rouge_stemmer: boolean;
  };
  readonly metrics: {
    /** Mean ROUGE-L F-measure over problems, 0–1. */
    readonly rouge_l: number;
    /** sacrebleu corpus BLEU, 0–100. */
    readonly bleu: number;
    /** null when no Lean executable was given. */
    readonly lean: { readonly compiled: number; readonly failed: number; readonly timed_out: number; readonly compile_rate: number } | null;
  };
  readonly problems: readonly ProblemScore[];
}

export async function scoreMathReasoning(options: MathReasoningOptions): Promise<MathReasoningReport> {
  const o = mathReasoningOptionsSchema.parse(options);
  const template = parsePromptTemplate(o.template);
  const all = readMathProblems(o.data);
  const problems = all.slice(0, problemCount(all.length, o.limit));
  if (o.lean !== undefined) checkLeanExecutable(o.lean.executable);

  const prompts = problems.map((problem) => o.encoder.encodeWithSpecialTokens(template.render(problem)));
  const settings: GenerationSettings = { maxNewTokens: o.maxNewTokens, stopStrings: o.stopStrings };
  const generations = await o.generator.generate(
    prompts.map((ids) => ids.slice(0, o.maxPromptTokens)),
    settings,
    o.onProgress,
  );
  if (generations.length !== problems.length) {
    // The engine broke the TextGenerator contract: not the user's doing, so not a usage error.
    throw new MlrbError('INTERNAL', `the generator returned ${generations.length} generations for ${problems.length} prompts`);
  }
  const outputs = generations.map((generation) => generation.text);
  const compiled =
    o.lean === undefined
      ? null
      : await compileAll(outputs, { executable: o.lean.executable, timeoutMs: o.lean.timeoutS * 1000, cwd: o.lean.cwd ?? process.cwd() }, o.onCompileProgress);
  const leanOutcomes = compiled?.outcomes ?? null;

  const scores = problems.map(
    (problem, index): ProblemScore => problemScore(problem, prompts[index]?.length ?? 0, o, generations[index]!, leanOutcomes?.[index] ?? null),
  );
  return {
    data_file: o.data,
    problems_scored: problems.length,
    problems_in_file: all.length,
    settings: {
      template: template.source,
      decoding: 'greedy',
      max_new_tokens: o.maxNewTokens,
      max_prompt_tokens: o.maxPromptTokens,
      stop_strings: o.stopStrings,
      lean_timeout_s: o.lean?.timeoutS ?? null,
      lean_sandbox: compiled?.sandbox ?? null,
      rouge_stemmer: o.rougeStemmer,
    },
    metrics: {
      rouge_l: scores.reduce((sum, score) => sum + score.rouge_l, 0) / scores.length,
      bleu: corpusBleu(
        outputs,
        problems.map((problem) => problem.formal_proof),
      ).score,
      lean: leanOutcomes === null ? null : leanSummary(leanOutcomes),
    },
    problems: scores,
  };
}

/** How many of the file's problems --limit keeps: a count, or a fraction below 1 rounded up (as lm-eval). */
function problemCount(inFile: number, limit: number | undefined): number {
  if (limit === undefined) return inFile;
  return Math.min(inFile, limit < 1 ? Math.ceil(limit * inFile) : limit);
}

type ScoringSettings = Pick<z.output<typeof mathReasoningOptionsSchema>, 'maxPromptTokens' | 'rougeStemmer'>;

function problemScore(
  problem: MathProblem,
  promptTokens: number,
  { maxPromptTokens, rougeStemmer }: ScoringSettings,
  generation: Generation,
  lean: LeanOutcome | null,
): ProblemScore {
  return {
    line: problem.line,
    name: problem.name,
    prompt_tokens: Math.min(promptTokens, maxPromptTokens),
    prompt_truncated: promptTokens > maxPromptTokens,
    generated_tokens: generation.tokenIds.length,
    finish_reason: generation.finishReason,
    output: generation.text,
    rouge_l: rougeL(generation.text, problem.formal_proof, { stemmer: rougeStemmer }).fmeasure,
    lean,
  };
}

/** One file at a time: Lean with mathlib takes gigabytes, and parallel runs would only fight for them. */
async function compileAll(
  outputs: readonly string[],
  options: ConstructorParameters<typeof LeanWorkspace>[0],
  onCompiled: ((compiled: number, total: number) => void) | undefined,
): Promise<{ outcomes: LeanOutcome[]; sandbox: LeanSandbox }> {
  const workspace = new LeanWorkspace(options);
  try {
    const outcomes: LeanOutcome[] = [];
    for (const [index, output] of outputs.entries()) {
      outcomes.push(await workspace.check(index, output));
      onCompiled?.(index + 1, outputs.length);
    }
    return { outcomes, sandbox: workspace.sandbox };
  } finally {
    workspace.close();
  }
}

function leanSummary(outcomes: readonly LeanOutcome[]): NonNullable<MathReasoningReport['metrics']['lean']> {
  const count = (status: LeanOutcome['status']): number => outcomes.filter((outcome) => outcome.status === status).length;
  const compiled = count('compiled');
  return { compiled, failed: count('failed'), timed_out: count('timed_out'), compile_rate: compiled / outcomes.length };
}
