/**
 * `check-track` end to end on the edge fixtures: a base tiny LM, its int8-quantized copy and a head-pruned
 * copy. Expectations come from how each fixture was built (what was quantized, pruned, how many bytes its
 * initializers hold) and from Phi-2's published config, never from the checks' own output.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildEdgeBase,
  EDGE_BASE_OPTIONS,
  floatParameters,
  initializerBytes,
  pruneHeads,
  quantizeWeightsInt8,
  storedElements,
  writeEdgeModel,
} from '../support/model-builders/edge-fixtures.js';
import { tinyLmConfigJson } from '../support/model-builders/tiny-causal-lm.js';
import { PHI2_CONFIG_PATH } from '../../src/inspect/config/phi2-config.js';
import { checkTrack, type TrackReport } from '../../src/inspect/track/track-check.js';
import { disguiseFixturePaths } from '../inspect/support/disguise-fixtures.js';
import { PHI2 } from '../inspect/support/synthetic-phi2.js';
import { useTempDirectory } from '../inspect/support/tmp-dir.js';
import { runCli } from '../support/run-cli.js';

const tempPath = useTempDirectory('check-track');
// The tracks measure DRAM on 2,000 tokens (the Edge-LLM kit's input), so the fixture's learned position table
// gets 2,048 rows; otherwise the edge fixture: 3 layers, 4 heads of 8, FFN 64, hidden 32, vocab 64, fp32.
const KIT_TOKENS = 2000;
const base = buildEdgeBase({ ...EDGE_BASE_OPTIONS, maxPositions: 2048 });
const basePath = writeEdgeModel(tempPath('base'), base, base.model);
const configPath = tempPath('base-config.json');
writeFileSync(configPath, JSON.stringify(tinyLmConfigJson(base.options)));
const quantizedModel = quantizeWeightsInt8(base.model);
const quantizedPath = writeEdgeModel(tempPath('quantized'), base, quantizedModel);
const prunedModel = pruneHeads(base, base.model, 1, [0, 3]); // layer 1 keeps 2 of its 4 heads
const prunedPath = writeEdgeModel(tempPath('pruned'), base, prunedModel);

/**
 * The independent counts, from the builder's tensor list: parameters are counted from storage (every element it
 * wrote); a config.json base is counted by its architecture's formula, which knows only the float weights.
 */
const configBaseParameters = floatParameters(base.model);

const messagesOf = (report: TrackReport, check: string): string[] =>
  report.verdict.reasons.filter((finding) => finding.check === check).map((finding) => finding.message);

describe('checkTrack: edge-training', () => {
  it('passes a small fp32 model on the measured DRAM, within the 1 GB limit, with no pruning check', async () => {
    const report = await checkTrack('edge-training', basePath, { threads: 1 });
    expect(report.verdict).toEqual({ status: 'pass', reasons: [], warnings: [] });
    expect(report.checks.dram.budget).toMatchObject({ bytes: 1e9, gb: 1, source: 'edge-training' });
    expect(report.checks.dram.basis).toBe('measured');
    expect(report.checks.dram.measurement?.tokens).toBe(KIT_TOKENS);
    expect(report.pruning).toBeUndefined();
    expect(report.checks.lineage).toBeUndefined();
    expect(report.rules.unchecked.join(' ')).toContain('C4 and Alpaca');
    expect(report.inspect.parameters.total).toBe(storedElements(base.model));
  });

  it('EXPECTED FAILURE – over the DRAM limit (an operator override of 1 kB) fails on the dram check alone', async () => {
    const report = await checkTrack('edge-training', basePath, { dramBudgetBytes: 1000, threads: 1 });
    expect(report.verdict.status).toBe('fail');
    expect(report.verdict.reasons.map((finding) => finding.check)).toEqual(['dram']);
    expect(messagesOf(report, 'dram')[0]).toMatch(/^measured peak DRAM .* exceeds the DRAM budget of 1.00 kB/);
  });

  it('EXPECTED FAILURE – a model whose position table cannot hold the 2,000-token input fails on dram', async () => {
    const short = buildEdgeBase(EDGE_BASE_OPTIONS); // a learned position table of maxPositions rows
    expect(short.options.maxPositions).toBeLessThan(KIT_TOKENS);
    const report = await checkTrack('edge-training', writeEdgeModel(tempPath('short'), short, short.model), { threads: 1 });
    expect(report.verdict.status).toBe('fail');
    expect(report.verdict.reasons.map((finding) => finding.check)).toEqual(['dram']);
    expect(messagesOf(report, 'dram')[0]).toMatch(/^the DRAM measurement failed \(BAD_MODEL\)/);
  });

  it('without the measurement, judges the estimate, warns so, and fails a limit below the weight bytes', async () => {
    const estimated = await checkTrack('edge-training', basePath, { measureDram: false });
    expect(estimated.verdict.status).toBe('warn');
    expect(estimated.verdict.warnings).toEqual([{ check: 'dram', message: 'verdict from the estimate: no measurement was made' }]);
    expect(estimated.checks.dram.measurement).toBeNull();
    const weights = initializerBytes(base.model); // the estimate is weights plus more, so any smaller limit fails
    const over = await checkTrack('edge-training', basePath, { measureDram: false, dramBudgetBytes: weights - 1 });
    expect(messagesOf(over, 'dram')[0]).toMatch(/^estimated DRAM .* exceeds the DRAM budget/);
  });

  it('EXPECTED FAILURE – an int8-quantized model fails on the quantization check', async () => {
    const report = await checkTrack('edge-training', quantizedPath, { measureDram: false });
    expect(report.verdict.status).toBe('fail');
    const quantizedMatrices = quantizedModel.graph.initializers.filter((tensor) => tensor.elementType === 'int8' && tensor.dims.length === 2);
    expect(messagesOf(report, 'quantization').join('\n')).toContain(`${quantizedMatrices.length} quantized weight tensor(s)`);
  });
});

describe('checkTrack: edge-compression', () => {
  it('a structurally pruned fp32 model against a config base: every rule gate passes, lineage is not judged (a config has no weights)', async () => {
    const report = await checkTrack('edge-compression', prunedPath, { base: configPath, threads: 1 });
    expect(report.verdict.reasons).toEqual([]);
    expect(report.verdict.status).toBe('warn');
    expect(report.verdict.warnings).toEqual([{ check: 'lineage', message: expect.stringContaining('has no weights to trace') }]);
    expect(report.checks.lineage).toMatchObject({ status: 'not-judged', baseKind: 'config' });
    expect(report.checks.dram.budget).toMatchObject({ bytes: 12e9, gb: 12, source: 'edge-compression' });
    expect(report.checks.dram.basis).toBe('measured');
    expect(report.rules.unchecked.join(' ')).toContain('no distillation');
    const removed = configBaseParameters - storedElements(prunedModel);
    expect(report.pruning?.percentRemoved).toBeCloseTo((100 * removed) / configBaseParameters, 10);
  });

  it("an unpruned model is not failed for it (the rules ask for no parameters removed): check-pruning's own verdict says so, as information", async () => {
    const report = await checkTrack('edge-compression', basePath, { base: configPath, measureDram: false });
    expect(report.verdict.reasons).toEqual([]);
    // The stored shape constants are a few elements more than the formula's weights: about 0 %, a hair below.
    expect(report.pruning?.percentRemoved).toBeCloseTo((100 * (configBaseParameters - storedElements(base.model))) / configBaseParameters, 10);
    expect(Math.abs(report.pruning!.percentRemoved)).toBeLessThan(0.1);
    expect(report.pruning?.verdict.reasons.some((message) => message.startsWith('no parameters were removed'))).toBe(true);
  });

  it('EXPECTED FAILURE – a quantized model fails with the quantization reason', async () => {
    const report = await checkTrack('edge-compression', quantizedPath, { base: configPath, measureDram: false });
    expect(report.verdict.status).toBe('fail');
    expect(messagesOf(report, 'quantization').join('\n')).toMatch(/quantized weight tensor\(s\).*int8/);
    expect(messagesOf(report, 'quantization').join('\n')).toContain('DequantizeLinear');
  });

  it('EXPECTED FAILURE – weights stored as bit-planes or strings fail the quantization gate; the same model factored at low rank passes it', async () => {
    const disguise = disguiseFixturePaths('check-track-disguise');
    for (const file of ['bitplanes-cast-sum.onnx.gz', 'strings-decimal.onnx.gz']) {
      const report = await checkTrack('edge-training', disguise(file), { measureDram: false });
      expect(report.verdict.status, file).toBe('fail');
      expect(messagesOf(report, 'quantization').join('\n'), file).toContain('not stored float data read through layout-only ops');
    }
    const honest = await checkTrack('edge-training', disguise('honest-low-rank.onnx.gz'), { measureDram: false });
    expect(honest.verdict.reasons).toEqual([]);
  });

  it('compares with Phi-2 by default, from the config.json shipped with the package', async () => {
    const shipped = JSON.parse(readFileSync(PHI2_CONFIG_PATH, 'utf8')) as Record<string, unknown>;
    expect(shipped).toMatchObject({
      architectures: ['PhiForCausalLM'],
      model_type: 'phi',
      hidden_size: 2560,
      num_hidden_layers: 32,
      num_attention_heads: 32,
      intermediate_size: 10240,
      vocab_size: 51200,
      partial_rotary_factor: 0.4,
      max_position_embeddings: 2048,
      layer_norm_eps: 1e-5,
      tie_word_embeddings: false,
      hidden_act: 'gelu_new',
    });
    const report = await checkTrack('edge-compression', prunedPath, { measureDram: false });
    expect(report.pruning?.base).toMatchObject({
      kind: 'config',
      source: PHI2_CONFIG_PATH,
      hidden: PHI2.hidden,
      layerCount: PHI2.layers,
      heads: PHI2.heads,
      headDim: PHI2.headDim,
      intermediate: PHI2.intermediate,
      vocab: PHI2.vocab,
    });
    // A vocabulary change is check-pruning's finding, information only: the rules allow vocabulary pruning.
    expect(report.pruning?.verdict.reasons).toContain(`vocabulary changed: ${base.options.vocabSize} tokens where the base has ${PHI2.vocab}`);
    expect(report.verdict.reasons).toEqual([]);
    expect(report.checks.lineage?.status).toBe('not-judged');
  });

  it('BAD CALL – an unknown track is a RangeError, bad options and a base for edge-training TypeErrors', async () => {
    await expect(checkTrack('edge-mystery' as never, basePath)).rejects.toThrow(RangeError);
    await expect(checkTrack('edge-training', basePath, { dramBudgetBytes: -5 })).rejects.toThrow(TypeError);
    await expect(checkTrack('edge-training', basePath, { provider: 'tpu' } as never)).rejects.toThrow(TypeError);
    await expect(checkTrack('edge-training', basePath, { surprise: true } as never)).rejects.toThrow(TypeError);
    await expect(checkTrack('edge-training', basePath, { base: configPath })).rejects.toThrow(/applies only to edge-compression/);
  });
});

describe('mlrb-eval check-track', () => {
  it('prints one row per check with its figures and the verdict with labelled reasons; exit 0 without --strict', async () => {
    const { code, stdout } = await runCli(['check-track', 'edge-compression', quantizedPath, '--base', configPath, '--skip-dram']);
    expect(code).toBe(0);
    expect(stdout).toContain('Track: edge-compression');
    expect(stdout).toMatch(/\nquantization +FAIL +\d+ weight\(s\) not allowed, \d+ quantized weight tensor\(s\), \d+ quantization node\(s\)/);
    expect(stdout).toMatch(/\ndtype +PASS +weights float32 \d+/);
    expect(stdout).toMatch(/\ndram +WARN +estimated DRAM .* vs limit 12.00 GB = 11.18 GiB \(edge-compression\)/);
    expect(stdout).toMatch(/\nlineage +NOT JUDGED +not-judged \(base config: /);
    expect(stdout).toMatch(/\npruning +INFO +-?\d+\.\d+% of stored parameters removed .*check-pruning's own verdict FAIL \(not a gate\)/);
    expect(stdout).toMatch(/\nVerdict: FAIL\n {2}- \[quantization\] /);
    expect(stdout).toContain("DRAM limit: MLRB's edge_llm_compression prompt (prompts.py:293)");
    expect(stdout).toContain('Not checked (no model file can show them):\n  ? compression only, no training');
  });

  it('--strict exits 1 on FAIL and 0 on PASS; the track may follow flags', async () => {
    expect((await runCli(['check-track', 'edge-training', quantizedPath, '--skip-dram', '--strict'])).code).toBe(1);
    expect((await runCli(['check-track', 'edge-training', basePath, '--dram-budget', '1kB', '--strict', '--threads', '1'])).code).toBe(1);
    const clean = await runCli(['check-track', '--strict', 'edge-training', basePath, '--threads', '1', '--quiet']);
    expect(clean.stderr).toBe(''); // no warning
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/\nVerdict: PASS\n/);
  });

  it("--json prints the report: track, labelled verdict, and each check's own report", async () => {
    const { code, stdout } = await runCli(['check-track', 'edge-compression', basePath, '--base', configPath, '--skip-dram', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as TrackReport;
    expect(Object.keys(report).sort()).toEqual(['checks', 'description', 'inspect', 'model', 'pruning', 'rules', 'track', 'verdict']);
    expect(report.track).toBe('edge-compression');
    expect(Object.keys(report.checks).sort()).toEqual(['dram', 'dtype', 'lineage', 'quantization']);
    expect(report.verdict.status).toBe('warn');
    expect(report.pruning?.verdict.reasons).toContainEqual(expect.stringMatching(/^no parameters were removed/));
    expect(report.pruning?.base.totalParams).toBe(configBaseParameters);
    expect(report.checks.dram.budget).toMatchObject({ bytes: 12e9, gb: 12, gib: 12e9 / 2 ** 30, rule: expect.stringContaining('prompts.py:293') });
    expect(report.inspect.parameters.total).toBe(storedElements(base.model));
  });

  it('BAD CALL – usage mistakes exit 2 and say what is wrong', async () => {
    const cases: [string[], string][] = [
      [['check-track'], 'expected a track first'],
      [['check-track', basePath], 'expected a track first'],
      [['check-track', 'edge-mystery', basePath], 'expected a track first'],
      [['check-track', 'edge-training'], 'expected exactly one MODEL path'],
      [['check-track', 'edge-training', basePath, basePath], 'expected exactly one MODEL path'],
      [['check-track', 'edge-training', basePath, '--bogus'], 'check-track: unknown flag --bogus'],
      [['check-track', 'edge-training', basePath, '--provider', 'tpu'], '--provider expects cpu, cuda'],
      [['check-track', 'edge-training', basePath, '--threads', 'many'], 'check-track: --threads expects a whole number, got "many"'],
      [['check-track', 'edge-training', basePath, '--dram-budget', 'lots'], 'is not a byte size'],
      [['check-track', 'edge-training', basePath, '--base', configPath], 'applies only to edge-compression'],
    ];
    for (const [argv, message] of cases) {
      const { code, stderr } = await runCli(argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(stderr, argv.join(' ')).toContain(message);
    }
    const help = await runCli(['check-track', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: mlrb-eval check-track edge-training|edge-compression MODEL');
    expect((await runCli(['--help'])).stdout).toContain('mlrb-eval check-track edge-compression|edge-training MODEL');
  });

  it('EXPECTED FAILURE – a missing model is a runtime error (exit 1, BAD_MODEL)', async () => {
    const { code, stderr } = await runCli(['check-track', 'edge-training', tempPath('absent.onnx'), '--skip-dram']);
    expect(code).toBe(1);
    expect(stderr).toContain('error [BAD_MODEL]');
  });
});
