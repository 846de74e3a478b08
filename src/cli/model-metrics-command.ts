/**
 * `mlrb-eval model-metrics MODEL`: MLRB's model metrics (wikitext perplexity, tokens per second, latency) as one
 * JSON object, printed to stdout or written atomically to --output; progress and a summary go to stderr. The
 * timing metrics generate through the `generation` argument (default: the built-in engine).
 */
import { z } from 'zod';
import {
  MODEL_METRIC_NAMES,
  type GenerationSubjectFactory,
  type ModelMetricName,
  type ModelMetricsOptions,
  type ModelMetricsProgress,
} from '../model-metrics/model-metrics-options.js';
import { GENERATION_ENGINE } from '../model-metrics/generation-engine.js';
import { MLRB_LATENCY_RUNS, MLRB_MAX_LENGTH, MLRB_TOKENS_PER_SECOND_RUNS } from '../model-metrics/generation-timing.js';
import { modelMetrics, type ModelMetricsReport } from '../model-metrics/model-metrics.js';
import { normalizeFlagSpelling, parseModelCommand } from './command-args.js';
import { printUsage } from './command-line.js';
import {
  BATCH_SIZE,
  CONFIG,
  LATENCY_RUNS,
  LATENCY_WARMUP,
  MAX_LENGTH,
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
import { commandUsage, flag, tableSpec, withHelp } from './flag-table.js';
import { emitJsonReport } from './json-report.js';
import { UsageError, type CliIo } from './exit-error.js';
import { commandStatus, type CommandStatus, type CountProgress } from './progress.js';

const metricList = z.string().transform((text, context) => {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(MODEL_METRIC_NAMES as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    context.addIssue({ code: 'custom', message: `--only expects some of ${MODEL_METRIC_NAMES.join(', ')}, got ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return [...new Set(names)] as ModelMetricName[];
});

const MODEL_METRICS_FLAGS = [
  flag({
    name: 'data-dir',
    kind: 'string',
    value: z.string().min(1).optional(),
    placeholder: 'DIR',
    help:
      "WikiText-2 raw test: a folder with wikitext-2-raw-v1/test-*.parquet (the hub's layout) or wiki.test.raw (the original zip's), " +
      'or a hub cache; default: the Hugging Face hub cache',
  }),
  flag({
    name: 'text',
    kind: 'string',
    value: z.string().min(1).optional(),
    placeholder: 'FILE',
    help: 'measure perplexity on this text (read as wiki.test.raw is) instead of WikiText-2',
  }),
  flag({
    name: 'only',
    kind: 'string',
    value: metricList.optional(),
    placeholder: 'METRICS',
    help: `comma-separated: ${MODEL_METRIC_NAMES.join(', ')} (default: all that this build can run)`,
  }),
  flag({
    name: 'warmup',
    kind: 'string',
    value: wholeNumber('warmup').optional(),
    placeholder: 'N',
    help: `tokens-per-second warm-up runs (default ${MLRB_TOKENS_PER_SECOND_RUNS.warmupRuns})`,
  }),
  flag({
    name: 'runs',
    kind: 'string',
    value: positiveCount.optional(),
    placeholder: 'N',
    help: `tokens-per-second timed runs (default ${MLRB_TOKENS_PER_SECOND_RUNS.timedRuns})`,
  }),
  LATENCY_WARMUP,
  LATENCY_RUNS,
  withHelp(MAX_LENGTH, `prompt + generated tokens at most, as transformers' max_length (default ${MLRB_MAX_LENGTH})`),
  withHelp(SEED, 'timed run i samples with seed S + i (default 0)'),
  OUTPUT_FILE,
  TOKENIZER,
  withHelp(CONFIG, 'Hugging Face config.json (default: beside the model)'),
  withHelp(BATCH_SIZE, 'perplexity windows per forward pass (default auto)'),
  THREADS,
  PROVIDER,
  ORT_LIBRARY,
  withHelp(QUIET, 'no progress or notes on stderr: the JSON, warnings and errors only'),
] as const;

export const MODEL_METRICS_USAGE = commandUsage({
  synopsis: 'usage: mlrb-eval model-metrics MODEL [--data-dir DIR | --text FILE] [--only METRICS] [--output FILE] [options]',
  operands: [['MODEL', 'an ONNX causal LM, or its folder']],
  flags: MODEL_METRICS_FLAGS,
});

export async function runModelMetricsCommand(argv: readonly string[], io: CliIo, generation: GenerationSubjectFactory = GENERATION_ENGINE): Promise<number> {
  const args = normalizeFlagSpelling(argv);
  const parsed = parseModelCommand(args, tableSpec('model-metrics', MODEL_METRICS_FLAGS, args));
  if (parsed.help) return printUsage(io, MODEL_METRICS_USAGE);
  const o = parsed.options;
  if (o['data-dir'] !== undefined && o.text !== undefined) throw new UsageError('model-metrics', 'give --data-dir or --text, not both');
  const metrics = o.only ?? [...MODEL_METRIC_NAMES];

  const status = commandStatus(io, { quiet: o.quiet === true });
  const progress = modelMetricsProgress(status);
  const options: ModelMetricsOptions = {
    model: parsed.model,
    metrics,
    ...(o['data-dir'] !== undefined ? { dataDir: o['data-dir'] } : {}),
    ...(o.text !== undefined ? { textFile: o.text } : {}),
    tokensPerSecond: { warmupRuns: o.warmup ?? MLRB_TOKENS_PER_SECOND_RUNS.warmupRuns, timedRuns: o.runs ?? MLRB_TOKENS_PER_SECOND_RUNS.timedRuns },
    latency: { warmupRuns: o['latency-warmup'] ?? MLRB_LATENCY_RUNS.warmupRuns, timedRuns: o['latency-runs'] ?? MLRB_LATENCY_RUNS.timedRuns },
    ...(o['max-length'] !== undefined ? { maxLength: o['max-length'] } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.tokenizer !== undefined ? { tokenizer: o.tokenizer } : {}),
    ...(o.config !== undefined ? { config: o.config } : {}),
    ...(o['batch-size'] !== undefined ? { batchSize: o['batch-size'].batchSize } : {}),
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
    ...(o.provider !== undefined ? { provider: o.provider } : {}),
    ...(o['ort-library'] !== undefined ? { ortLibrary: o['ort-library'] } : {}),
    generation,
    onWarning: status.warn,
    ...(status.quiet ? {} : { onProgress: progress.update }),
  };
  let report: ModelMetricsReport;
  try {
    report = await modelMetrics(options);
  } catch (error) {
    // The schema's refusals (a zero run count, say) are the user's flags: a usage error, as parseModelCommand's are.
    if (error instanceof TypeError && error.message.startsWith('invalid model-metrics options')) throw new UsageError('model-metrics', error.message);
    throw error;
  }
  progress.finish();
  status.note(summarize(report).trimEnd());
  emitJsonReport(io, report, o.output, 'model metrics', status.note);
  return 0;
}

/**
 * Progress of the model metrics, as `model-metrics` and `mlrb --model-metrics` show it: perplexity's tokenizing
 * and scoring, then one bar per timing metric and phase (warm-up, timed). A run is reported as it starts, so a
 * bar is completed when the next phase starts, or by finish() once all are measured.
 */
export function modelMetricsProgress(status: CommandStatus): { update: (progress: ModelMetricsProgress) => void; finish: () => void } {
  let current: { readonly key: string; readonly total: number; readonly update: CountProgress } | undefined;
  const finish = (): void => {
    current?.update(current.total, current.total);
    current = undefined;
  };
  const update = (progress: ModelMetricsProgress): void => {
    if (progress.metric === 'perplexity') {
      if ('tokenizing' in progress) status.note(`perplexity: tokenizing ${progress.tokenizing.characters.toLocaleString('en-US')} characters`);
      else status.scoring({ ...progress.scoring, label: 'perplexity' });
      return;
    }
    const key = `${progress.metric} ${progress.phase === 'warmup' ? 'warm-up' : 'timed'}`;
    if (current?.key !== key) {
      finish();
      current = { key, total: progress.total, update: status.counter(key, 'runs') };
    }
    current.update(progress.index, progress.total);
  };
  return { update, finish };
}

/** The headline figures as MLRB prints them (perplexity to 4 places, the timings to 2). */
export function summarize(report: ModelMetricsReport): string {
  const lines: string[] = [];
  const { tokens_per_second: tps, perplexity, latency } = report;
  if (tps)
    lines.push(
      `tokens per second: ${tps.summary.avg.toFixed(2)} ± ${tps.summary.std.toFixed(2)} (median ${tps.summary.median.toFixed(2)}, ${tps.procedure.timed_runs} runs)`,
    );
  if (perplexity) {
    lines.push(`perplexity (MLRB: mean of running perplexities): ${perplexity.mlrb.avg.toFixed(4)}`);
    lines.push(`perplexity (all ${perplexity.scored_tokens} scored tokens): ${perplexity.perplexity.toFixed(4)} over ${perplexity.windows} windows`);
  }
  if (latency)
    lines.push(
      `latency: ${latency.ms_per_token.avg.toFixed(2)} ms per token (run time / ${latency.procedure.divided_by}; median ${latency.ms_per_token.median.toFixed(2)})`,
    );
  return `${lines.join('\n')}\n`;
}
