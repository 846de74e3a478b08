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
import { incompleteReasons } from '../../src/report/completeness.js';
import { writeTinyMmlu } from '../support/tiny-datasets.js';
import { FULL_TIER } from '../support/test-tier.js';

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

/**
 * Which source each task follows and the suite its headline is computed from, as MLRB's task prompts say
 * (prompts.py: baby_lm --tasks blimp at 106, mini_pile super-glue-lm-eval-v1 at 145, llm_efficiency mmlu at 62,
 * llm_merging mmlu at 281, edge_llm_compression mmlu at 312, edge_llm_training super-glue-lm-eval-v1 at 359);
 * math_reasoning's prompt runs nothing, so the paper (the Lean compile rate).
 */
const FOLLOWED: Readonly<Record<(typeof MLRB_TASK_NAMES)[number], { readonly source: string; readonly headlineSuite: string | null }>> = {
  minipile: { source: 'prompt', headlineSuite: 'superglue' },
  babylm: { source: 'prompt', headlineSuite: 'blimp' },
  llm_efficiency: { source: 'prompt', headlineSuite: 'mmlu' },
  llm_merging: { source: 'prompt', headlineSuite: 'mmlu' },
  edge_llm_compression: { source: 'prompt', headlineSuite: 'mmlu' },
  edge_llm_training: { source: 'prompt', headlineSuite: 'superglue' },
  math_reasoning: { source: 'paper', headlineSuite: null },
};

describe('mlrb-eval mlrb on generated data', () => {
  it.each(MLRB_TASK_NAMES)('%s: names the source it followed; the headline is computed from the named suite, as the plain eval of it gives', async (task) => {
    const edge = task.startsWith('edge_') ? ['--skip-dram'] : [];
    const record = await runTask([task, modelPath, '--data', dataDir, '--agent', 'fixture-agent', ...edge]);
    expect(record).toMatchObject({ task, mini: false, agent: 'fixture-agent' });
    const expected = FOLLOWED[task];
    expect(record.definition?.followed.source).toBe(expected.source);
    if (expected.source === 'prompt') expect(record.definition?.followed.at).toMatch(/^prompts\.py:\d+/);
    expect(record.suites.every((suite) => suite.status === 'scored')).toBe(true);
    const reference = await plainEval(
      modelPath,
      record.suites.map((suite) => suite.name),
      dataDir,
    );
    expect(record.lm_eval?.results).toEqual(reference.results);
    expect(record.lm_eval?.['groups']).toEqual(reference.groups);
    if (expected.headlineSuite === null) {
      // math_reasoning's headline is the compile rate of generated Lean, which this run was not given (--math-data).
      expect(record.headline).toMatchObject({ status: 'not_scored', value: null, source: { kind: 'math_reasoning', metric: 'lean.compile_rate' } });
      expect(record.headline.reasons[0]).toContain('AlgorithmicResearchGroup/math_reasoning_autoformalization_track');
      expect(record.math_reasoning).toBeNull();
    } else {
      const source = record.headline.source;
      expect(source).toMatchObject({ kind: 'lm_eval', suite: expected.headlineSuite });
      // The named suite alone, through the plain eval command: the headline is its number.
      const alone = await plainEval(modelPath, [expected.headlineSuite], dataDir);
      const entries = { ...(alone.results as Record<string, Record<string, number>>), ...(alone.groups as Record<string, Record<string, number>>) };
      const { entry, metric } = source?.kind === 'lm_eval' ? source : { entry: '', metric: '' };
      expect(record.headline).toMatchObject({ status: 'scored', value: entries[entry]?.[metric] });
      expect(typeof record.headline.value).toBe('number');
    }
    if (edge.length === 0) expect(record.eligibility.status).toBe('unchecked');
    expect(record.model.parameters).toBeGreaterThan(0);
  });

  it('edge_llm_training: eligible only when DRAM was measured; --skip-dram leaves the DRAM gate not judged and the record not eligible', async () => {
    // The DRAM measurement runs the track's 2,000-token input, so this model has the positions for it.
    const longModel = writeTinyCausalLm(path.join(workDir, 'model-2048'), { maxPositions: 2048 }).modelPath;
    const measured = await runTask(['edge_llm_training', longModel, '--data', dataDir]);
    expect(measured.eligibility).toMatchObject({ status: 'eligible', rule: 'check-track edge-training' });
    expect(measured.eligibility.gates).toEqual([
      { check: 'quantization', status: 'pass', reason: null },
      { check: 'dtype', status: 'pass', reason: null },
      { check: 'dram', status: 'pass', reason: null },
    ]);
    expect(measured.track_check?.track).toBe('edge-training');

    const skipped = await runTask(['edge_llm_training', modelPath, '--data', dataDir, '--skip-dram']);
    expect(skipped.headline.status).toBe('scored');
    expect(skipped.eligibility.status).toBe('not_judged');
    expect(skipped.eligibility.gates).toContainEqual({ check: 'dram', status: 'not_judged', reason: expect.stringContaining('run without --skip-dram') });
    // A budget the estimate far exceeds does not make it ineligible either: nothing was measured.
    const tiny = await runTask(['edge_llm_training', modelPath, '--data', dataDir, '--skip-dram', '--dram-budget', '1000']);
    expect(tiny.eligibility.status).toBe('not_judged');
  });

  it("edge_llm_compression: against Phi-2's config.json the lineage gate cannot be judged (no weights): not judged, never eligible; its MMLU is still scored", async () => {
    const record = await runTask(['edge_llm_compression', modelPath, '--data', dataDir, '--skip-dram']);
    expect(record.headline.status).toBe('scored');
    expect(record.eligibility.status).toBe('not_judged');
    expect(record.eligibility.gates).toContainEqual({ check: 'lineage', status: 'not_judged', reason: expect.stringContaining('has no weights to trace') });
    expect(record.eligibility.gates).toContainEqual({ check: 'dram', status: 'not_judged', reason: expect.any(String) });
  });

  it.each(['mini_llm_merging', 'mini_mini_pile', 'mini_math_reasoning'])(
    "%s runs agent-eval's four model metrics only: no suite, no headline, model metrics measured",
    async (task) => {
      const record = await runTask([
        task,
        modelPath,
        '--data',
        dataDir,
        '--tps-warmup',
        '0',
        '--tps-runs',
        '2',
        '--latency-warmup',
        '0',
        '--latency-runs',
        '2',
      ]);
      expect(record).toMatchObject({ mini: true, suites: [], lm_eval: null, math_reasoning: null, headline: { status: 'unavailable', value: null } });
      expect(record.definition?.followed).toMatchObject({ source: 'prompt', says: expect.stringContaining(`--task ${record.mlrb_task}`) });
      expect(record.model.parameters).toBeGreaterThan(0);
      const metrics = record.model_metrics;
      expect(metrics?.metrics.map((metric) => [metric.name, metric.status])).toEqual([
        ['tokens_per_second', 'measured'],
        ['perplexity', 'not_measured'],
        ['latency', 'measured'],
      ]);
      // No WikiText under --data: the record says what to fetch and where it goes.
      expect(metrics?.metrics[1]?.fetch).toEqual({
        what: expect.stringContaining('WikiText-2'),
        hub: 'Salesforce/wikitext',
        place: path.join(dataDir, 'wikitext'),
        command: expect.stringContaining('hf download Salesforce/wikitext'),
      });
      expect(metrics?.report?.latency?.runs_ms).toHaveLength(2);
      expect(record.not_available).toEqual([]);
    },
  );

  it('BAD CALL – a mini task refuses the lm-eval flags it has no suite for', async () => {
    for (const flag of [['--limit', '2'], ['--num-fewshot', '1'], ['--allow-partial']]) {
      const run = await runCli(['mlrb', 'mini_babylm', modelPath, ...flag]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${flag[0]} applies to lm-eval suites; mini_baby_lm runs only agent-eval's model metrics`);
    }
  });

  it('mini_edge_llm_compression: its assigned model is not Phi-2, so without --base the lineage gate cannot run: not judged', async () => {
    const record = await runTask([
      'mini_edge_llm_compression',
      modelPath,
      '--data',
      dataDir,
      '--skip-dram',
      '--tps-runs',
      '1',
      '--latency-runs',
      '1',
      '--tps-warmup',
      '0',
      '--latency-warmup',
      '0',
    ]);
    expect(record).toMatchObject({ mini: true, mlrb_task: 'mini_edge_llm_compression', eligibility: { status: 'not_judged' }, track_check: null });
    expect(record.definition?.differences.join(' ')).toContain('--base');
  });

  it('takes what an agent hands over: a Hugging Face folder with the ONNX export beside its weights, or the .onnx file alone', async () => {
    const handedOver = path.join(workDir, 'submission');
    cpSync(path.dirname(modelPath), handedOver, { recursive: true });
    writeFileSync(path.join(handedOver, 'model.safetensors'), Buffer.alloc(64));
    writeFileSync(path.join(handedOver, 'generation_config.json'), '{"bos_token_id": 1, "eos_token_id": 2}');
    const fromFolder = await runTask(['llm_merging', handedOver, '--data', dataDir]);
    const fromFile = await runTask(['llm_merging', path.join(handedOver, 'model.onnx'), '--data', dataDir]);
    expect(fromFolder.model.file).toBe(path.join(handedOver, 'model.onnx'));
    expect(fromFolder.model.sha256).toBe(fromFile.model.sha256);
    expect(fromFolder.headline.value).toBe(fromFile.headline.value);
  });

  it('EXPECTED FAILURE – missing data: each absent suite is "not scored" with its reason and what to fetch, the rest scored', async () => {
    const onlyMmlu = path.join(workDir, 'only-mmlu');
    cpSync(path.join(dataDir, 'mmlu'), path.join(onlyMmlu, 'mmlu'), { recursive: true });
    const efficiency = await runTask(['llm_efficiency', modelPath, '--data', onlyMmlu]);
    expect(efficiency.suites.filter((suite) => suite.status === 'scored').map((suite) => suite.name)).toEqual(['mmlu']);
    for (const suite of efficiency.suites.filter((outcome) => outcome.status === 'not_scored')) {
      expect(suite).toMatchObject({
        role: 'extra',
        error_code: 'BAD_DATA',
        reason: expect.stringMatching(/data/),
        fetch: { hub: expect.any(String), command: expect.stringContaining('hf download') },
      });
    }
    expect(efficiency.suites.find((suite) => suite.name === 'hellaswag')?.fetch).toMatchObject({
      hub: 'Rowan/hellaswag',
      place: path.join(onlyMmlu, 'hellaswag'),
    });
    expect(efficiency.headline.status).toBe('scored'); // MMLU was there; the extras do not make the run incomplete
    expect(incompleteReasons(efficiency)).toEqual([]);

    const babylm = await runTask(['babylm', modelPath, '--data', onlyMmlu]);
    expect(babylm.headline).toMatchObject({ status: 'not_scored', value: null });
    expect(babylm.suites[0]).toMatchObject({ name: 'blimp', role: 'headline', fetch: { hub: 'nyu-mll/blimp', place: path.join(onlyMmlu, 'blimp') } });
    expect(babylm.suites[1]).toMatchObject({
      name: 'blimp_filtered',
      fetch: { hub: null, place: path.join(onlyMmlu, 'evaluation_data', 'blimp_filtered'), command: null },
    });
    expect(babylm.lm_eval).toBeNull();
    expect(babylm.model.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(incompleteReasons(babylm)).toEqual(['blimp not scored']);
  });

  it('--limit leaves the headline without a number (partial)', async () => {
    const record = await runTask(['llm_merging', modelPath, '--data', dataDir, '--limit', '2']);
    expect(record.headline).toMatchObject({ status: 'partial', value: null });
    expect(record.run.limit).toBe(2);
  });

  it('math_reasoning with --math-data and --lean: the headline is the compile rate, with BLEU and ROUGE-L beside it', async () => {
    const problems = path.join(workDir, 'math.jsonl');
    const reference = 'theorem two : 1 + 1 = 2 := rfl';
    writeFileSync(problems, `${JSON.stringify({ name: 'two', informal_statement: '1 + 1 = 2', informal_proof: 'compute', formal_proof: reference })}\n`);
    const fakeLean = path.join(repoRoot, 'test', 'support', 'fake-lean.mjs');
    const services = fakeGeneratorServices(() => reference);
    const record = await runTask(['math_reasoning', modelPath, '--data', dataDir, '--math-data', problems, '--lean', fakeLean], services);
    expect(record.headline).toMatchObject({ status: 'scored', value: 1, source: { kind: 'math_reasoning', metric: 'lean.compile_rate' } });
    expect(record.math_reasoning?.metrics).toEqual({
      rouge_l: 1,
      bleu: expect.closeTo(100, 9),
      lean: { compiled: 1, failed: 0, timed_out: 0, compile_rate: 1 },
    });
    expect(record.suites.every((suite) => suite.status === 'scored')).toBe(true);
    expect(services.closed).toBe(1);

    expect(record.math_reasoning?.settings).toMatchObject({ rouge_stemmer: true }); // MLRB's evaluate rouge stems

    // 'theorems' meets 'theorem' only through the stemmer: [theorems two 1 1 2 rfl] vs [theorem two 1 1 2 rfl], F = 5/6.
    // Without --lean there is no compile rate: no headline, and BLEU and ROUGE-L are still reported.
    const noLean = await runTask(
      ['math_reasoning', modelPath, '--data', dataDir, '--math-data', problems],
      fakeGeneratorServices(() => reference),
    );
    expect(noLean.headline).toMatchObject({ status: 'not_scored', value: null, reasons: [expect.stringContaining('--lean')] });
    expect(noLean.math_reasoning?.metrics).toMatchObject({ rouge_l: 1, lean: null });

    const limited = await runTask(
      ['math_reasoning', modelPath, '--data', dataDir, '--math-data', problems, '--limit', '1', '--no-rouge-stemmer', '--lean', fakeLean],
      fakeGeneratorServices(() => reference.replace('theorem', 'theorems')),
    );
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
    expect(bad.stderr).toMatch(/^mlrb-eval: mlrb: unknown MLRB task "budget_model_training"; known: .*\nsee 'mlrb-eval mlrb --help'\n$/);
    const typo = await runCli(['mlrb', 'mini_piel', modelPath]);
    expect(typo.stderr).toMatch(/^mlrb-eval: mlrb: unknown MLRB task "mini_piel"; did you mean "mini_pile"\?; known: /);
  });
});

describe.skipIf(!hasShared)('mlrb-eval mlrb on stories260K with ../shared data', () => {
  it.runIf(FULL_TIER)(
    "babylm headlines full BLiMP from ../shared/data/blimp, as `mlrb-eval MODEL --tasks blimp` gives it; BabyLM's extras say what to fetch",
    async () => {
      const data = path.join(sharedDir, 'data');
      const record = await runTask(['babylm', sharedPaths.stories, '--data', data]);
      const reference = await plainEval(sharedPaths.stories, ['blimp'], data);
      const blimp = (reference.groups as Record<string, Record<string, number>>)['blimp'];
      expect(record.headline).toMatchObject({
        status: 'scored',
        value: blimp?.['acc,none'],
        source: { kind: 'lm_eval', suite: 'blimp', entry: 'blimp', metric: 'acc,none' },
      });
      expect(record.lm_eval?.results).toEqual(reference.results);
      expect(record.definition?.followed).toMatchObject({ source: 'prompt', at: 'prompts.py:102-109' });
      expect(record.suites.map((suite) => [suite.name, suite.role, suite.status])).toEqual([
        ['blimp', 'headline', 'scored'],
        ['blimp_filtered', 'extra', 'not_scored'],
        ['blimp_supplement', 'extra', 'not_scored'],
        ['ewok_filtered', 'extra', 'not_scored'],
      ]);
      expect(incompleteReasons(record)).toEqual([]);
    },
  );

  it('math_reasoning: the three MMLU subjects equal the plain eval; no headline without --math-data', async () => {
    const data = path.join(sharedDir, 'data');
    const record = await runTask(['math_reasoning', sharedPaths.stories, '--data', data]);
    const reference = await plainEval(
      sharedPaths.stories,
      record.suites.map((suite) => suite.name),
      data,
    );
    expect(record.lm_eval?.results).toEqual(reference.results);
    expect(record.headline.status).toBe('not_scored');
  });

  it('minipile: ../shared has SuperGLUE without ReCoRD, so the suite is not scored unless --allow-partial, and then partial', async () => {
    const data = path.join(sharedDir, 'data');
    const strict = await runTask(['minipile', sharedPaths.stories, '--data', data]);
    expect(strict.suites[0]).toMatchObject({ status: 'not_scored', error_code: 'BAD_DATA' });
    // The record says which file is missing, in the layout the folder is read in, and where it comes from.
    expect(strict.suites[0]?.reason).toContain('lacks ReCoRD/val.jsonl: unzip https://dl.fbaipublicfiles.com/glue/superglue/data/v2/ReCoRD.zip into');
    expect(strict.suites[0]?.reason).toContain('hf download aps/super_glue --repo-type dataset --local-dir NEW_FOLDER');
    const partial = await runTask(['minipile', sharedPaths.stories, '--data', data, '--allow-partial', '--limit', '20']);
    expect(partial.headline).toMatchObject({ status: 'partial', value: null });
  });
});
