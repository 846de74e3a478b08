/**
 * MLRB run records with realistic values, for report tests: what `mlrb-eval mlrb TASK MODEL --agent NAME`
 * writes, with the lm-eval results reduced to the entries a report reads (MMLU categories, BLiMP's field
 * breakdown) and the track check to its DRAM and pruning facts. Every record is checked against the record
 * schema, so a schema change that these records miss fails here, not in a chart.
 */
import { RUN_RECORD_SCHEMA, RUN_RECORD_SCHEMA_VERSION, runRecordSchema, type CurrentRunRecord, type RunRecord } from '../../src/mlrb/run-record.js';
import { MLRB_SOURCES } from '../../src/mlrb/sources.js';
import { AGENT_EVAL_MODEL_METRICS, mlrbTaskDefinition, type MlrbTaskName } from '../../src/mlrb/tasks.js';

export interface SyntheticRun {
  readonly task: MlrbTaskName;
  readonly agent: string;
  /** The headline score; null: the headline's data was not there (not_scored). */
  readonly score: number | null;
  readonly eligibility: RunRecord['eligibility']['status'];
  readonly parameters: number;
  /** For the edge tasks: the bytes the DRAM verdict used. */
  readonly dramUsedBytes?: number;
  /** Minutes after a fixed start, so runs have a stable order. */
  readonly startMinute: number;
  /** agent_eval's model metrics as measured (`--model-metrics`); absent: not measured. */
  readonly modelMetrics?: SyntheticModelMetrics;
  /**
   * How the run's data was partial, the headline then `partial` with `score` as its partial number:
   * `limit`: scored with --limit 50 (every entry keeps its name); `missing-subtasks`: the headline's suite
   * lacked a subject (--allow-partial), so its group, and for MMLU the STEM category, are `<name>_partial`.
   */
  readonly partial?: 'limit' | 'missing-subtasks';
}

/** The --limit of a `partial: 'limit'` run. */
export const SYNTHETIC_LIMIT = 50;
/** The subtask a `missing-subtasks` run's headline suite lacks (MMLU's is a STEM subject). */
const MISSING_SUBTASK: Readonly<Record<string, string>> = { mmlu: 'mmlu_abstract_algebra', blimp: 'blimp_adjunct_island', superglue: 'record' };
const missingSubtaskOf = (suite: string): string => MISSING_SUBTASK[suite] ?? `${suite}_first_subtask`;

export interface SyntheticModelMetrics {
  /** exp(mean NLL over all scored tokens); MLRB's mean of running perplexities is set 5% above it. */
  readonly perplexity: number;
  readonly tokensPerSecond: number;
  readonly latencyMsPerToken: number;
}

const MMLU_CATEGORY_OFFSETS = { mmlu_stem: -0.06, mmlu_humanities: 0.02, mmlu_social_sciences: 0.05, mmlu_other: 0.01 } as const;
const BLIMP_FIELD_OFFSETS = { morphology: 0.04, syntax: -0.02, semantics: -0.08, syntax_semantics: -0.05, 'syntax/semantics': 0.0 } as const;
const EDGE_BUDGETS = { edge_llm_training: { bytes: 1e9, source: 'edge-training' }, edge_llm_compression: { bytes: 12e9, source: 'edge-compression' } } as const;
const PHI2_PARAMETERS = 2_779_683_840;

export function syntheticRunRecord(run: SyntheticRun): CurrentRunRecord {
  const definition = mlrbTaskDefinition(run.task);
  const variant = definition.full;
  const headline = variant.headline;
  const scored = run.score !== null && headline.kind === 'metric';
  const partial = scored && run.partial !== undefined;
  const suiteNames = variant.suites.map((suite) => suite.name);
  const headlineSuite = headline.kind === 'metric' ? headline.suite : null;
  const record: CurrentRunRecord = {
    schema: RUN_RECORD_SCHEMA,
    schema_version: RUN_RECORD_SCHEMA_VERSION,
    task: run.task,
    mini: false,
    mlrb_task: definition.mlrbName,
    agent: run.agent,
    definition: {
      followed: { ...variant.followed, where: MLRB_SOURCES[variant.followed.source].where },
      why: variant.why,
      differences: [...variant.differences],
    },
    headline: {
      label: headline.label,
      source:
        headline.kind === 'metric'
          ? { kind: 'lm_eval', suite: headline.suite, entry: headline.entry, metric: `${headline.metric},none` }
          : headline.kind === 'generated'
            ? { kind: 'math_reasoning', metric: headline.metric }
            : null,
      status: headline.kind === 'none' ? 'unavailable' : partial ? 'partial' : scored ? 'scored' : 'not_scored',
      value: scored && !partial ? run.score : null,
      reasons: partial ? [`the headline's data was partial (${run.partial})`] : scored ? [] : ["the headline's data was not there"],
    },
    eligibility: {
      status: run.eligibility,
      rule: variant.eligibility.kind === 'track' ? `check-track ${variant.eligibility.track}` : 'unverifiable',
      gates: [],
      reasons: run.eligibility === 'ineligible' ? [{ check: 'quantization', message: 'the graph holds int8 weights' }] : [],
      warnings: [],
    },
    suites: variant.suites.map(({ name, role }) => ({
      name,
      role,
      status: run.score === null ? 'not_scored' : 'scored',
      reason: run.partial === 'missing-subtasks' && run.score !== null && name === headlineSuite ? `partial: without ${missingSubtaskOf(name)}` : null,
      error_code: null,
      fetch: null,
    })),
    not_available:
      run.modelMetrics === undefined ? AGENT_EVAL_MODEL_METRICS.map((name) => ({ name, kind: 'metric' as const, reason: 'not measured in this run' })) : [],
    mini_note: null,
    lm_eval: run.score === null ? null : lmEvalResults(suiteNames, run.score, headline.kind === 'metric' ? headline : null, run.partial === 'missing-subtasks'),
    math_reasoning: null,
    model_metrics: run.modelMetrics === undefined ? null : modelMetricsSection(run.modelMetrics),
    track_check: trackCheck(run),
    model: { path: `models/${run.agent}/${run.task}`, file: `models/${run.agent}/${run.task}/model.onnx`, sha256: 'ab'.repeat(32), parameters: run.parameters },
    run: {
      tool_version: '0.1.0',
      started_at: new Date(Date.UTC(2026, 10, 1, 9, run.startMinute)).toISOString(),
      wall_time_s: 812.5,
      data_dir: 'data',
      limit: run.partial === 'limit' ? SYNTHETIC_LIMIT : null,
      num_fewshot: 0,
      allow_partial: run.partial === 'missing-subtasks',
      provider: 'cpu',
      lm_eval_version: '0.4.13',
      data_fingerprint: 'cd'.repeat(32),
    },
  };
  return runRecordSchema.parse(record);
}

/**
 * A record as version 1 wrote it (before model_metrics, and before v3's definition, gates, suite roles and
 * fetch hints), as JSON: what older files on disk hold. Its not_available keeps the model metrics, as v1 listed them.
 */
export function asVersion1Json(record: CurrentRunRecord): Record<string, unknown> {
  const { model_metrics: _absent, definition: _definition, ...rest } = JSON.parse(JSON.stringify(record)) as CurrentRunRecord;
  const source = rest.headline.source;
  return {
    ...rest,
    schema_version: 1,
    headline: { ...rest.headline, source: source?.kind === 'lm_eval' ? { entry: source.entry, metric: source.metric } : null },
    eligibility: { status: rest.eligibility.status, rule: rest.eligibility.rule, reasons: rest.eligibility.reasons, warnings: rest.eligibility.warnings },
    suites: rest.suites.map(({ role: _role, fetch: _fetch, ...fields }) => fields),
  };
}

/** The shape modelMetrics() reports, with each summary built around the figure given. */
function modelMetricsSection(metrics: SyntheticModelMetrics): NonNullable<RunRecord['model_metrics']> {
  const spread = (avg: number) => ({ avg, median: avg, min: avg * 0.9, max: avg * 1.1, p90: avg * 1.08, p95: avg * 1.09 });
  const procedure = { prompt: 'Hello my name is Matt.', prompt_tokens: 24, max_length: 200, max_new_tokens: 176, temperature: 0.8, top_k: 300, seed: 0 };
  return {
    metrics: AGENT_EVAL_MODEL_METRICS.map((name) => ({ name, status: 'measured' as const, reason: null, error_code: null, fetch: null })),
    report: {
      schema: 'mlrb-eval/model-metrics',
      schema_version: 1,
      tool_version: '0.1.0',
      started_at: '2026-11-01T09:00:00.000Z',
      wall_time_s: 95.5,
      model: { path: 'model', file: 'model/model.onnx', provider: 'cpu' },
      tokens_per_second: {
        procedure: { ...procedure, warmup_runs: 10, timed_runs: 30 },
        runs: Array.from({ length: 30 }, () => metrics.tokensPerSecond),
        generated_tokens: Array.from({ length: 30 }, () => 176),
        summary: { ...spread(metrics.tokensPerSecond), std: metrics.tokensPerSecond * 0.05 },
      },
      perplexity: {
        procedure: { window_tokens: 256, window_stride: 256, first_scored_position: 128, scored_tokens_per_window: 127, bos_token_id: 1, text_tokens: 338_535 },
        windows: 1322,
        scored_tokens: 167_894,
        perplexity: metrics.perplexity,
        mlrb: spread(metrics.perplexity * 1.05),
        data: {
          dataset: 'wikitext-2-raw-v1/test',
          layout: 'hub',
          source_files: ['wikitext-2-raw-v1/test-00000-of-00001.parquet'],
          rows: 4358,
          characters: 1_288_556,
        },
      },
      latency: {
        procedure: { ...procedure, warmup_runs: 5, timed_runs: 10, divided_by: 512 },
        runs_ms: Array.from({ length: 10 }, () => metrics.latencyMsPerToken * 512),
        generated_tokens: Array.from({ length: 10 }, () => 176),
        ms_per_token: spread(metrics.latencyMsPerToken),
      },
    },
  };
}

/**
 * The headline's entry holds the score itself; with missing subtasks it and (for MMLU) the STEM category that
 * lost a subject are named `<name>_partial`, as src/tasks/partial.ts renames them.
 */
function lmEvalResults(
  suites: readonly string[],
  score: number,
  headline: { readonly suite: string; readonly entry: string; readonly metric: string } | null,
  missingSubtasks: boolean,
): NonNullable<RunRecord['lm_eval']> {
  const results: Record<string, Record<string, unknown>> = {};
  const entry = (value: number): Record<string, unknown> => ({ 'acc,none': clamp(value), 'acc_stderr,none': 0.004 });
  const name = (group: string, lostSubject: boolean): string => (missingSubtasks && lostSubject ? `${group}_partial` : group);
  let breakdowns: unknown = {};
  if (headline !== null) results[name(headline.entry, true)] = { [`${headline.metric},none`]: score };
  if (suites.includes('mmlu')) {
    results[name('mmlu', true)] = entry(score);
    for (const [category, offset] of Object.entries(MMLU_CATEGORY_OFFSETS)) results[name(category, category === 'mmlu_stem')] = entry(score + offset);
  }
  if (suites.some((suite) => suite.startsWith('blimp'))) {
    breakdowns = {
      field: Object.fromEntries(Object.entries(BLIMP_FIELD_OFFSETS).map(([field, offset]) => [field, { n: 2000, tasks: 2, ...entry(score + offset) }])),
    };
  }
  return { results, mlrb: { breakdowns, ...(missingSubtasks && headline !== null ? { partial: { missing: [missingSubtaskOf(headline.suite)] } } : {}) } };
}

function trackCheck(run: SyntheticRun): RunRecord['track_check'] {
  if (run.task !== 'edge_llm_training' && run.task !== 'edge_llm_compression') return null;
  const budget = EDGE_BUDGETS[run.task];
  const usedBytes = run.dramUsedBytes ?? budget.bytes / 2;
  return {
    track: budget.source,
    verdict: { status: run.eligibility === 'ineligible' ? 'fail' : 'pass', reasons: [], warnings: [] },
    checks: {
      dram: { budget, usedBytes, basis: 'measured' },
      ...(run.task === 'edge_llm_compression' ? { pruning: { base: { totalParams: PHI2_PARAMETERS } } } : {}),
    },
  };
}

function clamp(value: number): number {
  return Math.min(1, Math.max(0, value));
}
