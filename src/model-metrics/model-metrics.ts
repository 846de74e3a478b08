/**
 * modelMetrics(): MLRB's model metrics beside lm-eval (issue 16): wikitext perplexity, tokens per second and
 * latency, each as MLRB's agent_eval measures it, in one JSON object that names the procedure's parameters
 * with the figures. Metrics run in MLRB's order (tokens per second, perplexity, latency); the data is read
 * before the model is loaded, so missing data fails in seconds.
 */
import { toolVersion } from '../io/fingerprint.js';
import { defaultHubCacheDir } from '../tasks/hub-cache.js';
import { loadModel } from '../model/onnx-model.js';
import { pythonLength } from '../text/python-text.js';
import { parseModelMetricsOptions, type ModelMetricsOptions, type ResolvedModelMetricsOptions } from './model-metrics-options.js';
import { GENERATION_ENGINE } from './generation-engine.js';
import { measureLatency, measureTokensPerSecond, type GenerationSubject, type LatencyResult, type TokensPerSecondResult } from './generation-timing.js';
import { checkPerplexityApplies, measurePerplexity, type PerplexityResult } from './perplexity.js';
import { readRawTextFile, readWikitextTest, WIKITEXT_CONFIG, WIKITEXT_SPLIT, type WikitextText } from './wikitext-text.js';

export const MODEL_METRICS_SCHEMA = 'mlrb-eval/model-metrics';
export const MODEL_METRICS_SCHEMA_VERSION = 1;

export interface PerplexityReport extends PerplexityResult {
  readonly data: {
    /** `wikitext-2-raw-v1/test` for WikiText, or `text file` for --text. */
    readonly dataset: string;
    readonly layout: WikitextText['layout'];
    readonly source_files: readonly string[];
    readonly rows: number;
    /** Code points, as Python's len counts them. */
    readonly characters: number;
  };
}

export interface ModelMetricsReport {
  readonly schema: typeof MODEL_METRICS_SCHEMA;
  readonly schema_version: typeof MODEL_METRICS_SCHEMA_VERSION;
  readonly tool_version: string;
  readonly started_at: string;
  readonly wall_time_s: number;
  readonly model: { readonly path: string; readonly file: string; readonly provider: string };
  /** null when not asked for. */
  readonly tokens_per_second: TokensPerSecondResult | null;
  readonly perplexity: PerplexityReport | null;
  readonly latency: LatencyResult | null;
}

async function readText(options: ResolvedModelMetricsOptions): Promise<WikitextText> {
  if (options.textFile !== undefined) return readRawTextFile(options.textFile);
  return readWikitextTest(options.dataDir ?? defaultHubCacheDir());
}

/** Options are checked synchronously (TypeError); the work itself is async. */
export function modelMetrics(options: ModelMetricsOptions): Promise<ModelMetricsReport> {
  return measureAll(parseModelMetricsOptions(options));
}

async function measureAll(options: ResolvedModelMetricsOptions): Promise<ModelMetricsReport> {
  const started = new Date();
  const wants = (metric: ResolvedModelMetricsOptions['metrics'][number]): boolean => options.metrics.includes(metric);
  const text = wants('perplexity') ? await readText(options) : undefined;
  const model = await loadModel({
    model: options.model,
    config: options.config,
    tokenizer: options.tokenizer,
    threads: options.threads,
    provider: options.provider,
    ortLibrary: options.ortLibrary,
    onWarning: options.onWarning,
  });
  let subject: GenerationSubject | undefined;
  try {
    // Refused before any timing run, rather than after minutes of them.
    if (text) checkPerplexityApplies(model);
    const generation = async (): Promise<GenerationSubject> => {
      subject ??= await (options.generation ?? GENERATION_ENGINE)(model);
      return subject;
    };
    const timing = (metric: 'tokens-per-second' | 'latency', counts: { warmupRuns: number; timedRuns: number }) => ({
      ...counts,
      maxLength: options.maxLength,
      seed: options.seed,
      onRun: (run: { phase: 'warmup' | 'timed'; index: number; total: number }) => options.onProgress?.({ metric, ...run }),
    });
    const tokensPerSecond = wants('tokens-per-second')
      ? await measureTokensPerSecond(await generation(), timing('tokens-per-second', options.tokensPerSecond))
      : null;
    if (text) options.onProgress?.({ metric: 'perplexity', tokenizing: { characters: pythonLength(text.text) } });
    const perplexity = text
      ? {
          ...(await measurePerplexity(model, text.text, {
            batchSize: options.batchSize,
            onProgress: (scoring) => options.onProgress?.({ metric: 'perplexity', scoring }),
          })),
          data: {
            dataset: text.layout === 'text-file' ? 'text file' : `${WIKITEXT_CONFIG}/${WIKITEXT_SPLIT}`,
            layout: text.layout,
            source_files: text.sourceFiles,
            rows: text.rows,
            characters: pythonLength(text.text),
          },
        }
      : null;
    const latency = wants('latency') ? await measureLatency(await generation(), timing('latency', options.latency)) : null;
    return {
      schema: MODEL_METRICS_SCHEMA,
      schema_version: MODEL_METRICS_SCHEMA_VERSION,
      tool_version: toolVersion(),
      started_at: started.toISOString(),
      wall_time_s: (Date.now() - started.getTime()) / 1000,
      model: { path: options.model, file: model.modelPath, provider: model.provider },
      tokens_per_second: tokensPerSecond,
      perplexity,
      latency,
    };
  } finally {
    subject?.dispose?.();
    model.dispose();
  }
}
