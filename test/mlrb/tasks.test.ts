/**
 * MLRB task definitions, headline and eligibility rules, and the run record's schema, on hand-made inputs.
 * Expectations are MLRB's published facts (the task prompts in ML-Research-Agent-Tasks' prompts.py, run.sh,
 * agent_eval's cli.py) as this file states them, not the definitions read back. The DRAM and track verdicts
 * the eligibility reads are built by the real check code (checkDramBudget, combineTrackVerdicts).
 */
import { describe, expect, it } from 'vitest';
import type { LmEvalResults } from '../../src/eval/result-types.js';
import { checkDramBudget, resolveBudget } from '../../src/inspect/dram/dram-check.js';
import type { DramEstimate } from '../../src/inspect/dram/estimate.js';
import type { DramMeasurement } from '../../src/inspect/dram/measure.js';
import type { TrackReport } from '../../src/inspect/track/track-check.js';
import { combineTrackVerdicts } from '../../src/inspect/track/verdict.js';
import { verdictOf } from '../../src/inspect/verdict.js';
import type { MathReasoningReport } from '../../src/math-reasoning/score.js';
import { judgeEligibility } from '../../src/mlrb/eligibility.js';
import { computeHeadline, LEAN_NEEDED } from '../../src/mlrb/headline.js';
import { runMlrbTask, type MlrbRunOptions } from '../../src/mlrb/run-task.js';
import { parseRunRecord, RUN_RECORD_SCHEMA, RUN_RECORD_SCHEMA_VERSION, type CurrentRunRecord, type SuiteOutcome } from '../../src/mlrb/run-record.js';
import type { HeadlineRule } from '../../src/mlrb/task-definition.js';
import { MLRB_TASK_NAMES, mlrbTaskDefinition, mlrbTaskNames, resolveMlrbTask, type MlrbTaskName } from '../../src/mlrb/tasks.js';
import { resolveTaskNames } from '../../src/tasks/task-names.js';

describe('MLRB task definitions', () => {
  it('has the seven tasks, each with a mini_ variant', () => {
    expect(MLRB_TASK_NAMES).toHaveLength(7);
    expect(mlrbTaskNames()).toHaveLength(14);
  });

  it.each(mlrbTaskNames())('%s: every suite is a --tasks name, the headline reads a headline suite, the source followed is one of its readings', (name) => {
    const { variant } = resolveMlrbTask(name);
    for (const suite of variant.suites) expect(() => resolveTaskNames(suite.name)).not.toThrow();
    if (variant.headline.kind === 'metric') {
      expect(variant.suites.filter((suite) => suite.role === 'headline').map((suite) => suite.name)).toEqual([variant.headline.suite]);
    } else {
      expect(variant.suites.filter((suite) => suite.role === 'headline')).toEqual([]);
    }
    expect(variant.readings).toContainEqual(variant.followed);
  });

  // What each task prompt's evaluation command runs (prompts.py: baby_lm 106, mini_pile 145, llm_efficiency 62,
  // llm_merging 281, edge_llm_compression 312, edge_llm_training 359); math_reasoning's prompt has no command.
  const HEADLINE_SUITES: Readonly<Record<MlrbTaskName, string | null>> = {
    minipile: 'superglue',
    babylm: 'blimp',
    llm_efficiency: 'mmlu',
    llm_merging: 'mmlu',
    edge_llm_compression: 'mmlu',
    edge_llm_training: 'superglue',
    math_reasoning: null,
  };

  it.each(MLRB_TASK_NAMES)("%s: the full task follows its prompt's command where it has one, else the paper", (name) => {
    const { full } = mlrbTaskDefinition(name);
    const headlineSuite = HEADLINE_SUITES[name];
    expect(full.followed.source).toBe(headlineSuite === null ? 'paper' : 'prompt');
    expect(full.headline.kind === 'metric' ? full.headline.suite : null).toBe(headlineSuite);
    expect(full.modelMetrics).toBe('on_request');
  });

  it("BabyLM headlines full BLiMP, with BabyLM 2024's filtered suites as extras; llm_efficiency keeps run_evals.sh's suites as extras", () => {
    expect(mlrbTaskDefinition('babylm').full.headline).toMatchObject({ kind: 'metric', suite: 'blimp', entry: 'blimp', metric: 'acc' });
    expect(mlrbTaskDefinition('babylm').full.suites).toEqual([
      { name: 'blimp', role: 'headline' },
      { name: 'blimp_filtered', role: 'extra' },
      { name: 'blimp_supplement', role: 'extra' },
      { name: 'ewok_filtered', role: 'extra' },
    ]);
    expect(
      mlrbTaskDefinition('llm_efficiency')
        .full.suites.filter((suite) => suite.role === 'extra')
        .map((suite) => suite.name),
    ).toEqual(['hellaswag', 'gsm8k', 'arc_easy', 'arc_challenge', 'blimp']);
    expect(mlrbTaskDefinition('math_reasoning').full.headline).toMatchObject({ kind: 'generated', metric: 'lean.compile_rate' });
    expect(mlrbTaskDefinition('edge_llm_compression').full.eligibility).toEqual({ kind: 'track', track: 'edge-compression' });
    expect(mlrbTaskDefinition('edge_llm_training').full.eligibility).toEqual({ kind: 'track', track: 'edge-training' });
  });

  it("math_reasoning names that MLRB's ROUGE/BLEU code was never wired into a task, and how ours differs", () => {
    const differences = mlrbTaskDefinition('math_reasoning').full.differences.join('\n');
    expect(differences).toMatch(/benchmark_rouge_l_score\(\) \(cli\.py:196\)/);
    expect(differences).toMatch(/informal_proof/);
    expect(differences).toMatch(/formal_proof/);
  });

  it.each(MLRB_TASK_NAMES)("mini_%s: agent-eval's four model metrics only, as the mini prompt's `agent-eval --task mini_X` runs them", (name) => {
    const { variant } = resolveMlrbTask(`mini_${name}`);
    expect(variant.suites).toEqual([]);
    expect(variant.modelMetrics).toBe('always');
    expect(variant.headline.kind).toBe('none');
    // prompts.py has a mini prompt for every task but edge_llm_training; agent_eval's cli.py:72 lists that one.
    expect(variant.followed.source).toBe(name === 'edge_llm_training' ? 'agent_eval' : 'prompt');
    if (name !== 'edge_llm_training') expect(variant.followed.says).toMatch(/agent-eval .*--task mini_/);
  });

  it("accepts MLRB's spellings and the mini_ prefix, and says which MLRB task ran", () => {
    expect(resolveMlrbTask('mini_pile')).toMatchObject({ mini: false, mlrbName: 'mini_pile', definition: { name: 'minipile' } });
    expect(resolveMlrbTask('mini_mini_pile')).toMatchObject({ mini: true, mlrbName: 'mini_mini_pile', definition: { name: 'minipile' } });
    expect(resolveMlrbTask('mini_minipile')).toMatchObject({ mini: true, mlrbName: 'mini_mini_pile' });
    expect(resolveMlrbTask('mini_baby_lm')).toMatchObject({ mini: true, definition: { name: 'babylm' } });
    expect(resolveMlrbTask('llm_merging')).toMatchObject({ mini: false, mlrbName: 'llm_merging' });
  });

  it('BAD CALL – options a variant cannot use are a TypeError before any work (no model is even looked for)', async () => {
    const run = (task: string, extra: Partial<MlrbRunOptions>) => runMlrbTask({ task, model: '/no/such/model', dataDir: '/no/such/data', ...extra });
    await expect(run('mini_babylm', { evaluate: { limit: 2 } })).rejects.toThrow(/limit applies to lm-eval suites, and mini_baby_lm runs none/);
    await expect(run('mini_llm_merging', { evaluate: { numFewshot: 5 } })).rejects.toThrow(TypeError);
    await expect(run('llm_merging', { track: { base: 'phi-2' } })).rejects.toThrow(/base \(--base\) applies only to edge_llm_compression/);
  });

  it('BAD CALL – unknown names (and prototype keys) are a RangeError listing the known tasks', () => {
    for (const name of ['pile', 'mini_', 'constructor', 'mini_constructor', 'budget_model_training']) {
      expect(() => resolveMlrbTask(name)).toThrow(RangeError);
    }
    expect(() => resolveMlrbTask('nope')).toThrow(/known: minipile, mini_minipile/);
  });
});

const MMLU_RULE = mlrbTaskDefinition('llm_merging').full.headline;
const results = (groups: Record<string, Record<string, number>>): LmEvalResults => ({ results: {}, groups }) as unknown as LmEvalResults;
const suite = (status: 'scored' | 'not_scored', reason: string | null = null): SuiteOutcome => ({
  name: 'mmlu',
  role: 'headline',
  status,
  reason,
  error_code: status === 'scored' ? null : 'BAD_DATA',
  fetch: null,
});
const scored = [suite('scored')];

describe('headline', () => {
  it("is the named suite's group metric when it was scored whole, and says which suite and entry", () => {
    const headline = computeHeadline({ rule: MMLU_RULE, suites: scored, results: results({ mmlu: { 'acc,none': 0.25 } }), limit: undefined });
    expect(headline).toMatchObject({ status: 'scored', value: 0.25, source: { kind: 'lm_eval', suite: 'mmlu', entry: 'mmlu', metric: 'acc,none' } });
  });

  it('has no number when the suite was not scored, and says why', () => {
    const headline = computeHeadline({ rule: MMLU_RULE, suites: [suite('not_scored', 'no MMLU data')], results: null, limit: undefined });
    expect(headline).toMatchObject({ status: 'not_scored', value: null });
    expect(headline.reasons[0]).toContain('no MMLU data');
  });

  it('has no number for a partial group or a --limit run', () => {
    expect(computeHeadline({ rule: MMLU_RULE, suites: scored, results: results({ mmlu_partial: { 'acc,none': 0.5 } }), limit: undefined })).toMatchObject({
      status: 'partial',
      value: null,
    });
    expect(computeHeadline({ rule: MMLU_RULE, suites: scored, results: results({ mmlu: { 'acc,none': 0.5 } }), limit: 5 })).toMatchObject({
      status: 'partial',
      value: null,
    });
  });

  it('math_reasoning: the Lean compile rate of the generation report; not scored without Lean or generation, partial under --limit', () => {
    const rule = mlrbTaskDefinition('math_reasoning').full.headline;
    const report = (scoredProblems: number, inFile: number, lean: MathReasoningReport['metrics']['lean']): MathReasoningReport => ({
      data_file: 'p.jsonl',
      problems_scored: scoredProblems,
      problems_in_file: inFile,
      settings: {
        template: 't',
        decoding: 'greedy',
        max_new_tokens: 200,
        max_prompt_tokens: 512,
        stop_strings: [],
        lean_timeout_s: null,
        lean_sandbox: null,
        rouge_stemmer: true,
      },
      metrics: { rouge_l: 0.375, bleu: 12.5, lean },
      problems: [],
    });
    const lean = { compiled: 3, failed: 1, timed_out: 0, compile_rate: 0.75 };
    const source = { kind: 'math_reasoning', metric: 'lean.compile_rate' };
    expect(computeHeadline({ rule, suites: [], results: null, limit: undefined })).toMatchObject({ status: 'not_scored', value: null, source });
    const missing = computeHeadline({
      rule,
      suites: [],
      results: null,
      limit: undefined,
      generated: { kind: 'not_scored', reason: 'BAD_DATA: problems.jsonl line 3 has no formal_proof' },
    });
    expect(missing).toMatchObject({ status: 'not_scored', reasons: ['BAD_DATA: problems.jsonl line 3 has no formal_proof'] });
    // ROUGE-L and BLEU without Lean are reported in math_reasoning, but they are not the headline.
    expect(computeHeadline({ rule, suites: [], results: null, limit: undefined, generated: { kind: 'scored', report: report(4, 4, null) } })).toMatchObject({
      status: 'not_scored',
      value: null,
      reasons: [LEAN_NEEDED],
    });
    expect(computeHeadline({ rule, suites: [], results: null, limit: undefined, generated: { kind: 'scored', report: report(4, 4, lean) } })).toMatchObject({
      status: 'scored',
      value: 0.75,
      source,
    });
    const limited = computeHeadline({ rule, suites: [], results: null, limit: 2, generated: { kind: 'scored', report: report(2, 4, lean) } });
    expect(limited).toMatchObject({ status: 'partial', value: null, reasons: ['--limit 2: 2 of 4 problems were scored'] });
  });

  it('a mini task has no headline number: MLRB defines none', () => {
    const rule: HeadlineRule = resolveMlrbTask('mini_llm_merging').variant.headline;
    expect(computeHeadline({ rule, suites: [], results: null, limit: undefined })).toMatchObject({
      status: 'unavailable',
      value: null,
      source: null,
      reasons: [expect.stringContaining('agent-eval --task mini_X')],
    });
  });
});

/** A DRAM check as checkDramBudget builds it: measured (peak bytes), a failed measurement, or the estimate only. */
function dramCheck(usedOrEstimate: number, kind: 'measured' | 'estimate' | 'failed', budgetBytes = 1e9) {
  const estimate = {
    contextTokens: 2000,
    batch: 1,
    weightBytes: 1,
    runtimeBytes: 1,
    kvCacheBytes: 0,
    activationBytes: 0,
    logitsBytes: 0,
    totalBytes: usedOrEstimate,
    inputLimit: null,
  } as unknown as DramEstimate;
  const measurement = kind === 'measured' ? ({ peakDeltaBytes: usedOrEstimate, devicePeakBytes: null } as unknown as DramMeasurement) : null;
  const error = kind === 'failed' ? { code: 'ORT_RUN', message: 'the probe crashed' } : null;
  return checkDramBudget(estimate, measurement, resolveBudget(undefined, budgetBytes), error);
}

function trackReport(dram: ReturnType<typeof dramCheck>, quantizationReasons: readonly string[] = []): TrackReport {
  const quantization = { verdict: verdictOf(quantizationReasons) };
  const dtype = { verdict: verdictOf([]) };
  return {
    track: 'edge-training',
    verdict: combineTrackVerdicts({ quantization: quantization.verdict, dtype: dtype.verdict, dram: dram.verdict }),
    checks: { quantization, dtype, dram },
  } as unknown as TrackReport;
}

describe('eligibility', () => {
  const rule = { kind: 'track', track: 'edge-training' } as const;
  const judge = (report: TrackReport) => judgeEligibility(rule, { kind: 'report', report });

  it('is eligible only when every gate was measured and passed', () => {
    expect(judge(trackReport(dramCheck(2e8, 'measured')))).toEqual({
      status: 'eligible',
      rule: 'check-track edge-training',
      gates: [
        { check: 'quantization', status: 'pass', reason: null },
        { check: 'dtype', status: 'pass', reason: null },
        { check: 'dram', status: 'pass', reason: null },
      ],
      reasons: [],
      warnings: [],
    });
  });

  it('is ineligible when a measured gate fails, each finding kept with its check', () => {
    const overBudget = judge(trackReport(dramCheck(3e9, 'measured')));
    expect(overBudget).toMatchObject({
      status: 'ineligible',
      gates: [
        { check: 'quantization', status: 'pass' },
        { check: 'dtype', status: 'pass' },
        { check: 'dram', status: 'fail' },
      ],
    });
    expect(overBudget.reasons).toEqual([expect.objectContaining({ check: 'dram', message: expect.stringMatching(/measured peak DRAM .* exceeds/) })]);
    expect(judge(trackReport(dramCheck(2e8, 'measured'), ['3 quantized weight tensor(s)']))).toMatchObject({
      status: 'ineligible',
      reasons: [{ check: 'quantization', message: '3 quantized weight tensor(s)' }],
    });
    // A measurement that failed is a finding of the measurement: the model could not be shown to fit.
    expect(judge(trackReport(dramCheck(2e8, 'failed')))).toMatchObject({
      status: 'ineligible',
      gates: [
        { check: 'quantization', status: 'pass' },
        { check: 'dtype', status: 'pass' },
        { check: 'dram', status: 'fail' },
      ],
    });
  });

  it('EXPECTED FAILURE – an estimate never grants eligibility (--skip-dram): the DRAM gate is not_judged and says how to measure', () => {
    const underBudget = judge(trackReport(dramCheck(2e8, 'estimate')));
    expect(underBudget.status).toBe('not_judged');
    expect(underBudget.gates).toEqual([
      { check: 'quantization', status: 'pass', reason: null },
      { check: 'dtype', status: 'pass', reason: null },
      { check: 'dram', status: 'not_judged', reason: expect.stringContaining('run without --skip-dram') },
    ]);
    expect(underBudget.reasons).toEqual([{ check: 'dram', message: expect.stringContaining('DRAM was not measured') }]);
  });

  it("EXPECTED FAILURE – an estimate over the budget does not decide either: not_judged, and the estimate's own reason is dropped", () => {
    const overBudget = judge(trackReport(dramCheck(3e9, 'estimate')));
    expect(overBudget.status).toBe('not_judged');
    expect(overBudget.reasons).toHaveLength(1);
    expect(overBudget.reasons[0]?.message).toMatch(/the estimate \(3\.00 GB.*\) judges nothing/);
  });

  it('an estimated DRAM beside a measured failing gate is ineligible: what was measured decides', () => {
    expect(judge(trackReport(dramCheck(2e8, 'estimate'), ['int8 weights']))).toMatchObject({
      status: 'ineligible',
      gates: [
        { check: 'quantization', status: 'fail' },
        { check: 'dtype', status: 'pass' },
        { check: 'dram', status: 'not_judged' },
      ],
    });
  });

  it('is not_judged when the track check could not run; unchecked when the rules are about training', () => {
    expect(judgeEligibility(rule, { kind: 'not_run', reason: 'no base' })).toMatchObject({
      status: 'not_judged',
      gates: [],
      reasons: [{ check: 'track', message: 'no base' }],
    });
    const rules = judgeEligibility(mlrbTaskDefinition('babylm').full.eligibility, undefined);
    expect(rules).toMatchObject({ status: 'unchecked', gates: [] });
    expect(rules.reasons.map((reason) => reason.message)).toContain('trained from scratch (prompts.py:99)');
  });
});

describe('run record schema', () => {
  const record: CurrentRunRecord = {
    schema: RUN_RECORD_SCHEMA,
    schema_version: RUN_RECORD_SCHEMA_VERSION,
    task: 'llm_merging',
    mini: false,
    mlrb_task: 'llm_merging',
    agent: 'claude',
    definition: {
      followed: { source: 'prompt', where: 'ML-Research-Agent-Tasks prompts.py', at: 'prompts.py:277-284', says: 'lm_eval --tasks mmlu' },
      why: 'the prompt',
      differences: [],
    },
    headline: {
      label: 'MMLU accuracy',
      source: { kind: 'lm_eval', suite: 'mmlu', entry: 'mmlu', metric: 'acc,none' },
      status: 'scored',
      value: 0.3,
      reasons: [],
    },
    eligibility: { status: 'unchecked', rule: 'unverifiable', gates: [], reasons: [], warnings: [] },
    suites: [{ name: 'mmlu', role: 'headline', status: 'scored', reason: null, error_code: null, fetch: null }],
    not_available: [],
    mini_note: null,
    lm_eval: { results: { mmlu_anatomy: { 'acc,none': 0.3 } } },
    math_reasoning: null,
    model_metrics: null,
    track_check: null,
    model: { path: 'm', file: '/m/model.onnx', sha256: 'a'.repeat(64), parameters: 10 },
    run: {
      tool_version: '0.1.0',
      started_at: '2026-01-01T00:00:00.000Z',
      wall_time_s: 1,
      data_dir: 'd',
      limit: null,
      num_fewshot: 0,
      allow_partial: false,
      provider: 'cpu',
      lm_eval_version: '0.4.4-0.4.8',
      data_fingerprint: null,
    },
  };

  /** The record as version 2 wrote it: no definition, gates, roles or fetch hints; the headline source as {entry, metric}. */
  const asVersion2 = (current: CurrentRunRecord): Record<string, unknown> => {
    const { definition: _definition, ...rest } = JSON.parse(JSON.stringify(current)) as CurrentRunRecord;
    return {
      ...rest,
      schema_version: 2,
      headline: {
        ...rest.headline,
        source: rest.headline.source?.kind === 'lm_eval' ? { entry: rest.headline.source.entry, metric: rest.headline.source.metric } : null,
      },
      eligibility: { status: rest.eligibility.status, rule: rest.eligibility.rule, reasons: rest.eligibility.reasons, warnings: rest.eligibility.warnings },
      suites: rest.suites.map(({ role: _role, fetch: _fetch, ...fields }) => fields),
    };
  };

  it('reads back a record it describes', () => {
    expect(parseRunRecord(JSON.parse(JSON.stringify(record)))).toEqual(record);
  });

  it("reads a version 2 record in version 3's shape, recording no source followed", () => {
    expect(parseRunRecord(asVersion2(record))).toEqual({ ...record, schema_version: 2, definition: null });
  });

  it('reads a version 1 record (before model_metrics, before math_reasoning) as one without them', () => {
    const { model_metrics: _absent, math_reasoning: _older, ...v1 } = asVersion2(record);
    expect(parseRunRecord({ ...v1, schema_version: 1 })).toEqual({ ...record, schema_version: 1, definition: null, model_metrics: null });
  });

  it('EXPECTED FAILURE – an old record\'s "eligible" drawn from a DRAM estimate reads as not_judged', () => {
    const estimated = {
      ...record,
      task: 'edge_llm_training' as const,
      eligibility: { status: 'eligible' as const, rule: 'check-track edge-training', gates: [], reasons: [], warnings: [] },
      track_check: { track: 'edge-training', verdict: { status: 'warn' }, checks: { dram: { basis: 'estimate', measurementError: null } } },
    };
    const read = parseRunRecord(asVersion2(estimated));
    expect(read.eligibility).toMatchObject({ status: 'not_judged', reasons: [{ check: 'dram', message: expect.stringContaining('not measured') }] });
    const measured = { ...estimated, track_check: { ...estimated.track_check, checks: { dram: { basis: 'measured', measurementError: null } } } };
    expect(parseRunRecord(asVersion2(measured)).eligibility.status).toBe('eligible');
  });

  it('reads back model metrics with a perplexity not measured, why, and what to fetch', () => {
    const fetch = {
      what: 'WikiText-2',
      hub: 'Salesforce/wikitext',
      place: 'd/wikitext',
      command: 'hf download Salesforce/wikitext --repo-type dataset --local-dir d/wikitext',
    };
    const modelMetrics: NonNullable<CurrentRunRecord['model_metrics']> = {
      metrics: [
        { name: 'tokens_per_second', status: 'measured', reason: null, error_code: null, fetch: null },
        { name: 'perplexity', status: 'not_measured', reason: 'WikiText-2 (raw) not found under d', error_code: 'BAD_DATA', fetch },
        { name: 'latency', status: 'measured', reason: null, error_code: null, fetch: null },
      ],
      report: {
        schema: 'mlrb-eval/model-metrics',
        schema_version: 1,
        perplexity: null,
        tokens_per_second: {
          procedure: { timed_runs: 1 },
          runs: [12.5],
          summary: { avg: 12.5, std: 0, median: 12.5, min: 12.5, max: 12.5, p90: 12.5, p95: 12.5 },
        },
        latency: { procedure: { timed_runs: 1 }, runs_ms: [512], ms_per_token: { avg: 1, median: 1, min: 1, max: 1, p90: 1, p95: 1 } },
      },
    };
    const withMetrics = { ...record, model_metrics: modelMetrics };
    expect(parseRunRecord(JSON.parse(JSON.stringify(withMetrics)))).toEqual(withMetrics);
  });

  it('EXPECTED FAILURE – another schema version, an unknown task, a bad hash, an unknown source or an extra field is refused', () => {
    expect(() => parseRunRecord({ ...record, schema_version: 4 })).toThrow(/schema_version is 4/);
    const { definition: _absent, ...withoutDefinition } = record;
    expect(() => parseRunRecord(withoutDefinition)).toThrow(/definition/);
    expect(() => parseRunRecord({ ...record, definition: { ...record.definition, followed: { ...record.definition.followed, source: 'rumour' } } })).toThrow(
      /source/,
    );
    expect(() => parseRunRecord({ ...record, schema_version: 2 })).toThrow(TypeError); // v2 has no definition
    expect(() => parseRunRecord({ ...record, task: 'budget_model_training' })).toThrow(/task/);
    expect(() => parseRunRecord({ ...record, model: { ...record.model, sha256: 'xyz' } })).toThrow(/sha256/);
    expect(() => parseRunRecord({ ...record, score: 1 })).toThrow(TypeError);
  });
});
