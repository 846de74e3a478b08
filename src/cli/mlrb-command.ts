/**
 * `mlrb-eval mlrb TASK MODEL`: one MLRB task on one model, as one run record (JSON) written atomically to
 * --output, or printed to stdout without it. A short summary goes to stderr. Exit 0 whenever a record was
 * made, whatever it says: eligibility and "not scored" are findings, not failures.
 */
import path from 'node:path';
import { z } from 'zod';
import type { ModelMetricsSection, RunRecord } from '../mlrb/run-record.js';
import { openBuiltInGenerator, type OpenTextGenerator } from '../math-reasoning/generator-source.js';
import { readPromptTemplateFile } from '../math-reasoning/template-file.js';
import type { MlrbModelMetricsOptions } from '../mlrb/model-metrics-run.js';
import { runMlrbTask, type MlrbMathReasoningOptions, type MlrbRunOptions } from '../mlrb/run-task.js';
import { describeReading } from '../mlrb/sources.js';
import { mlrbTaskNames, resolveMlrbTask } from '../mlrb/tasks.js';
import { MLRB_LATENCY_RUNS, MLRB_TOKENS_PER_SECOND_RUNS } from '../model-metrics/generation-timing.js';
import { defaultHubCacheDir } from '../tasks/hub-cache.js';
import { normalizeFlagSpelling, onlyModel } from './command-args.js';
import { parseCommandLine, printUsage } from './command-line.js';
import {
  ALLOW_PARTIAL,
  BASE,
  BATCH_SIZE,
  CACHE_DIR,
  DRAM_BUDGET,
  LATENCY_RUNS,
  LATENCY_WARMUP,
  LEAN,
  LEAN_TIMEOUT,
  LIMIT,
  LM_EVAL_VERSION,
  MAX_NEW_TOKENS,
  MAX_PROMPT_TOKENS,
  NO_CACHE,
  NO_ROUGE_STEMMER,
  NUM_FEWSHOT,
  ORT_LIBRARY,
  OUTPUT_FILE,
  positiveCount,
  PROVIDER,
  QUIET,
  SKIP_DRAM,
  TEMPLATE,
  THREADS,
  wholeNumber,
} from './common-flags.js';
import { flag, commandUsage, tableSpec, withHelp, type FlagEntry, type FlagValues, switchFlag } from './flag-table.js';
import { emitJsonReport } from './json-report.js';
import { trackProgress } from './check-track-command.js';
import { modelMetricsProgress } from './model-metrics-command.js';
import { commandStatus, type CommandStatus } from './progress.js';
import { UsageError, type CliIo } from './exit-error.js';

/** A shared flag that only some tasks read, its help prefixed with which. */
const forTasks = <Entry extends FlagEntry>(tasks: string, entry: Entry, help = entry.help): Entry => withHelp(entry, `${tasks}: ${help}`);

/** The flags that only lm-eval suites read, which a mini task does not run. */
const SUITE_FLAGS = [
  withHelp(LIMIT, 'first N documents of each task (the headline is then partial: no number)'),
  withHelp(NUM_FEWSHOT, 'few-shot examples per prompt (default 0)'),
  withHelp(ALLOW_PARTIAL, 'score data folders that lack some subtasks (the headline is then partial)'),
] as const;

/** The flags that only math_reasoning's generation reads. */
const MATH_FLAGS = [
  flag({
    name: 'math-data',
    kind: 'string',
    value: z.string().min(1).optional(),
    placeholder: 'FILE',
    help: "math_reasoning: MLRB's autoformalization set (JSON Lines: name, informal_statement, informal_proof, formal_proof); without it nothing is generated",
  }),
  forTasks('math_reasoning', TEMPLATE, 'prompt template ({informal_statement}, {informal_proof}, {name})'),
  forTasks('math_reasoning', MAX_NEW_TOKENS),
  forTasks('math_reasoning', MAX_PROMPT_TOKENS),
  forTasks(
    'math_reasoning',
    LEAN,
    'lean or lake executable to compile each output (current folder); the headline, the compile rate, needs it (BLEU and ROUGE-L are reported without)',
  ),
  forTasks('math_reasoning', LEAN_TIMEOUT),
  forTasks('math_reasoning', NO_ROUGE_STEMMER),
] as const;

/** The flags that only the model metrics read. */
const MODEL_METRICS_FLAGS = [
  flag({
    name: 'wikitext-dir',
    kind: 'string',
    value: z.string().min(1).optional(),
    placeholder: 'DIR',
    help:
      'model metrics: where WikiText-2 raw test is (default: the --data folder, its wikitext/ sub-folder, or the hub cache); without it ' +
      'perplexity is recorded as not measured, with what to fetch',
  }),
  flag({
    name: 'perplexity-text',
    kind: 'string',
    value: z.string().min(1).optional(),
    placeholder: 'FILE',
    help: 'model metrics: perplexity on this text (read as wiki.test.raw is) instead',
  }),
  flag({
    name: 'tps-warmup',
    kind: 'string',
    value: wholeNumber('tps-warmup').optional(),
    placeholder: 'N',
    help: `model metrics: tokens-per-second warm-up runs (default ${MLRB_TOKENS_PER_SECOND_RUNS.warmupRuns})`,
  }),
  flag({
    name: 'tps-runs',
    kind: 'string',
    value: positiveCount.optional(),
    placeholder: 'N',
    help: `model metrics: tokens-per-second timed runs (default ${MLRB_TOKENS_PER_SECOND_RUNS.timedRuns})`,
  }),
  forTasks('model metrics', LATENCY_WARMUP),
  forTasks('model metrics', LATENCY_RUNS),
] as const;

const MLRB_FLAGS = [
  flag({
    name: 'data',
    kind: 'string',
    value: z.string().min(1).optional(),
    placeholder: 'DIR',
    help:
      'a folder with one sub-folder per suite (mmlu, blimp, superglue, evaluation_data …); default: the Hugging Face hub cache. ' +
      'Suites without data are recorded as not scored, with what to fetch and where it goes',
  }),
  flag({
    name: 'agent',
    kind: 'string',
    value: z.string().min(1).optional(),
    placeholder: 'NAME',
    help: "who produced the model (the record's agent, for grouping runs)",
  }),
  withHelp(OUTPUT_FILE, 'write the run record there (atomically); default: print it to stdout'),
  ...SUITE_FLAGS,
  withHelp(BASE, "edge_llm_compression: the model it was pruned from (default Phi-2's config; mini_edge_llm_compression has no default)"),
  withHelp(SKIP_DRAM, 'edge tasks: do not measure DRAM; the DRAM gate is then not judged and the record is not eligible (an estimate grants nothing)'),
  withHelp(DRAM_BUDGET, "edge tasks: operator override of the track's DRAM limit"),
  ...MATH_FLAGS,
  switchFlag(
    'model-metrics',
    "also measure agent_eval's perplexity, tokens per second and latency (as `mlrb-eval model-metrics` does) after the suites; mini_ tasks always measure them",
  ),
  ...MODEL_METRICS_FLAGS,
  withHelp(BATCH_SIZE, "rows per forward pass (default auto; lm-eval's auto:N means auto)"),
  THREADS,
  PROVIDER,
  ORT_LIBRARY,
  CACHE_DIR,
  NO_CACHE,
  LM_EVAL_VERSION,
  withHelp(QUIET, 'no progress or summary on stderr: the record, warnings and errors only'),
] as const;

export const MLRB_USAGE = commandUsage({
  synopsis: 'usage: mlrb-eval mlrb TASK MODEL [--data DIR] [--agent NAME] [--output FILE] [options]',
  operands: [
    [
      'TASK',
      `${mlrbTaskNames().join(', ')} (MLRB's spellings mini_pile and baby_lm are accepted too); a mini_ task runs agent-eval's four model ` +
        "metrics only, as its prompt's command does",
    ],
    ['MODEL', 'an ONNX causal LM, or its folder'],
  ],
  flags: MLRB_FLAGS,
});

type MlrbFlagValues = FlagValues<typeof MLRB_FLAGS>;

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
  const args = normalizeFlagSpelling(argv);
  const line = parseCommandLine(args, tableSpec('mlrb', MLRB_FLAGS, args));
  if (line.help) return printUsage(io, MLRB_USAGE);
  // The first positional is the task and the second the model, wherever the flags sit.
  const [task, ...rest] = line.positionals;
  if (task === undefined) throw usageError('expected a TASK first');
  const { variant, mlrbName } = resolvedTask(task); // before MODEL is looked at
  const model = onlyModel('mlrb', rest);
  const o = line.options;
  const mathFlag = MATH_FLAGS.map(({ name }) => name).find((name) => o[name] !== undefined);
  if (mathFlag !== undefined && variant.headline.kind !== 'generated') throw usageError(`--${mathFlag} applies only to math_reasoning`);
  if (mathFlag !== undefined && o['math-data'] === undefined) throw usageError(`--${mathFlag} needs --math-data FILE.jsonl`);
  if (o['lean-timeout'] !== undefined && o.lean === undefined) throw usageError('--lean-timeout needs --lean PATH');
  const suiteFlag = SUITE_FLAGS.map(({ name }) => name).find((name) => o[name] !== undefined);
  if (suiteFlag !== undefined && variant.suites.length === 0)
    throw usageError(`--${suiteFlag} applies to lm-eval suites; ${mlrbName} runs only agent-eval's model metrics`);
  const metricsAlways = variant.modelMetrics === 'always';
  const metricsFlag = MODEL_METRICS_FLAGS.map(({ name }) => name).find((name) => o[name] !== undefined);
  if (metricsFlag !== undefined && o['model-metrics'] !== true && !metricsAlways) throw usageError(`--${metricsFlag} needs --model-metrics`);
  if (o['wikitext-dir'] !== undefined && o['perplexity-text'] !== undefined) throw usageError('give --wikitext-dir or --perplexity-text, not both');

  const status = commandStatus(io, { quiet: o.quiet === true });
  const metricsProgress = modelMetricsProgress(status);
  const evaluate: NonNullable<MlrbRunOptions['evaluate']> = {
    ...(o.limit !== undefined ? { limit: o.limit } : {}),
    ...(o['num-fewshot'] !== undefined ? { numFewshot: o['num-fewshot'] } : {}),
    ...(o['allow-partial'] ? { allowPartial: true } : {}),
    ...(o['batch-size'] !== undefined ? { batchSize: o['batch-size'].batchSize } : {}),
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

function mathReasoningOptions(o: MlrbFlagValues, data: string, openGenerator: OpenTextGenerator): MlrbMathReasoningOptions {
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
function modelMetricsOptions(o: MlrbFlagValues): MlrbModelMetricsOptions {
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
