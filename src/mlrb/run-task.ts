/**
 * Runs one MLRB task variant on one model and builds its run record: the variant's suites through evaluate()
 * (one call, so the lm-eval results are exactly those of `mlrb-eval MODEL --tasks <the suites scored>`), the
 * edge track's verdict through checkTrack(), agent_eval's model metrics through modelMetrics() (always for a
 * mini task, which is nothing else; on request for a full one), and the headline, eligibility and the source
 * followed from the variant's definition.
 *
 * A suite whose data is not there is not an error: it is recorded as not scored with the loader's reason and
 * what to fetch, and the rest is scored. Finding that out means loading each suite once before evaluate()
 * loads it again; the second read is cheap beside scoring, and it keeps evaluate() the one path that produces
 * results.
 */
import type { EvaluateOptions } from '../run/evaluate-options.js';
import { isMlrbError } from '../errors.js';
import { evaluate } from '../run/evaluate.js';
import { loadSelection } from '../run/load-suites.js';
import { toolVersion } from '../io/fingerprint.js';
import { modelFilesSha256 } from '../cache/model-digest.js';
import { DEFAULT_LM_EVAL_VERSION } from '../eval/lm-eval-version.js';
import type { LmEvalResults } from '../eval/result-types.js';
import { inspectModel } from '../inspect/report/inspect-report.js';
import { countStoredParameters } from '../inspect/graph/parameters.js';
import { readSeq2SeqGraphs } from '../inspect/graph/seq2seq-parameters.js';
import { checkTrack, type TrackReport } from '../inspect/track/track-check.js';
import type { TrackCheckOptions } from '../inspect/track/options.js';
import { resolveModelGraphs } from '../model/model-path.js';
import type { Seq2SeqFiles } from '../model/seq2seq-files.js';
import { resolveTaskNames } from '../tasks/task-names.js';
import { judgeEligibility, type TrackOutcome } from './eligibility.js';
import { computeHeadline, type GeneratedOutcome } from './headline.js';
import type { OpenTextGenerator } from '../math-reasoning/generator-source.js';
import { checkLeanExecutable } from '../math-reasoning/lean-check.js';
import { parsePromptTemplate } from '../math-reasoning/prompt-template.js';
import { scoreMathReasoning, type MathReasoningOptions, type MathReasoningReport } from '../math-reasoning/score.js';
import { mathDataFetch, suiteDataFetch } from './data-fetch.js';
import { measureModelMetrics, type MlrbModelMetricsOptions, type ModelMetricsOutcome } from './model-metrics-run.js';
import {
  RUN_RECORD_SCHEMA,
  RUN_RECORD_SCHEMA_VERSION,
  runRecordSchema,
  type CurrentRunRecord,
  type ModelMetricsSection,
  type RunRecord,
  type SuiteOutcome,
} from './run-record.js';
import { MLRB_SOURCES } from './sources.js';
import { AGENT_EVAL_MODEL_METRICS, resolveMlrbTask, type ResolvedMlrbTask, type VariantDefinition } from './tasks.js';

type Unavailable = RunRecord['not_available'][number];

/** How the edge track is checked; the track itself comes from the task. */
export interface TrackRunOptions {
  /** edge_llm_compression: the model it was pruned from (default Phi-2's config; the mini task has no default). */
  readonly base?: string;
  /** false judges the DRAM estimate instead of a measurement (the verdict then warns). */
  readonly measureDram?: boolean;
  readonly dramBudgetBytes?: number;
  readonly onProgress?: TrackCheckOptions['onProgress'];
}

/** math_reasoning's generation: the problems, the engine, and the scoring options of scoreMathReasoning(). */
export type MlrbMathReasoningOptions = Omit<MathReasoningOptions, 'generator' | 'encoder' | 'limit'> & {
  readonly openGenerator: OpenTextGenerator;
};

export interface MlrbRunOptions {
  /** An MLRB task name (`minipile`, `mini_llm_merging`, MLRB's `mini_pile` …). */
  readonly task: string;
  readonly model: string;
  readonly dataDir: string;
  /** Who produced the model, for grouping runs by agent. */
  readonly agent?: string;
  /** Passed to evaluate() as they are (few-shot, limit, partial data, batching, provider, cache …). */
  readonly evaluate?: Omit<EvaluateOptions, 'model' | 'suite' | 'dataDir'>;
  readonly track?: TrackRunOptions;
  /** math_reasoning only: without it the headline is not scored (the record says why). evaluate.limit applies. */
  readonly mathReasoning?: MlrbMathReasoningOptions;
  /**
   * Measure agent_eval's model metrics (perplexity, tokens per second, latency) after the suites. A full task
   * without it has none (model_metrics null, not_available says how to get them); a mini task measures them
   * always, with these options or MLRB's defaults.
   */
  readonly modelMetrics?: MlrbModelMetricsOptions;
  /** Told as each stage starts (suites, track, generation, model metrics), in words for a person. */
  readonly onStage?: (stage: string) => void;
}

/** Why a run record without model metrics has none. */
const MODEL_METRICS_NOT_ASKED = 'not measured in this run: give --model-metrics (or measure them alone with `mlrb-eval model-metrics MODEL`)';

export async function runMlrbTask(options: MlrbRunOptions): Promise<RunRecord> {
  const task = resolveMlrbTask(options.task);
  const { definition, variant } = task;
  checkOptionsApply(task, options);
  const startedAt = new Date();
  const started = performance.now();
  const evaluateOptions = options.evaluate ?? {};
  // One graph, or an encoder-decoder's folder: the edge checks and the parameter count read `path`.
  const graphs = resolveModelGraphs(options.model);
  const modelFile = graphs.path;

  const stage = (what: string): void => options.onStage?.(`${task.mlrbName}: ${what}`);
  if (variant.suites.length > 0) stage(`reading the data of ${variant.suites.map((suite) => suite.name).join(', ')}`);
  const suites = await probeSuites(variant, options.dataDir, evaluateOptions);
  if (variant.eligibility.kind === 'track') stage(`checking the ${variant.eligibility.track} track`);
  const track = graphs.seq2seq === null ? await runTrackCheck(task, modelFile, evaluateOptions, options.track ?? {}) : seq2seqTrack(task);
  const scored = suites.filter((suite) => suite.status === 'scored').map((suite) => suite.name);
  if (scored.length > 0) stage(`scoring ${scored.join(', ')}`);
  const results =
    scored.length === 0 ? null : (await evaluate({ ...evaluateOptions, model: options.model, suite: scored.join(','), dataDir: options.dataDir })).results;
  const parameters = graphs.seq2seq === null ? await parameterCount(track, modelFile) : await seq2seqParameterCount(graphs.seq2seq);
  if (variant.headline.kind === 'generated' && options.mathReasoning !== undefined) stage('generating the proofs');
  const generated = variant.headline.kind === 'generated' ? await runGeneration(options, evaluateOptions) : undefined;
  const metricsOptions = options.modelMetrics ?? (variant.modelMetrics === 'always' ? {} : undefined);
  if (metricsOptions !== undefined) stage("measuring agent-eval's model metrics");
  const measured = metricsOptions === undefined ? undefined : await runModelMetrics(options, metricsOptions, evaluateOptions);
  const metricsNotAsked: Unavailable[] =
    measured === undefined ? AGENT_EVAL_MODEL_METRICS.map((name) => ({ name, kind: 'metric', reason: MODEL_METRICS_NOT_ASKED })) : [];

  const record: CurrentRunRecord = {
    schema: RUN_RECORD_SCHEMA,
    schema_version: RUN_RECORD_SCHEMA_VERSION,
    task: definition.name,
    mini: task.mini,
    mlrb_task: task.mlrbName,
    agent: options.agent ?? null,
    definition: {
      followed: { ...variant.followed, where: MLRB_SOURCES[variant.followed.source].where },
      why: variant.why,
      differences: [...variant.differences],
    },
    headline: computeHeadline({ rule: variant.headline, suites, results, limit: evaluateOptions.limit, ...(generated !== undefined ? { generated } : {}) }),
    eligibility: judgeEligibility(variant.eligibility, track),
    suites,
    not_available: [...metricsNotAsked, ...(parameters.unavailable ? [parameters.unavailable] : [])].map((item) => ({ ...item })),
    mini_note: task.mini ? `${task.mlrbName} runs agent-eval's four model metrics and no lm-eval suite, as its prompt's command does` : null,
    lm_eval: results === null ? null : jsonCopy<NonNullable<RunRecord['lm_eval']>>(results),
    math_reasoning: generated?.kind === 'scored' ? jsonCopy<NonNullable<RunRecord['math_reasoning']>>(generated.report) : null,
    model_metrics: measured === undefined ? null : jsonCopy<ModelMetricsSection>(measured),
    track_check: track?.kind === 'report' ? jsonCopy<NonNullable<RunRecord['track_check']>>(track.report) : null,
    model: {
      path: options.model,
      file: modelFile,
      sha256: results?.mlrb.model_sha256 ?? (await modelFilesSha256(graphs.graphFiles, false)),
      parameters: parameters.total,
    },
    run: {
      tool_version: toolVersion(),
      started_at: startedAt.toISOString(),
      wall_time_s: (performance.now() - started) / 1000,
      data_dir: options.dataDir,
      limit: evaluateOptions.limit ?? null,
      num_fewshot: evaluateOptions.numFewshot ?? 0,
      allow_partial: evaluateOptions.allowPartial ?? false,
      provider: results?.mlrb.provider ?? evaluateOptions.provider ?? 'cpu',
      lm_eval_version: evaluateOptions.lmEvalVersion ?? DEFAULT_LM_EVAL_VERSION,
      data_fingerprint: results?.mlrb.data_fingerprint ?? null,
    },
  };
  // The record is checked against its own schema before anyone reads it: a field out of step is our bug.
  return runRecordSchema.parse(record);
}

/** Options that do not apply to the variant are refused before any work, so hours of scoring never end in a typo. */
function checkOptionsApply(task: ResolvedMlrbTask, options: MlrbRunOptions): void {
  const { variant } = task;
  if (options.track?.base !== undefined && !(variant.eligibility.kind === 'track' && variant.eligibility.track === 'edge-compression')) {
    throw new TypeError(`base (--base) applies only to edge_llm_compression; ${options.task} compares with no base model`);
  }
  if (options.mathReasoning !== undefined) {
    if (variant.headline.kind !== 'generated')
      throw new TypeError(`math-reasoning options (--math-data, --lean …) apply only to math_reasoning, not ${options.task}`);
    if (options.mathReasoning.template !== undefined) parsePromptTemplate(options.mathReasoning.template);
    if (options.mathReasoning.lean !== undefined) checkLeanExecutable(options.mathReasoning.lean.executable);
  }
  if (variant.suites.length === 0) {
    const suiteOption = (['limit', 'numFewshot', 'allowPartial'] as const).find((name) => options.evaluate?.[name] !== undefined);
    if (suiteOption !== undefined)
      throw new TypeError(`${suiteOption} applies to lm-eval suites, and ${task.mlrbName} runs none (only agent-eval's model metrics)`);
  }
  if (options.modelMetrics?.wikitextDir !== undefined && options.modelMetrics.textFile !== undefined) {
    throw new TypeError('model metrics: give wikitextDir (--wikitext-dir) or textFile (--perplexity-text), not both');
  }
}

/**
 * Each suite loaded as evaluate() would load it. Missing or unusable data (BAD_DATA) marks the suite not
 * scored with the loader's message and what to fetch; a partial folder (with allowPartial) is scored and says
 * what it lacks.
 */
async function probeSuites(variant: VariantDefinition, dataDir: string, options: NonNullable<MlrbRunOptions['evaluate']>): Promise<SuiteOutcome[]> {
  const common = {
    dataDir,
    numFewshot: options.numFewshot ?? 0,
    allowPartial: options.allowPartial ?? false,
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
  };
  const outcomes: SuiteOutcome[] = [];
  for (const { name, role } of variant.suites) {
    try {
      const loaded = await Promise.all(resolveTaskNames(name).map((selection) => loadSelection(selection, common)));
      const missing = loaded.flatMap((suite) => suite.missing ?? []);
      outcomes.push({
        name,
        role,
        status: 'scored',
        reason: missing.length === 0 ? null : `partial: without ${missing.join(', ')}`,
        error_code: null,
        fetch: null,
      });
    } catch (error) {
      if (!isMlrbError(error) || error.code !== 'BAD_DATA') throw error;
      outcomes.push({ name, role, status: 'not_scored', reason: error.message, error_code: error.code, fetch: { ...suiteDataFetch(name, dataDir) } });
    }
  }
  return outcomes;
}

/** The track's verdict, or why there is none; undefined for a task without a track. */
async function runTrackCheck(
  task: ResolvedMlrbTask,
  modelFile: string,
  evaluateOptions: NonNullable<MlrbRunOptions['evaluate']>,
  options: TrackRunOptions,
): Promise<TrackOutcome | undefined> {
  const rule = task.variant.eligibility;
  if (rule.kind !== 'track') return undefined;
  if (task.mini && rule.track === 'edge-compression' && options.base === undefined) {
    return {
      kind: 'not_run',
      reason: "mini_edge_llm_compression compresses the agent's assigned model, not Phi-2: give its base (--base) to judge the pruning",
    };
  }
  try {
    const report = await checkTrack(rule.track, modelFile, {
      ...(options.base !== undefined ? { base: options.base } : {}),
      ...(options.dramBudgetBytes !== undefined ? { dramBudgetBytes: options.dramBudgetBytes } : {}),
      measureDram: options.measureDram ?? true,
      // The DRAM measurement runs where scoring runs; 'auto' is not a place a measurement can name.
      provider: evaluateOptions.provider === 'cuda' ? 'cuda' : 'cpu',
      ...(evaluateOptions.threads !== undefined ? { threads: evaluateOptions.threads } : {}),
      ...(evaluateOptions.ortLibrary !== undefined ? { ortLibrary: evaluateOptions.ortLibrary } : {}),
      ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
    });
    return { kind: 'report', report };
  } catch (error) {
    if (!isMlrbError(error)) throw error;
    return { kind: 'not_run', reason: `check-track ${rule.track} could not judge the model (${error.code}): ${error.message}` };
  }
}

/** The edge tracks' checks (lineage, pruning) read one causal graph; an encoder-decoder's track is not judged. */
function seq2seqTrack(task: ResolvedMlrbTask): TrackOutcome | undefined {
  if (task.variant.eligibility.kind !== 'track') return undefined;
  return {
    kind: 'not_run',
    reason: `check-track ${task.variant.eligibility.track} reads one causal graph; this is an encoder-decoder export (\`mlrb-eval inspect\` gives its parameters, quantization and DRAM)`,
  };
}

/** An encoder-decoder's parameter count, from storage over all its graphs as `inspect` counts it. */
async function seq2seqParameterCount(files: Seq2SeqFiles): Promise<{ total: number | null; unavailable?: Unavailable }> {
  try {
    return { total: countStoredParameters(await readSeq2SeqGraphs(files)).total };
  } catch (error) {
    if (!isMlrbError(error)) throw error;
    return { total: null, unavailable: { name: 'parameters', kind: 'metric', reason: `the graphs could not be read (${error.code}): ${error.message}` } };
  }
}

/**
 * math_reasoning's generation and scores. No data, no engine in this build, or data that cannot be read are
 * findings (not scored, with the reason), as a missing suite is; anything else is an error.
 */
async function runGeneration(options: MlrbRunOptions, evaluateOptions: NonNullable<MlrbRunOptions['evaluate']>): Promise<GeneratedOutcome> {
  const math = options.mathReasoning;
  if (math === undefined) {
    const fetch = mathDataFetch(options.dataDir);
    return { kind: 'not_scored', reason: `no problems to generate for: give --math-data FILE.jsonl, ${fetch.what}; for example: ${fetch.command}` };
  }
  const { openGenerator, ...scoring } = math;
  try {
    const session = await openGenerator(options.model, {
      ...(evaluateOptions.provider !== undefined ? { provider: evaluateOptions.provider } : {}),
      ...(evaluateOptions.threads !== undefined ? { threads: evaluateOptions.threads } : {}),
      ...(evaluateOptions.ortLibrary !== undefined ? { ortLibrary: evaluateOptions.ortLibrary } : {}),
    });
    try {
      const report = await scoreMathReasoning({
        ...scoring,
        generator: session.generator,
        encoder: session.encoder,
        ...(evaluateOptions.limit !== undefined ? { limit: evaluateOptions.limit } : {}),
      });
      return { kind: 'scored', report };
    } finally {
      await session.close();
    }
  } catch (error) {
    if (!isMlrbError(error) || error.code !== 'BAD_DATA') throw error;
    return { kind: 'not_scored', reason: `${error.code}: ${error.message}` };
  }
}

/** agent_eval's model metrics on the model the suites scored, run where and as the suites ran. */
async function runModelMetrics(
  options: MlrbRunOptions,
  metricsOptions: MlrbModelMetricsOptions,
  evaluateOptions: NonNullable<MlrbRunOptions['evaluate']>,
): Promise<ModelMetricsOutcome> {
  return measureModelMetrics(options.model, AGENT_EVAL_MODEL_METRICS, options.dataDir, metricsOptions, {
    ...(evaluateOptions.provider !== undefined ? { provider: evaluateOptions.provider } : {}),
    ...(evaluateOptions.threads !== undefined ? { threads: evaluateOptions.threads } : {}),
    ...(evaluateOptions.ortLibrary !== undefined ? { ortLibrary: evaluateOptions.ortLibrary } : {}),
    ...(evaluateOptions.batchSize !== undefined ? { batchSize: evaluateOptions.batchSize } : {}),
    ...(evaluateOptions.onWarning !== undefined ? { onWarning: evaluateOptions.onWarning } : {}),
  });
}

/** agent-eval's parameter count: the track report has it; otherwise the graph is read for it. */
async function parameterCount(track: TrackOutcome | undefined, modelFile: string): Promise<{ total: number | null; unavailable?: Unavailable }> {
  if (track?.kind === 'report') return { total: track.report.inspect.parameters.total };
  try {
    return { total: (await inspectModel(modelFile)).parameters.total };
  } catch (error) {
    if (!isMlrbError(error)) throw error;
    return { total: null, unavailable: { name: 'parameters', kind: 'metric', reason: `the graph could not be read (${error.code}): ${error.message}` } };
  }
}

/**
 * Plain JSON data (what the record file will hold), so a record compares equal to what is read back; the
 * record's schema checks the copy's shape.
 */
function jsonCopy<Shape>(value: LmEvalResults | TrackReport | MathReasoningReport | ModelMetricsOutcome): Shape {
  return JSON.parse(JSON.stringify(value)) as Shape;
}
