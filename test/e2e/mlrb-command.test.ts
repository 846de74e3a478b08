/**
 * `mlrb-eval mlrb TASK MODEL` end to end: every task on a tiny model and generated data in one folder, and on
 * stories260K with ../shared's data where present. The independent reference for the scores is the plain eval
 * command over the same suites (`mlrb-eval MODEL --tasks …`); eligibility comes from how the model was built.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import type { CliServices } from '../../src/cli/main.js';
import { parseRunRecord, type RunRecord } from '../../src/mlrb/run-record.js';
import { MLRB_TASK_NAMES } from '../../src/mlrb/tasks.js';
import { writeBabyLmFixture } from '../support/babylm-fixtures.js';
import { writeFullBlimp } from '../support/full-blimp.js';
import { fakeGeneratorServices } from '../support/fake-generator-services.js';
import { runCli } from '../support/run-cli.js';
import { hasShared, repoRoot, sharedDir, sharedPaths } from '../support/shared-data.js';
import { writeSuperGlueFixture } from '../support/superglue-fixtures.js';
import { writeTinyMmlu } from '../support/tiny-datasets.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-task-'));
const releaseFixtures = path.join(repoRoot, 'test', 'fixtures', 'tasks', 'release');
let modelPath = '';
/** One folder with a sub-folder per suite: every suite any MLRB task runs. */
let dataDir = '';

beforeAll(() => {
  // 512 positions: gsm8k (llm_efficiency) keeps max_gen_toks = 256 of them for the answer.
  modelPath = writeTinyCausalLm(path.join(workDir, 'model'), { maxPositions: 512, pastConvention: 'optimum' }).modelPath;
  dataDir = path.join(workDir, 'data');
  writeTinyMmlu(path.join(dataDir, 'mmlu'));
  writeFullBlimp(path.join(dataDir, 'blimp'));
  cpSync(writeSuperGlueFixture(), path.join(dataDir, 'superglue'), { recursive: true });
  cpSync(writeBabyLmFixture(), path.join(dataDir, 'evaluation_data'), { recursive: true });
  cpSync(path.join(releaseFixtures, 'evaluation_data', 'ewok_filtered'), path.join(dataDir, 'evaluation_data', 'ewok_filtered'), { recursive: true });
  cpSync(path.join(releaseFixtures, 'hellaswag'), path.join(dataDir, 'hellaswag'), { recursive: true });
  cpSync(path.join(repoRoot, 'test', 'fixtures', 'tasks', 'gsm8k', 'hub'), path.join(dataDir, 'gsm8k'), { recursive: true });
  for (const arc of ['ARC-Easy', 'ARC-Challenge']) cpSync(path.join(releaseFixtures, 'ARC-V1-Feb2018-2', arc), path.join(dataDir, arc), { recursive: true });
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

let recordsWritten = 0;
async function runTask(args: readonly string[], services?: CliServices): Promise<RunRecord> {
  // Numbered, not named after the arguments: those hold temporary paths and outgrow a file name's 255 bytes.
  recordsWritten += 1;
  const output = path.join(workDir, 'records', `${args[0] ?? 'task'}-${recordsWritten}.json`);
  const run = await runCli(['mlrb', ...args, '--output', output], services);
  expect(run.code, run.stderr).toBe(0);
  return parseRunRecord(JSON.parse(readFileSync(output, 'utf8')));
}

/** The plain eval command's results over `tasks`: the reference a record's lm_eval must equal. */
async function plainEval(model: string, tasks: readonly string[], data: string, extra: readonly string[] = []): Promise<{ results: unknown; groups: unknown }> {
  const output = path.join(workDir, 'plain', `${tasks.join('_')}.json`);
  mkdirSync(path.dirname(output), { recursive: true });
  const run = await runCli([model, '--tasks', tasks.join(','), '--data', data, '--output', output, '--quiet', ...extra]);
  expect(run.code, run.stderr).toBe(0);
  const file = JSON.parse(readFileSync(output, 'utf8')) as { results: unknown; groups?: unknown };
  return { results: file.results, groups: file.groups };
}

describe('mlrb-eval mlrb on generated data', () => {
  it.each(MLRB_TASK_NAMES.filter((name) => !name.startsWith('edge_')))('%s: scores every suite the data has, as the plain eval does', async (task) => {
    const record = await runTask([task, modelPath, '--data', dataDir, '--agent', 'fixture-agent']);
    expect(record).toMatchObject({ task, mini: false, agent: 'fixture-agent' });
    expect(record.suites.every((suite) => suite.status === 'scored')).toBe(true);
    const reference = await plainEval(modelPath, record.suites.map((suite) => suite.name), dataDir);
    expect(record.lm_eval?.results).toEqual(reference.results);
    expect(record.lm_eval?.['groups']).toEqual(reference.groups);
    if (record.headline.source === null) {
      // math_reasoning's headline comes from generation, which this run was not given (--math-data).
      expect(record.headline).toMatchObject({ status: 'not_scored', value: null, reasons: [expect.stringContaining('--math-data')] });
      expect(record.math_reasoning).toBeNull();
    } else {
      const groups = reference.groups as Record<string, Record<string, number>>;
      expect(record.headline).toMatchObject({ status: 'scored', value: groups[record.headline.source.entry]?.[record.headline.source.metric] });
    }
    expect(record.eligibility.status).toBe('unchecked');
    expect(record.model.parameters).toBeGreaterThan(0);
  });

  it('edge_llm_training: SuperGLUE score, and the training track judges an fp32 model eligible (estimate: a warning)', async () => {
    const record = await runTask(['edge_llm_training', modelPath, '--data', dataDir, '--skip-dram']);
    expect(record.headline.status).toBe('scored');
    expect(record.eligibility).toMatchObject({ status: 'eligible', rule: 'check-track edge-training' });
    expect(record.eligibility.warnings.map((warning) => warning.check)).toContain('dram');
    expect(record.track_check?.track).toBe('edge-training');
  });

  it('edge_llm_compression: a model not pruned from Phi-2 is ineligible on the pruning check; its MMLU is still scored', async () => {
    const record = await runTask(['edge_llm_compression', modelPath, '--data', dataDir, '--skip-dram']);
    expect(record.headline.status).toBe('scored');
    expect(record.eligibility.status).toBe('ineligible');
    expect(record.eligibility.reasons.map((reason) => reason.check)).toContain('pruning');
  });

  it('mini_edge_llm_compression without --base: the pruning cannot be judged, and the record says why', async () => {
    const record = await runTask(['mini_edge_llm_compression', modelPath, '--data', dataDir, '--skip-dram']);
    expect(record).toMatchObject({ mini: true, mlrb_task: 'mini_edge_llm_compression', eligibility: { status: 'unchecked' }, track_check: null });
    expect(record.mini_note).toContain('--base');
  });

  it('EXPECTED FAILURE – missing data: each absent suite is "not scored" with its reason, the rest scored, no headline number', async () => {
    const onlyMmlu = path.join(workDir, 'only-mmlu');
    cpSync(path.join(dataDir, 'mmlu'), path.join(onlyMmlu, 'mmlu'), { recursive: true });
    const efficiency = await runTask(['llm_efficiency', modelPath, '--data', onlyMmlu]);
    expect(efficiency.suites.filter((suite) => suite.status === 'scored').map((suite) => suite.name)).toEqual(['mmlu']);
    for (const suite of efficiency.suites.filter((outcome) => outcome.status === 'not_scored')) expect(suite).toMatchObject({ error_code: 'BAD_DATA', reason: expect.stringMatching(/data/) });
    expect(efficiency.headline.status).toBe('scored'); // MMLU was there

    const babylm = await runTask(['babylm', modelPath, '--data', onlyMmlu]);
    expect(babylm.headline).toMatchObject({ status: 'not_scored', value: null });
    expect(babylm.lm_eval).toBeNull();
    expect(babylm.model.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('--limit leaves the headline without a number (partial)', async () => {
    const record = await runTask(['llm_merging', modelPath, '--data', dataDir, '--limit', '2']);
    expect(record.headline).toMatchObject({ status: 'partial', value: null });
    expect(record.run.limit).toBe(2);
  });

  it('math_reasoning with --math-data: the headline is the generation report\'s ROUGE-L, with BLEU and the compile rate beside it', async () => {
    const problems = path.join(workDir, 'math.jsonl');
    const reference = 'theorem two : 1 + 1 = 2 := rfl';
    writeFileSync(problems, `${JSON.stringify({ name: 'two', informal_statement: '1 + 1 = 2', informal_proof: 'compute', formal_proof: reference })}\n`);
    const fakeLean = path.join(repoRoot, 'test', 'support', 'fake-lean.mjs');
    const services = fakeGeneratorServices(() => reference);
    const record = await runTask(['math_reasoning', modelPath, '--data', dataDir, '--math-data', problems, '--lean', fakeLean], services);
    expect(record.headline).toMatchObject({ status: 'scored', value: 1, source: null });
    expect(record.math_reasoning?.metrics).toEqual({ rouge_l: 1, bleu: expect.closeTo(100, 9), lean: { compiled: 1, failed: 0, timed_out: 0, compile_rate: 1 } });
    expect(record.suites.every((suite) => suite.status === 'scored')).toBe(true);
    expect(services.closed).toBe(1);

    expect(record.math_reasoning?.settings).toMatchObject({ rouge_stemmer: true }); // MLRB's evaluate rouge stems

    // 'theorems' meets 'theorem' only through the stemmer: [theorems two 1 1 2 rfl] vs [theorem two 1 1 2 rfl], F = 5/6.
    const limited = await runTask(['math_reasoning', modelPath, '--data', dataDir, '--math-data', problems, '--limit', '1', '--no-rouge-stemmer'], fakeGeneratorServices(() => reference.replace('theorem', 'theorems')));
    expect(limited.headline.status).toBe('partial'); // --limit also cuts the lm-eval suites: never a headline
    expect(limited.math_reasoning?.settings).toMatchObject({ rouge_stemmer: false });
    expect(limited.math_reasoning?.metrics.rouge_l).toBeCloseTo(5 / 6, 15);

    const misplaced = await runCli(['mlrb', 'llm_merging', modelPath, '--math-data', problems]);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('--math-data applies only to math_reasoning');
    const stemmerAlone = await runCli(['mlrb', 'math_reasoning', modelPath, '--no-rouge-stemmer']);
    expect(stemmerAlone.code).toBe(2);
    expect(stemmerAlone.stderr).toContain('--no-rouge-stemmer needs --math-data');
  });

  it('prints the record to stdout without --output; BAD CALL – an unknown task exits 2', async () => {
    const run = await runCli(['mlrb', 'math_reasoning', modelPath, '--data', dataDir]);
    expect(run.code).toBe(0);
    expect(parseRunRecord(JSON.parse(run.stdout)).headline.status).toBe('not_scored');
    const bad = await runCli(['mlrb', 'budget_model_training', modelPath]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown MLRB task');
  });
});

describe.skipIf(!hasShared)('mlrb-eval mlrb on stories260K with ../shared data', () => {
  it('math_reasoning: the three MMLU subjects equal the plain eval; no headline without --math-data', async () => {
    const data = path.join(sharedDir, 'data');
    const record = await runTask(['math_reasoning', sharedPaths.stories, '--data', data]);
    const reference = await plainEval(sharedPaths.stories, record.suites.map((suite) => suite.name), data);
    expect(record.lm_eval?.results).toEqual(reference.results);
    expect(record.headline.status).toBe('not_scored');
  });

  it('minipile: ../shared has SuperGLUE without ReCoRD, so the suite is not scored unless --allow-partial, and then partial', async () => {
    const data = path.join(sharedDir, 'data');
    const strict = await runTask(['minipile', sharedPaths.stories, '--data', data]);
    expect(strict.suites[0]).toMatchObject({ status: 'not_scored', error_code: 'BAD_DATA' });
    const partial = await runTask(['minipile', sharedPaths.stories, '--data', data, '--allow-partial', '--limit', '20']);
    expect(partial.headline).toMatchObject({ status: 'partial', value: null });
  });
});
