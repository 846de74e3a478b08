/**
 * MLRB task definitions, headline and eligibility rules, and the run record's schema, on hand-made inputs.
 * Expectations are MLRB's published facts (ML-Research-Agent-Evals' run_evals.sh / run.sh, the task prompts),
 * not the definitions read back.
 */
import { describe, expect, it } from 'vitest';
import type { LmEvalResults } from '../../src/eval/results.js';
import type { TrackReport } from '../../src/inspect/track-check.js';
import type { MathReasoningReport } from '../../src/math-reasoning/score.js';
import { judgeEligibility } from '../../src/mlrb/eligibility.js';
import { computeHeadline } from '../../src/mlrb/headline.js';
import { parseRunRecord, RUN_RECORD_SCHEMA, RUN_RECORD_SCHEMA_VERSION, type RunRecord } from '../../src/mlrb/run-record.js';
import { MLRB_TASK_NAMES, mlrbTaskDefinition, mlrbTaskNames, resolveMlrbTask, type HeadlineMetric } from '../../src/mlrb/tasks.js';
import { resolveTaskNames } from '../../src/tasks/task-names.js';

describe('MLRB task definitions', () => {
  it('has the seven tasks, each with a mini_ variant', () => {
    expect(MLRB_TASK_NAMES).toHaveLength(7);
    expect(mlrbTaskNames()).toHaveLength(14);
  });

  it.each(MLRB_TASK_NAMES)('%s: every suite is a --tasks name, and the headline reads one of them', (name) => {
    const definition = mlrbTaskDefinition(name);
    for (const suite of definition.suites) expect(() => resolveTaskNames(suite.name)).not.toThrow();
    if (definition.headline.kind === 'metric') expect(definition.suites.map((suite) => suite.name)).toContain(definition.headline.suite);
  });

  it('runs the suites MLRB\'s evaluation scripts name', () => {
    const suites = (name: (typeof MLRB_TASK_NAMES)[number]) => mlrbTaskDefinition(name).suites.map((suite) => suite.name);
    expect(suites('minipile')).toEqual(['superglue']);
    expect(suites('babylm')).toEqual(['blimp_filtered', 'blimp_supplement', 'ewok_filtered']);
    expect(suites('llm_efficiency')).toEqual(['mmlu', 'hellaswag', 'gsm8k', 'arc_easy', 'arc_challenge', 'blimp']);
    expect(suites('llm_merging')).toEqual(['mmlu']);
    expect(suites('edge_llm_compression')).toEqual(['mmlu']);
    expect(suites('edge_llm_training')).toEqual(['superglue']);
    expect(mlrbTaskDefinition('llm_efficiency').unavailable).toEqual([]);
    expect(mlrbTaskDefinition('math_reasoning').headline).toMatchObject({ kind: 'generated', metric: 'rouge_l' });
    expect(mlrbTaskDefinition('edge_llm_compression').eligibility).toEqual({ kind: 'track', track: 'edge-compression' });
    expect(mlrbTaskDefinition('edge_llm_training').eligibility).toEqual({ kind: 'track', track: 'edge-training' });
  });

  it.each(MLRB_TASK_NAMES)('%s: runs agent_eval\'s tokens per second, perplexity and latency, as cli.py\'s tasks table lists for every task', (name) => {
    // cli.py: tasks[task] is ["latency", "tokens_per_second", "parameters", "perplexity"] for each task and its mini_
    // variant; it measures them in the order tokens per second, perplexity, latency (parameters: model.parameters).
    expect(mlrbTaskDefinition(name).modelMetrics).toEqual(['tokens_per_second', 'perplexity', 'latency']);
  });

  it('accepts MLRB\'s spellings and the mini_ prefix, and says which MLRB task ran', () => {
    expect(resolveMlrbTask('mini_pile')).toMatchObject({ mini: false, mlrbName: 'mini_pile', definition: { name: 'minipile' } });
    expect(resolveMlrbTask('mini_mini_pile')).toMatchObject({ mini: true, mlrbName: 'mini_mini_pile', definition: { name: 'minipile' } });
    expect(resolveMlrbTask('mini_minipile')).toMatchObject({ mini: true, mlrbName: 'mini_mini_pile' });
    expect(resolveMlrbTask('mini_baby_lm')).toMatchObject({ mini: true, definition: { name: 'babylm' } });
    expect(resolveMlrbTask('llm_merging')).toMatchObject({ mini: false, mlrbName: 'llm_merging' });
  });

  it('BAD CALL – unknown names (and prototype keys) are a RangeError listing the known tasks', () => {
    for (const name of ['pile', 'mini_', 'constructor', 'mini_constructor', 'budget_model_training']) {
      expect(() => resolveMlrbTask(name)).toThrow(RangeError);
    }
    expect(() => resolveMlrbTask('nope')).toThrow(/known: minipile, mini_minipile/);
  });
});

const MMLU_RULE = mlrbTaskDefinition('llm_merging').headline as HeadlineMetric;
const results = (groups: Record<string, Record<string, number>>): LmEvalResults => ({ results: {}, groups }) as unknown as LmEvalResults;
const scored = [{ name: 'mmlu', status: 'scored' as const, reason: null, error_code: null }];

describe('headline', () => {
  it('is the group metric when the suite was scored whole', () => {
    const headline = computeHeadline({ rule: MMLU_RULE, suites: scored, results: results({ mmlu: { 'acc,none': 0.25 } }), limit: undefined });
    expect(headline).toMatchObject({ status: 'scored', value: 0.25, source: { entry: 'mmlu', metric: 'acc,none' } });
  });

  it('has no number when the suite was not scored, and says why', () => {
    const suites = [{ name: 'mmlu', status: 'not_scored' as const, reason: 'no MMLU data', error_code: 'BAD_DATA' }];
    const headline = computeHeadline({ rule: MMLU_RULE, suites, results: null, limit: undefined });
    expect(headline).toMatchObject({ status: 'not_scored', value: null });
    expect(headline.reasons[0]).toContain('no MMLU data');
  });

  it('has no number for a partial group or a --limit run', () => {
    const partial = computeHeadline({ rule: MMLU_RULE, suites: scored, results: results({ mmlu_partial: { 'acc,none': 0.5 } }), limit: undefined });
    expect(partial).toMatchObject({ status: 'partial', value: null });
    const limited = computeHeadline({ rule: MMLU_RULE, suites: scored, results: results({ mmlu: { 'acc,none': 0.5 } }), limit: 5 });
    expect(limited).toMatchObject({ status: 'partial', value: null });
  });

  it('math_reasoning: ROUGE-L from the generation report; not scored without one, partial under --limit', () => {
    const rule = mlrbTaskDefinition('math_reasoning').headline;
    const report = (scored: number, inFile: number): MathReasoningReport => ({
      data_file: 'p.jsonl',
      problems_scored: scored,
      problems_in_file: inFile,
      settings: { template: 't', decoding: 'greedy', max_new_tokens: 200, max_prompt_tokens: 512, stop_strings: [], lean_timeout_s: null, rouge_stemmer: true },
      metrics: { rouge_l: 0.375, bleu: 12.5, lean: null },
      problems: [],
    });
    expect(computeHeadline({ rule, suites: [], results: null, limit: undefined })).toMatchObject({ status: 'not_scored', value: null, source: null });
    const missing = computeHeadline({ rule, suites: [], results: null, limit: undefined, generated: { kind: 'not_scored', reason: 'BAD_DATA: problems.jsonl line 3 has no formal_proof' } });
    expect(missing).toMatchObject({ status: 'not_scored', value: null, reasons: ['BAD_DATA: problems.jsonl line 3 has no formal_proof'] });
    const scored = computeHeadline({ rule, suites: [], results: null, limit: undefined, generated: { kind: 'scored', report: report(4, 4) } });
    expect(scored).toMatchObject({ status: 'scored', value: 0.375, source: null, reasons: [] });
    const limited = computeHeadline({ rule, suites: [], results: null, limit: 2, generated: { kind: 'scored', report: report(2, 4) } });
    expect(limited).toMatchObject({ status: 'partial', value: null, reasons: ['--limit 2: 2 of 4 problems were scored'] });
  });
});

const trackReport = (status: 'pass' | 'warn' | 'fail'): TrackReport => ({
  verdict: {
    status,
    reasons: status === 'fail' ? [{ check: 'quantization', message: '3 quantized weight tensor(s)' }] : [],
    warnings: status === 'warn' ? [{ check: 'dram', message: 'verdict from the estimate' }] : [],
  },
}) as unknown as TrackReport;

describe('eligibility', () => {
  const rule = { kind: 'track', track: 'edge-training' } as const;
  it('follows the track verdict: pass and warn are eligible, fail is not, each finding kept', () => {
    expect(judgeEligibility(rule, { kind: 'report', report: trackReport('pass') })).toEqual({ status: 'eligible', rule: 'check-track edge-training', reasons: [], warnings: [] });
    expect(judgeEligibility(rule, { kind: 'report', report: trackReport('warn') }).warnings).toEqual([{ check: 'dram', message: 'verdict from the estimate' }]);
    const failed = judgeEligibility(rule, { kind: 'report', report: trackReport('fail') });
    expect(failed).toMatchObject({ status: 'ineligible', reasons: [{ check: 'quantization', message: '3 quantized weight tensor(s)' }] });
  });

  it('is unchecked when the track check could not run, or the rules are about training', () => {
    expect(judgeEligibility(rule, { kind: 'not_run', reason: 'no base' })).toMatchObject({ status: 'unchecked', reasons: [{ check: 'track', message: 'no base' }] });
    const rules = judgeEligibility(mlrbTaskDefinition('babylm').eligibility, undefined);
    expect(rules.status).toBe('unchecked');
    expect(rules.reasons.map((reason) => reason.message)).toContain('trained from scratch');
  });
});

describe('run record schema', () => {
  const record: RunRecord = {
    schema: RUN_RECORD_SCHEMA,
    schema_version: RUN_RECORD_SCHEMA_VERSION,
    task: 'llm_merging',
    mini: false,
    mlrb_task: 'llm_merging',
    agent: 'claude',
    headline: { label: 'MMLU accuracy', source: { entry: 'mmlu', metric: 'acc,none' }, status: 'scored', value: 0.3, reasons: [] },
    eligibility: { status: 'unchecked', rule: 'unverifiable', reasons: [], warnings: [] },
    suites: [{ name: 'mmlu', status: 'scored', reason: null, error_code: null }],
    not_available: [],
    mini_note: null,
    lm_eval: { results: { mmlu_anatomy: { 'acc,none': 0.3 } } },
    math_reasoning: null,
    model_metrics: null,
    track_check: null,
    model: { path: 'm', file: '/m/model.onnx', sha256: 'a'.repeat(64), parameters: 10 },
    run: {
      tool_version: '0.1.0', started_at: '2026-01-01T00:00:00.000Z', wall_time_s: 1, data_dir: 'd', limit: null, num_fewshot: 0,
      allow_partial: false, provider: 'cpu', lm_eval_version: '0.4.4-0.4.8', data_fingerprint: null,
    },
  };

  it('reads back a record it describes', () => {
    expect(parseRunRecord(JSON.parse(JSON.stringify(record)))).toEqual(record);
  });

  it('reads a record written before math_reasoning existed as one without a generation report', () => {
    const { math_reasoning: _absent, ...older } = record;
    expect(parseRunRecord(JSON.parse(JSON.stringify(older)))).toEqual(record);
  });

  it('reads a version 1 record (written before model_metrics existed) as one without model metrics', () => {
    const { model_metrics: _absent, ...fields } = record;
    const v1 = { ...JSON.parse(JSON.stringify(fields)), schema_version: 1 };
    expect(parseRunRecord(v1)).toEqual({ ...record, schema_version: 1, model_metrics: null });
    // v1 as the first tool version wrote it, without math_reasoning either.
    const { math_reasoning: _older, ...oldest } = v1;
    expect(parseRunRecord(oldest)).toEqual({ ...record, schema_version: 1, model_metrics: null });
  });

  it('reads back model metrics with a perplexity not measured and why', () => {
    const modelMetrics: NonNullable<RunRecord['model_metrics']> = {
      metrics: [
        { name: 'tokens_per_second', status: 'measured', reason: null, error_code: null },
        { name: 'perplexity', status: 'not_measured', reason: 'WikiText-2 (raw) not found under d', error_code: 'BAD_DATA' },
        { name: 'latency', status: 'measured', reason: null, error_code: null },
      ],
      report: {
        schema: 'mlrb-eval/model-metrics', schema_version: 1, perplexity: null,
        tokens_per_second: { procedure: { timed_runs: 1 }, runs: [12.5], summary: { avg: 12.5, std: 0, median: 12.5, min: 12.5, max: 12.5, p90: 12.5, p95: 12.5 } },
        latency: { procedure: { timed_runs: 1 }, runs_ms: [512], ms_per_token: { avg: 1, median: 1, min: 1, max: 1, p90: 1, p95: 1 } },
      },
    };
    const withMetrics = { ...record, model_metrics: modelMetrics };
    expect(parseRunRecord(JSON.parse(JSON.stringify(withMetrics)))).toEqual(withMetrics);
  });

  it('EXPECTED FAILURE – another schema version, an unknown task, a bad hash or an extra field is refused', () => {
    expect(() => parseRunRecord({ ...record, schema_version: 3 })).toThrow(TypeError);
    // v2 always says whether model metrics were measured; v1 cannot hold them.
    const { model_metrics: _absent, ...withoutMetrics } = record;
    expect(() => parseRunRecord(withoutMetrics)).toThrow(/model_metrics/);
    expect(() => parseRunRecord({ ...record, schema_version: 1, model_metrics: { metrics: [], report: null } })).toThrow(/model_metrics/);
    expect(() => parseRunRecord({ ...record, task: 'budget_model_training' })).toThrow(/task/);
    expect(() => parseRunRecord({ ...record, model: { ...record.model, sha256: 'xyz' } })).toThrow(/sha256/);
    expect(() => parseRunRecord({ ...record, score: 1 })).toThrow(TypeError);
  });
});
