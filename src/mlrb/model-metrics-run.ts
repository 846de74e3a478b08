/**
 * agent_eval's model metrics for a run record: its cli.py measures tokens per second, perplexity and latency for
 * a task beside the lm-eval suites; modelMetrics() measures them the same way, on the model the suites scored.
 *
 * WikiText that is not there is not an error: perplexity is recorded as not measured with the loader's reason,
 * and the timings are still measured, as a suite without data is recorded. Finding that out reads the text once
 * before modelMetrics() reads it again, which keeps modelMetrics() the one path that produces the figures.
 */
import type { ModelMetricName, ModelMetricsOptions } from '../model-metrics/model-metrics-options.js';
import { isMlrbError } from '../errors.js';
import { modelMetrics, type ModelMetricsReport } from '../model-metrics/model-metrics.js';
import { SEQ2SEQ_PERPLEXITY_REFUSAL } from '../model-metrics/perplexity.js';
import { readRawTextFile, readWikitextTest } from '../model-metrics/wikitext-text.js';
import { seq2seqFilesFor } from '../model/seq2seq-files.js';
import { wikitextDataFetch, type DataFetch } from './data-fetch.js';
import type { AgentEvalModelMetric } from './tasks.js';

/** What a run may change of modelMetrics()'s procedure; everything else is MLRB's (the report names it all). */
export type MlrbModelMetricsOptions = Pick<
  ModelMetricsOptions,
  'textFile' | 'tokensPerSecond' | 'latency' | 'maxLength' | 'seed' | 'generation' | 'onProgress'
> & {
  /** Where WikiText-2 raw test is (its folder, a folder holding `wikitext/`, or a hub cache); default the run's data folder. */
  readonly wikitextDir?: string;
};

/** How the model is run, as the suites ran it. */
export type ModelRunSettings = Pick<ModelMetricsOptions, 'provider' | 'threads' | 'ortLibrary' | 'batchSize' | 'onWarning'>;

export interface MetricOutcome {
  readonly name: AgentEvalModelMetric;
  readonly status: 'measured' | 'not_measured';
  /** The loader's message when the metric's data was not there. */
  readonly reason: string | null;
  readonly error_code: string | null;
  /** When WikiText was not there: what to fetch and where it goes (null for a --perplexity-text file). */
  readonly fetch: DataFetch | null;
}

export interface ModelMetricsOutcome {
  /** Each metric the task runs, in agent_eval's order. */
  readonly metrics: readonly MetricOutcome[];
  /** modelMetrics()'s report, a metric not measured null in it; null when none could be measured. */
  readonly report: ModelMetricsReport | null;
}

const OPTION_NAMES: Readonly<Record<AgentEvalModelMetric, ModelMetricName>> = {
  tokens_per_second: 'tokens-per-second',
  perplexity: 'perplexity',
  latency: 'latency',
};

/** The task's model metrics on `model`; WikiText is looked for under wikitextDir, else the run's data folder. */
export async function measureModelMetrics(
  model: string,
  metrics: readonly AgentEvalModelMetric[],
  dataDir: string,
  options: MlrbModelMetricsOptions,
  settings: ModelRunSettings,
): Promise<ModelMetricsOutcome> {
  const { wikitextDir, textFile, ...procedure } = options;
  const text = textFile !== undefined ? { textFile } : { dataDir: wikitextDir ?? dataDir };
  // An encoder-decoder has no MLRB perplexity at all (perplexity.ts says why), whatever data there is.
  const encoderDecoder = seq2seqFilesFor(model) !== null;
  const missing = metrics.includes('perplexity') && !encoderDecoder ? await missingText(text) : null;
  const fetch = textFile === undefined ? wikitextDataFetch(wikitextDir ?? dataDir) : null;
  const outcomes: MetricOutcome[] = metrics.map((name) => {
    if (name === 'perplexity' && encoderDecoder)
      return { name, status: 'not_measured', reason: SEQ2SEQ_PERPLEXITY_REFUSAL, error_code: 'BAD_MODEL', fetch: null };
    if (name === 'perplexity' && missing !== null) return { name, status: 'not_measured', reason: missing.message, error_code: missing.code, fetch };
    return { name, status: 'measured', reason: null, error_code: null, fetch: null };
  });
  const measured = outcomes.filter((outcome) => outcome.status === 'measured').map((outcome) => OPTION_NAMES[outcome.name]);
  if (measured.length === 0) return { metrics: outcomes, report: null };
  const report = await modelMetrics({ ...settings, ...procedure, ...(measured.includes('perplexity') ? text : {}), model, metrics: measured });
  return { metrics: outcomes, report };
}

/** Why the perplexity text cannot be read (BAD_DATA: missing or unusable), or null when it can. */
async function missingText(text: { readonly textFile: string } | { readonly dataDir: string }): Promise<{ code: string; message: string } | null> {
  try {
    await ('textFile' in text ? readRawTextFile(text.textFile) : readWikitextTest(text.dataDir));
    return null;
  } catch (error) {
    if (!isMlrbError(error) || error.code !== 'BAD_DATA') throw error;
    return { code: error.code, message: error.message };
  }
}
