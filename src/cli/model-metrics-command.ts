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
import { PROVIDER_CHOICES } from '../model/execution-provider.js';
import { GENERATION_ENGINE } from '../model-metrics/generation-engine.js';
import { MLRB_LATENCY_RUNS, MLRB_MAX_LENGTH, MLRB_TOKENS_PER_SECOND_RUNS } from '../model-metrics/generation-timing.js';
import { modelMetrics, type ModelMetricsReport } from '../model-metrics/model-metrics.js';
import { normalizeFlagSpelling, parseModelCommand } from './command-args.js';
import { printUsage } from './command-line.js';
import { emitJsonReport } from './json-report.js';
import { UsageError, type CliIo } from './exit-error.js';
import { commandStatus, QUIET_FLAG, type CommandStatus, type CountProgress } from './progress.js';

export const MODEL_METRICS_USAGE = `usage: mlrb-eval model-metrics MODEL [--data-dir DIR | --text FILE] [--only METRICS] [--output FILE] [options]
  MODEL                 an ONNX causal LM, or its folder
  --data-dir DIR        WikiText-2 raw test: a folder with wikitext-2-raw-v1/test-*.parquet (the hub's layout)
                        or wiki.test.raw (the original zip's), or a hub cache; default: the Hugging Face hub cache
  --text FILE           measure perplexity on this text (read as wiki.test.raw is) instead of WikiText-2
  --only METRICS        comma-separated: ${MODEL_METRIC_NAMES.join(', ')} (default: all that this build can run)
  --warmup N            tokens-per-second warm-up runs (default ${MLRB_TOKENS_PER_SECOND_RUNS.warmupRuns})
  --runs N              tokens-per-second timed runs (default ${MLRB_TOKENS_PER_SECOND_RUNS.timedRuns})
  --latency-warmup N    latency warm-up runs (default ${MLRB_LATENCY_RUNS.warmupRuns})
  --latency-runs N      latency timed runs (default ${MLRB_LATENCY_RUNS.timedRuns})
  --max-length N        prompt + generated tokens at most, as transformers' max_length (default ${MLRB_MAX_LENGTH})
  --seed N              timed run i samples with seed N + i (default 0)
  --output FILE         write the JSON there (atomically); default: print it to stdout
  --tokenizer FILE      tokenizer.json (default: beside the model)
  --config FILE         Hugging Face config.json (default: beside the model)
  --batch-size N|auto   perplexity windows per forward pass (default auto)
  --threads N           ONNX Runtime threads
  --provider P          cpu (default), cuda, or auto
  --ort-library FILE    another ONNX Runtime shared library
  --quiet               no progress or notes on stderr: the JSON, warnings and errors only
`;

const FLAGS = {
  'data-dir': { type: 'string' },
  text: { type: 'string' },
  only: { type: 'string' },
  warmup: { type: 'string' },
  runs: { type: 'string' },
  'latency-warmup': { type: 'string' },
  'latency-runs': { type: 'string' },
  'max-length': { type: 'string' },
  seed: { type: 'string' },
  output: { type: 'string' },
  tokenizer: { type: 'string' },
  config: { type: 'string' },
  'batch-size': { type: 'string' },
  threads: { type: 'string' },
  provider: { type: 'string' },
  'ort-library': { type: 'string' },
  ...QUIET_FLAG,
} as const;

const count = z
  .string()
  .regex(/^\d+$/, { error: (issue) => `expected a whole number, got ${JSON.stringify(issue.input)}` })
  .transform(Number);
const filePath = z.string().min(1);

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

const optionsSchema = z.strictObject({
  'data-dir': filePath.optional(),
  text: filePath.optional(),
  only: metricList.optional(),
  warmup: count.optional(),
  runs: count.optional(),
  'latency-warmup': count.optional(),
  'latency-runs': count.optional(),
  'max-length': count.optional(),
  seed: count.optional(),
  output: filePath.optional(),
  tokenizer: filePath.optional(),
  config: filePath.optional(),
  'batch-size': z.union([z.literal('auto'), count]).optional(),
  threads: count.optional(),
  provider: z.enum(PROVIDER_CHOICES).optional(),
  'ort-library': filePath.optional(),
  quiet: z.boolean().optional(),
});

export async function runModelMetricsCommand(argv: readonly string[], io: CliIo, generation: GenerationSubjectFactory = GENERATION_ENGINE): Promise<number> {
  const parsed = parseModelCommand(normalizeFlagSpelling(argv), { command: 'model-metrics', schema: optionsSchema, flags: FLAGS });
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
    ...(o['batch-size'] !== undefined ? { batchSize: o['batch-size'] } : {}),
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
