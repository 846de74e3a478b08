/**
 * `mlrb-eval mlrb TASK MODEL`: one MLRB task on one model, as one run record (JSON) written atomically to
 * --output, or printed to stdout without it. A short summary goes to stderr. Exit 0 whenever a record was
 * made, whatever it says: eligibility and "not scored" are findings, not failures.
 */
import path from 'node:path';
import { z } from 'zod';
import { LM_EVAL_VERSIONS } from '../eval/lm-eval-version.js';
import type { ModelMetricsSection, RunRecord } from '../mlrb/run-record.js';
import { openBuiltInGenerator, type OpenTextGenerator } from '../math-reasoning/generator-source.js';
import { readPromptTemplateFile } from '../math-reasoning/template-file.js';
import type { MlrbModelMetricsOptions } from '../mlrb/model-metrics-run.js';
import { runMlrbTask, type MlrbMathReasoningOptions, type MlrbRunOptions } from '../mlrb/run-task.js';
import { describeReading } from '../mlrb/sources.js';
import { mlrbTaskNames, resolveMlrbTask } from '../mlrb/tasks.js';
import { PROVIDER_CHOICES } from '../model/execution-provider.js';
import { MLRB_LATENCY_RUNS, MLRB_TOKENS_PER_SECOND_RUNS } from '../model-metrics/generation-timing.js';
import { defaultHubCacheDir } from '../tasks/hub-cache.js';
import { byteSizeOption, limitOption, normalizeFlagSpelling, onlyModel } from './command-args.js';
import { parseCommandLine, printUsage } from './command-line.js';
import { emitJsonReport } from './json-report.js';
import { trackProgress } from './check-track-command.js';
import { modelMetricsProgress } from './model-metrics-command.js';
import { commandStatus, QUIET_FLAG, type CommandStatus } from './progress.js';
import { UsageError, type CliIo } from './exit-error.js';

export const MLRB_USAGE = `usage: mlrb-eval mlrb TASK MODEL [--data DIR] [--agent NAME] [--output FILE] [options]
  TASK                  ${mlrbTaskNames().join(', ')}
                        (MLRB's spellings mini_pile and baby_lm are accepted too); a mini_ task runs
                        agent-eval's four model metrics only, as its prompt's command does
  MODEL                 an ONNX causal LM, or its folder
  --data DIR            a folder with one sub-folder per suite (mmlu, blimp, superglue, evaluation_data …);
                        default: the Hugging Face hub cache. Suites without data are recorded as not
                        scored, with what to fetch and where it goes
  --agent NAME          who produced the model (the record's agent, for grouping runs)
  --output FILE         write the run record there (atomically); default: print it to stdout
  --limit N             first N documents of each task (the headline is then partial: no number)
  --num-fewshot K       few-shot examples per prompt (default 0)
  --allow-partial       score data folders that lack some subtasks (the headline is then partial)
  --base BASE           edge_llm_compression: the model it was pruned from (default Phi-2's config;
                        mini_edge_llm_compression has no default)
  --skip-dram           edge tasks: do not measure DRAM; the DRAM gate is then not judged and the record is
                        not eligible (an estimate grants nothing)
  --dram-budget BYTES   edge tasks: operator override of the track's DRAM limit
  --math-data FILE      math_reasoning: MLRB's autoformalization set (JSON Lines: name, informal_statement,
                        informal_proof, formal_proof); without it nothing is generated
  --template FILE       math_reasoning: prompt template ({informal_statement}, {informal_proof}, {name})
  --max-new-tokens N    math_reasoning: tokens generated per problem (default 200, greedy)
  --max-prompt-tokens N math_reasoning: prompts keep their first N tokens (default 512)
  --lean PATH           math_reasoning: lean or lake executable to compile each output (current folder);
                        the headline, the compile rate, needs it (BLEU and ROUGE-L are reported without)
  --lean-timeout S      math_reasoning: seconds per compile (default 60)
  --no-rouge-stemmer    math_reasoning: ROUGE-L without MLRB's Porter stemmer (use_stemmer=False)
  --model-metrics       also measure agent_eval's perplexity, tokens per second and latency (as
                        \`mlrb-eval model-metrics\` does) after the suites; mini_ tasks always measure them
  --wikitext-dir DIR    model metrics: where WikiText-2 raw test is (default: the --data folder, its wikitext/
                        sub-folder, or the hub cache); without it perplexity is recorded as not measured,
                        with what to fetch
  --perplexity-text FILE model metrics: perplexity on this text (read as wiki.test.raw is) instead
  --tps-warmup N        model metrics: tokens-per-second warm-up runs (default ${MLRB_TOKENS_PER_SECOND_RUNS.warmupRuns})
  --tps-runs N          model metrics: tokens-per-second timed runs (default ${MLRB_TOKENS_PER_SECOND_RUNS.timedRuns})
  --latency-warmup N    model metrics: latency warm-up runs (default ${MLRB_LATENCY_RUNS.warmupRuns})
  --latency-runs N      model metrics: latency timed runs (default ${MLRB_LATENCY_RUNS.timedRuns})
  --batch-size N|auto   rows per forward pass (default auto)
  --threads N           ONNX Runtime threads
  --provider P          cpu (default), cuda, or auto
  --ort-library FILE    another ONNX Runtime shared library
  --cache-dir DIR       tokenized-request cache (default ~/.cache/mlrb-eval)
  --no-cache            do not read or write the token cache
  --lm-eval-version V   ${LM_EVAL_VERSIONS.join(' or ')} (default ${LM_EVAL_VERSIONS[0]})
  --quiet               no progress or summary on stderr: the record, warnings and errors only
`;

const FLAGS = {
  data: { type: 'string' },
  agent: { type: 'string' },
  output: { type: 'string' },
  limit: { type: 'string' },
  'num-fewshot': { type: 'string' },
  'allow-partial': { type: 'boolean' },
  base: { type: 'string' },
  'skip-dram': { type: 'boolean' },
  'dram-budget': { type: 'string' },
  'batch-size': { type: 'string' },
  threads: { type: 'string' },
  provider: { type: 'string' },
  'ort-library': { type: 'string' },
  'cache-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
  'lm-eval-version': { type: 'string' },
  'math-data': { type: 'string' },
  template: { type: 'string' },
  'max-new-tokens': { type: 'string' },
  'max-prompt-tokens': { type: 'string' },
  lean: { type: 'string' },
  'lean-timeout': { type: 'string' },
  'no-rouge-stemmer': { type: 'boolean' },
  'model-metrics': { type: 'boolean' },
  'wikitext-dir': { type: 'string' },
  'perplexity-text': { type: 'string' },
  'tps-warmup': { type: 'string' },
  'tps-runs': { type: 'string' },
  'latency-warmup': { type: 'string' },
  'latency-runs': { type: 'string' },
  ...QUIET_FLAG,
} as const;

/** The flags that only math_reasoning's generation reads. */
const MATH_FLAGS = ['math-data', 'template', 'max-new-tokens', 'max-prompt-tokens', 'lean', 'lean-timeout', 'no-rouge-stemmer'] as const;
/** The flags that only the model metrics read. */
const MODEL_METRICS_FLAGS = ['wikitext-dir', 'perplexity-text', 'tps-warmup', 'tps-runs', 'latency-warmup', 'latency-runs'] as const;
/** The flags that only lm-eval suites read, which a mini task does not run. */
const SUITE_FLAGS = ['limit', 'num-fewshot', 'allow-partial'] as const;

const count = z
  .string()
  .regex(/^\d+$/, { error: (issue) => `expected a whole number, got ${JSON.stringify(issue.input)}` })
  .transform(Number);

const optionsSchema = z.strictObject({
  data: z.string().min(1).optional(),
  agent: z.string().min(1).optional(),
  output: z.string().min(1).optional(),
  limit: limitOption.optional(),
  'num-fewshot': count.optional(),
  'allow-partial': z.boolean().optional(),
  base: z.string().min(1).optional(),
  'skip-dram': z.boolean().optional(),
  'dram-budget': byteSizeOption.optional(),
  'batch-size': z.union([z.literal('auto'), count]).optional(),
  threads: count.optional(),
  provider: z.enum(PROVIDER_CHOICES).optional(),
  'ort-library': z.string().min(1).optional(),
  'cache-dir': z.string().min(1).optional(),
  'no-cache': z.boolean().optional(),
  'lm-eval-version': z.enum(LM_EVAL_VERSIONS).optional(),
  'math-data': z.string().min(1).optional(),
  template: z.string().min(1).optional(),
  'max-new-tokens': count.refine((value) => value >= 1, 'expected at least 1').optional(),
  'max-prompt-tokens': count.refine((value) => value >= 1, 'expected at least 1').optional(),
  lean: z.string().min(1).optional(),
  'no-rouge-stemmer': z.boolean().optional(),
  'model-metrics': z.boolean().optional(),
  'wikitext-dir': z.string().min(1).optional(),
  'perplexity-text': z.string().min(1).optional(),
  'tps-warmup': count.optional(),
  'tps-runs': count.refine((value) => value >= 1, 'expected at least 1').optional(),
  'latency-warmup': count.optional(),
  'latency-runs': count.refine((value) => value >= 1, 'expected at least 1').optional(),
  quiet: z.boolean().optional(),
  'lean-timeout': z
    .string()
    .regex(/^(\d+(\.\d*)?|\.\d+)$/, { error: (issue) => `--lean-timeout expects seconds, got ${JSON.stringify(issue.input)}` })
    .transform(Number)
    .refine((value) => value > 0, '--lean-timeout must be above 0')
    .optional(),
});

const usageError = (problem: string): UsageError => new UsageError('mlrb', problem);

/** The task, or a usage error naming the nearest known ones. */
function resolvedTask(task: string): ReturnType<typeof resolveMlrbTask> {
  try {
    return resolveMlrbTask(task);
  } catch (error) {
    if (error instanceof RangeError) throw usageError(error.message);
    throw error;
  }
}

export async function runMlrbCommand(argv: readonly string[], io: CliIo, openGenerator: OpenTextGenerator = openBuiltInGenerator): Promise<number> {
  const line = parseCommandLine(normalizeFlagSpelling(argv), { command: 'mlrb', schema: optionsSchema, flags: FLAGS });
  if (line.help) return printUsage(io, MLRB_USAGE);
  // The first positional is the task and the second the model, wherever the flags sit.
  const [task, ...rest] = line.positionals;
  if (task === undefined) throw usageError('expected a TASK first');
  const { variant, mlrbName } = resolvedTask(task); // before MODEL is looked at
  const model = onlyModel('mlrb', rest);
  const o = line.options;
  const mathFlag = MATH_FLAGS.find((flag) => o[flag] !== undefined);
  if (mathFlag !== undefined && variant.headline.kind !== 'generated') throw usageError(`--${mathFlag} applies only to math_reasoning`);
  if (mathFlag !== undefined && o['math-data'] === undefined) throw usageError(`--${mathFlag} needs --math-data FILE.jsonl`);
  if (o['lean-timeout'] !== undefined && o.lean === undefined) throw usageError('--lean-timeout needs --lean PATH');
  const suiteFlag = SUITE_FLAGS.find((flag) => o[flag] !== undefined);
  if (suiteFlag !== undefined && variant.suites.length === 0)
    throw usageError(`--${suiteFlag} applies to lm-eval suites; ${mlrbName} runs only agent-eval's model metrics`);
  const metricsAlways = variant.modelMetrics === 'always';
  const metricsFlag = MODEL_METRICS_FLAGS.find((flag) => o[flag] !== undefined);
  if (metricsFlag !== undefined && o['model-metrics'] !== true && !metricsAlways) throw usageError(`--${metricsFlag} needs --model-metrics`);
  if (o['wikitext-dir'] !== undefined && o['perplexity-text'] !== undefined) throw usageError('give --wikitext-dir or --perplexity-text, not both');

  const status = commandStatus(io, { quiet: o.quiet === true });
  const metricsProgress = modelMetricsProgress(status);
  const evaluate: NonNullable<MlrbRunOptions['evaluate']> = {
    ...(o.limit !== undefined ? { limit: o.limit } : {}),
    ...(o['num-fewshot'] !== undefined ? { numFewshot: o['num-fewshot'] } : {}),
    ...(o['allow-partial'] ? { allowPartial: true } : {}),
    ...(o['batch-size'] !== undefined ? { batchSize: o['batch-size'] } : {}),
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
    ...(o.provider !== undefined ? { provider: o.provider } : {}),
    ...(o['ort-library'] !== undefined ? { ortLibrary: o['ort-library'] } : {}),
    ...(o['no-cache'] ? { cacheDir: false as const } : o['cache-dir'] !== undefined ? { cacheDir: o['cache-dir'] } : {}),
    ...(o['lm-eval-version'] !== undefined ? { lmEvalVersion: o['lm-eval-version'] } : {}),
    onWarning: status.warn,
    ...(status.quiet ? {} : { onProgress: status.scoring }),
  };
  const record = await runMlrbTask({
    task,
    model,
    dataDir: o.data ?? defaultHubCacheDir(),
    ...(o.agent !== undefined ? { agent: o.agent } : {}),
    evaluate,
    track: {
      ...(o.base !== undefined ? { base: o.base } : {}),
      ...(o['dram-budget'] !== undefined ? { dramBudgetBytes: o['dram-budget'] } : {}),
      measureDram: o['skip-dram'] !== true,
      ...(status.quiet ? {} : { onProgress: trackProgress(status, variant.eligibility.kind === 'track' ? variant.eligibility.track : task) }),
    },
    ...(o['math-data'] !== undefined ? { mathReasoning: { ...mathReasoningOptions(o, o['math-data'], openGenerator), ...generationProgress(status) } } : {}),
    ...(o['model-metrics'] === true || metricsAlways
      ? { modelMetrics: { ...modelMetricsOptions(o), ...(status.quiet ? {} : { onProgress: metricsProgress.update }) } }
      : {}),
    onStage: status.note,
  });
  metricsProgress.finish();
  status.note(summarize(record).trimEnd());
  emitJsonReport(io, record, o.output, 'run record', status.note);
  return 0;
}

/** math_reasoning's progress: the generation, then the Lean compiles. */
function generationProgress(status: CommandStatus): Pick<MlrbMathReasoningOptions, 'onProgress' | 'onCompileProgress'> {
  return status.quiet ? {} : { onProgress: status.generation('generating'), onCompileProgress: status.counter('Lean', 'outputs') };
}

function mathReasoningOptions(o: z.output<typeof optionsSchema>, data: string, openGenerator: OpenTextGenerator): MlrbMathReasoningOptions {
  return {
    data,
    openGenerator,
    ...(o.template !== undefined ? { template: readPromptTemplateFile(o.template) } : {}),
    ...(o['max-new-tokens'] !== undefined ? { maxNewTokens: o['max-new-tokens'] } : {}),
    ...(o['max-prompt-tokens'] !== undefined ? { maxPromptTokens: o['max-prompt-tokens'] } : {}),
    ...(o['no-rouge-stemmer'] === true ? { rougeStemmer: false } : {}),
    ...(o.lean !== undefined
      ? { lean: { executable: path.resolve(o.lean), ...(o['lean-timeout'] !== undefined ? { timeoutS: o['lean-timeout'] } : {}) } }
      : {}),
  };
}

/** The timing metrics generate through the built-in engine, as `mlrb-eval model-metrics` does. */
function modelMetricsOptions(o: z.output<typeof optionsSchema>): MlrbModelMetricsOptions {
  return {
    ...(o['wikitext-dir'] !== undefined ? { wikitextDir: o['wikitext-dir'] } : {}),
    ...(o['perplexity-text'] !== undefined ? { textFile: o['perplexity-text'] } : {}),
    tokensPerSecond: {
      warmupRuns: o['tps-warmup'] ?? MLRB_TOKENS_PER_SECOND_RUNS.warmupRuns,
      timedRuns: o['tps-runs'] ?? MLRB_TOKENS_PER_SECOND_RUNS.timedRuns,
    },
    latency: { warmupRuns: o['latency-warmup'] ?? MLRB_LATENCY_RUNS.warmupRuns, timedRuns: o['latency-runs'] ?? MLRB_LATENCY_RUNS.timedRuns },
  };
}

/** What a person reads first: the headline or why there is none, the source followed, eligibility, and what was not scored. */
export function summarize(record: RunRecord): string {
  const { headline, eligibility } = record;
  const lines = [`${record.mlrb_task}: ${headline.label}`];
  lines.push(headline.value !== null ? `  headline: ${headline.value.toFixed(4)}` : `  headline: none (${headline.status}): ${headline.reasons.join('; ')}`);
  if (record.definition !== null) lines.push(`  follows: ${describeReading(record.definition.followed)}`);
  lines.push(`  eligibility: ${eligibility.status} (${eligibility.rule})`);
  for (const gate of eligibility.gates) lines.push(`    gate ${gate.check}: ${gate.status}`);
  for (const finding of [...eligibility.reasons, ...eligibility.warnings]) lines.push(`    ${finding.check}: ${finding.message}`);
  const math = record.math_reasoning?.metrics;
  if (math !== undefined) {
    const lean = math.lean === null ? 'Lean not checked' : `Lean ${(math.lean.compile_rate * 100).toFixed(1)}% compiled`;
    lines.push(`  math reasoning: ROUGE-L ${math.rouge_l.toFixed(4)}, BLEU ${math.bleu.toFixed(2)}, ${lean}`);
  }
  if (record.model_metrics !== null) lines.push(...summarizeModelMetrics(record.model_metrics));
  for (const suite of record.suites) {
    lines.push(`  ${suite.name} (${suite.role}): ${suite.status === 'scored' ? 'scored' : 'NOT SCORED'}${suite.reason === null ? '' : `: ${suite.reason}`}`);
    if (suite.fetch !== null)
      lines.push(`    fetch: ${suite.fetch.what} into ${suite.fetch.place}${suite.fetch.command === null ? '' : ` (${suite.fetch.command})`}`);
  }
  for (const item of record.not_available) lines.push(`  ${item.name}: not available: ${item.reason}`);
  return `${lines.join('\n')}\n`;
}

/** agent_eval's figures as its cli.py prints them (perplexity to 4 places, the timings to 2), or why one is missing. */
function summarizeModelMetrics(section: ModelMetricsSection): string[] {
  const { report } = section;
  return section.metrics.map(({ name, status, reason, fetch }) => {
    if (status === 'not_measured' || report === null) {
      const where = fetch === null ? '' : `\n    fetch: ${fetch.what} into ${fetch.place}${fetch.command === null ? '' : ` (${fetch.command})`}`;
      return `  ${name}: NOT MEASURED${reason === null ? '' : `: ${reason}`}${where}`;
    }
    if (name === 'perplexity' && report.perplexity)
      return `  perplexity: ${report.perplexity.mlrb.avg.toFixed(4)} (MLRB's mean of running perplexities; ${report.perplexity.perplexity.toFixed(4)} over all tokens)`;
    if (name === 'tokens_per_second' && report.tokens_per_second) return `  tokens per second: ${report.tokens_per_second.summary.avg.toFixed(2)}`;
    if (name === 'latency' && report.latency) return `  latency: ${report.latency.ms_per_token.avg.toFixed(2)} ms per token`;
    return `  ${name}: measured`;
  });
}
