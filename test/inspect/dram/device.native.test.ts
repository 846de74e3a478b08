/**
 * The DRAM check on the GPU: `provider: 'cuda'` measures peak device memory (free before loading minus free
 * after scoring) and the verdict judges that. Where CUDA works, a fixture is measured on it; elsewhere the
 * real failure is tested: CUDA_UNAVAILABLE naming the provider library, as a FAIL verdict in the CLI.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runInspectCommand } from '../../../src/cli/inspect-command.js';
import { ExitError } from '../../../src/cli/exit-error.js';
import { isMlrbError, type MlrbError } from '../../../src/errors.js';
import { buildEdgeBase, initializerBytes, writeEdgeModel } from '../../support/model-builders/edge-fixtures.js';
import { checkDramBudget, resolveBudget } from '../../../src/inspect/dram/dram-check.js';
import { estimateDram } from '../../../src/inspect/dram/estimate.js';
import { measureDram, type DramMeasurement } from '../../../src/inspect/dram/measure.js';
import { checkEdgeModel, type EdgeCheckReport } from '../../../src/inspect/edge-check.js';
import { formatEdgeReport } from '../../../src/inspect/report/format.js';
import { inspectModel } from '../../../src/inspect/report/inspect-report.js';
import { verdictOf } from '../../../src/inspect/verdict.js';
import { loadModel } from '../../../src/model/onnx-model.js';
import { useTempDirectory } from '../support/tmp-dir.js';

const tempPath = useTempDirectory('dram-device');
const base = buildEdgeBase();
const basePath = writeEdgeModel(tempPath('base'), base, base.model);
/** The fixture's position table has 64 rows: measurements here run 64 tokens (2,000 are refused; see test/inspect/dram/dram.native.test.ts). */
const TOKENS = 64;

/** null where CUDA works; else the CUDA_UNAVAILABLE error loading on 'cuda' gave (as test/native/cuda.native.test.ts decides). */
const cudaUnavailable: MlrbError | null = await loadModel({ model: basePath, provider: 'cuda' }).then(
  (model) => {
    model.dispose();
    return null;
  },
  (error: unknown) => {
    if (isMlrbError(error) && error.code === 'CUDA_UNAVAILABLE') return error;
    throw error;
  },
);
const hasCuda = cudaUnavailable === null;
if (!hasCuda) console.warn(`[dram-device.test] device-memory measurements SKIPPED, no usable CUDA here: ${cudaUnavailable.message.slice(0, 300)}`);

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  stdout.on('data', (chunk: Buffer) => chunks.stdout.push(chunk));
  stderr.on('data', (chunk: Buffer) => chunks.stderr.push(chunk));
  let code: number;
  try {
    code = await runInspectCommand(argv, { stdout, stderr });
  } catch (error) {
    if (!(error instanceof ExitError)) throw error;
    stderr.write(`${error.message}\n`);
    code = error.exitCode;
  }
  return { code, stdout: Buffer.concat(chunks.stdout).toString(), stderr: Buffer.concat(chunks.stderr).toString() };
}

describe('the device-memory verdict', () => {
  /** A measurement as the probes report it on CUDA (the figures are made up; the verdict's logic is under test). */
  const onDevice = (devicePeakBytes: number, provider: 'cpu' | 'cuda' = 'cuda'): DramMeasurement => {
    const device =
      provider === 'cuda'
        ? { deviceName: 'NVIDIA H100 80GB HBM3', deviceBaselineFreeBytes: 80e9, devicePeakBytes }
        : { deviceName: null, deviceBaselineFreeBytes: null, devicePeakBytes: null };
    const probe = {
      kind: 'text',
      description: '64 tokens of the text from paragraph 0',
      tokens: 64,
      distinctIds: 30,
      logitRows: 64,
      vocabSize: 64,
      logitsType: 'float32',
      baselineRssBytes: 50e6,
      afterLoadRssBytes: 60e6,
      peakRssBytes: 70e6,
      peakDeltaBytes: 20e6,
      loadMs: 1,
      forwardMs: 1,
      peakResetSupported: true,
      provider,
      ...device,
    } as const;
    return {
      tokens: 64,
      provider,
      peakDeltaBytes: 20e6,
      devicePeakBytes: device.devicePeakBytes,
      decidingProbe: 'text',
      probes: [probe],
      text: { file: 'text.txt', source: 'test', licence: 'test', tokenizer: 'tokenizer.json' },
      rebuiltRotaryCaches: [],
    };
  };

  it('judges peak device memory, not the host RSS, and says so', async () => {
    const estimate = estimateDram(await inspectModel(basePath));
    const budget = resolveBudget('edge-training', undefined)!;
    const fits = checkDramBudget(estimate, onDevice(400e6), budget);
    expect(fits).toMatchObject({ basis: 'measured-device', usedBytes: 400e6, verdict: { status: 'pass' } });
    const over = checkDramBudget(estimate, onDevice(1.5e9), budget); // the host's 20 MB would fit
    expect(over.verdict.status).toBe('fail');
    expect(over.verdict.reasons[0]).toBe('measured peak device memory 1.50 GB exceeds the edge-training budget of 1.00 GB by 500.00 MB');
    const quantization = { verdict: verdictOf([]) } as EdgeCheckReport['quantization'];
    const weightDtypes = { verdict: verdictOf([]) } as EdgeCheckReport['weightDtypes'];
    const text = formatEdgeReport({ inspect: await inspectModel(basePath), quantization, weightDtypes, dram: over, verdict: over.verdict });
    expect(text).toContain('peak device memory 1.50 GB (NVIDIA H100 80GB HBM3: free before loading 80.00 GB minus free after scoring), from probe text');
    expect(text).toContain('Device memory vs edge-training budget 1.00 GB (peak device memory 1.50 GB): FAIL');
  });

  it('a CPU measurement is judged by peak DRAM as before', async () => {
    const estimate = estimateDram(await inspectModel(basePath));
    const cpu = onDevice(0, 'cpu');
    const check = checkDramBudget(estimate, cpu, resolveBudget(undefined, 1e6)!);
    expect(check).toMatchObject({ basis: 'measured', usedBytes: 20e6 });
    expect(check.verdict.reasons[0]).toMatch(/^measured peak DRAM 20.00 MB exceeds the DRAM budget/);
  });

  it('cpu measurements carry no device figures', async () => {
    const measurement = await measureDram(basePath, { threads: 1, tokens: TOKENS });
    expect(measurement).toMatchObject({ provider: 'cpu', devicePeakBytes: null });
    for (const probe of measurement.probes)
      expect(probe).toMatchObject({ provider: 'cpu', deviceName: null, deviceBaselineFreeBytes: null, devicePeakBytes: null });
  });

  it('BAD CALL – a provider other than cpu or cuda is a RangeError before any work', async () => {
    // The model does not exist: a RangeError (not BAD_MODEL) shows nothing was read or run first.
    const nowhere = tempPath('nowhere/model.onnx');
    await expect(measureDram(nowhere, { provider: 'gpu' as 'cuda' })).rejects.toThrow(RangeError);
    await expect(measureDram(nowhere, { provider: 'auto' as 'cuda' })).rejects.toThrow(/provider must be 'cpu' or 'cuda', got "auto"/);
    await expect(checkEdgeModel(nowhere, { track: 'edge-training', provider: 'tpu' as 'cuda' })).rejects.toThrow(RangeError);
  });

  it("BAD CALL – --provider gpu is a usage error (exit 2) in the eval command's words", async () => {
    const { code, stderr } = await run([basePath, '--track', 'edge-training', '--provider', 'gpu']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^inspect: --provider expects cpu, cuda, got "gpu"\nsee 'mlrb-eval inspect --help'\n$/);
  });
});

describe.skipIf(hasCuda)('without CUDA: the measurement fails, and so does the verdict', () => {
  it('EXPECTED FAILURE – measuring on cuda is CUDA_UNAVAILABLE naming the provider library', async () => {
    const failure = await measureDram(basePath, { provider: 'cuda', tokens: TOKENS }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'CUDA_UNAVAILABLE' });
    expect((failure as Error).message).toMatch(/^DRAM measurement of .*: .*libonnxruntime_providers_cuda\.so/s);
  });

  it('EXPECTED FAILURE – inspect --provider cuda gives a FAIL verdict naming CUDA_UNAVAILABLE; --strict exits 1', async () => {
    const cuda = [basePath, '--track', 'edge-training', '--provider', 'cuda', '--context', String(TOKENS)];
    const { code, stdout } = await run(cuda);
    expect(code).toBe(0);
    expect(stdout).toMatch(/DRAM measured: FAILED \(CUDA_UNAVAILABLE: .*libonnxruntime_providers_cuda\.so/);
    expect(stdout).toMatch(/\n {2}- the DRAM measurement failed \(CUDA_UNAVAILABLE\): /);
    expect(stdout).toMatch(/\nVerdict: FAIL\n/);
    expect((await run([...cuda, '--strict'])).code).toBe(1);
    const json = JSON.parse((await run([...cuda, '--json'])).stdout) as EdgeCheckReport;
    expect(json.dram).toMatchObject({ measurement: null, basis: 'estimate', measurementError: { code: 'CUDA_UNAVAILABLE' } });
  });
});

describe.skipIf(!hasCuda)(`on the GPU: peak device memory${hasCuda ? '' : ' (SKIPPED: no CUDA device or provider library here)'}`, () => {
  it('measures the device footprint of one batch-1 pass: more than the weights, on a named device', async () => {
    const measurement = await measureDram(basePath, { provider: 'cuda', tokens: TOKENS });
    expect(measurement.provider).toBe('cuda');
    const deciding = measurement.probes.find((probe) => probe.kind === measurement.decidingProbe)!;
    expect(deciding.deviceName).toBeTruthy();
    expect(deciding.deviceBaselineFreeBytes).toBeGreaterThan(0);
    expect(measurement.devicePeakBytes).toBe(Math.max(...measurement.probes.map((probe) => probe.devicePeakBytes ?? 0)));
    expect(measurement.devicePeakBytes).toBeGreaterThan(initializerBytes(base.model));
    expect(measurement.devicePeakBytes).toBeLessThan(deciding.deviceBaselineFreeBytes ?? 0);
    expect(measurement.probes[0]).toMatchObject({ kind: 'text', tokens: TOKENS, logitRows: TOKENS }); // full logits on the device too
  });

  it('the verdict judges the device bytes, and the CLI says peak device memory', async () => {
    const report = await checkEdgeModel(basePath, { track: 'edge-training', provider: 'cuda', contextTokens: TOKENS });
    expect(report.dram.basis).toBe('measured-device');
    expect(report.dram.usedBytes).toBe(report.dram.measurement?.devicePeakBytes);
    expect(report.verdict.status).toBe('pass');
    const tiny = await checkEdgeModel(basePath, { dramBudgetBytes: 1000, provider: 'cuda', contextTokens: TOKENS });
    expect(tiny.verdict.reasons[0]).toMatch(/^measured peak device memory .* exceeds the DRAM budget of 1.00 kB/);
    const { stdout } = await run([basePath, '--track', 'edge-training', '--provider', 'cuda', '--context', String(TOKENS)]);
    expect(stdout).toMatch(/\nDevice memory vs edge-training budget 1.00 GB \(peak device memory .*\): PASS\n/);
  });
});
