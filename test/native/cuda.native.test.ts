/**
 * The CUDA provider. Where a GPU and ONNX Runtime's CUDA provider library are present, GPU scores are
 * compared with the CPU path's (≤ 1e-4 on fp32 models, the same greedy flags). Elsewhere those tests are
 * skipped with a notice that says why, and the fallbacks are tested instead: 'auto' loads on the CPU with
 * one warning and the CPU's results; 'cuda' fails with CUDA_UNAVAILABLE naming the provider library.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isMlrbError, type MlrbError } from '../../src/errors.js';
import { scoreModelInputs, type ScoreOptions } from '../../src/engine/score-requests.js';
import type { ModelInput } from '../../src/engine/model-input.js';
import { writeTinyCausalLm, type TinyCausalLmOptions } from '../support/model-builders/tiny-causal-lm.js';
import { loadModel, type LoadModelOptions } from '../../src/model/onnx-model.js';
import { loadBinding } from '../../src/native/binding.js';
import { defaultOrtLibraryPath } from '../../src/native/ort-library.js';
import { runSupportScript } from '../support/child-process.js';
import { writeNanLogitsModel } from '../support/odd-models.js';
import { randomModelInputs } from '../support/random-requests.js';
import { repoRoot } from '../support/shared-data.js';

const workDir = mkdtempSync(path.join(tmpdir(), 'mlrb-cuda-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const tinyModel = writeTinyCausalLm(path.join(workDir, 'tiny')).modelPath;

/** null where CUDA works; else why not (the CUDA_UNAVAILABLE error loading on 'cuda' gave). */
const cudaUnavailable: MlrbError | null = await loadModel({ model: tinyModel, provider: 'cuda' }).then(
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
if (!hasCuda) {
  console.warn(`[cuda.test] GPU-vs-CPU comparisons SKIPPED, no usable CUDA here: ${cudaUnavailable.message.slice(0, 400)}`);
}

async function scoreOn(
  modelPath: string,
  provider: 'cpu' | 'cuda' | 'auto',
  inputs: readonly ModelInput[],
  score: ScoreOptions,
  load: Partial<LoadModelOptions> = {},
) {
  const model = await loadModel({ model: modelPath, provider, threads: 2, ...load });
  try {
    return { provider: model.provider, ...(await scoreModelInputs(model, inputs, score)) };
  } finally {
    model.dispose();
  }
}

async function expectSameScores(modelPath: string, inputs: readonly ModelInput[], score: ScoreOptions, load: Partial<LoadModelOptions> = {}) {
  const cpu = await scoreOn(modelPath, 'cpu', inputs, score, load);
  const gpu = await scoreOn(modelPath, 'cuda', inputs, score, load);
  expect(gpu.provider).toBe('cuda');
  expect(gpu.stats.rows).toBe(cpu.stats.rows);
  cpu.results.forEach((expected, index) => {
    const actual = gpu.results[index];
    expect(Math.abs((actual?.loglik ?? Number.NaN) - expected.loglik), `request ${index} loglik`).toBeLessThan(1e-4);
    expect(actual?.isGreedy, `request ${index} greedy`).toBe(expected.isGreedy);
  });
}

/** What CMakeLists.txt decided (MLRB_CUDA: nvcc and a GPU, or asked for); false without a cmake-js build here. */
const cudaKernelsBuilt = (): boolean => {
  const cache = path.join(repoRoot, 'build', 'CMakeCache.txt');
  return existsSync(cache) && /^MLRB_CUDA_KERNELS_BUILT:INTERNAL=TRUE$/m.test(readFileSync(cache, 'utf8'));
};

describe('build', () => {
  it('buildInfo().cudaKernels says whether the cmake-js build compiled the CUDA kernels (MLRB_CUDA)', () => {
    expect(loadBinding().buildInfo().cudaKernels).toBe(cudaKernelsBuilt());
  });

  it('cudaDevice() is null, or describes the GPU', () => {
    const device = loadBinding().cudaDevice();
    if (!hasCuda || !loadBinding().buildInfo().cudaKernels) return;
    expect(device?.name).toBeTruthy();
    expect(device?.totalBytes).toBeGreaterThan(device?.freeBytes ?? Infinity);
  });

  it('BAD CALL – an unknown provider is a RangeError, natively and in loadModel', async () => {
    await expect(loadModel({ model: tinyModel, provider: 'tpu' as 'cpu' })).rejects.toThrow(RangeError);
    expect(() => loadBinding().loadSession(tinyModel, { provider: 'tpu' as 'cpu' })).toThrow(RangeError);
  });
});

const variants: [string, TinyCausalLmOptions, Partial<LoadModelOptions>][] = [
  ['int64 ids + mask, LM head sliced', {}, {}],
  ['int64 ids + mask, full logits', {}, { sliceLmHead: false }],
  ['int32 ids + mask + position_ids', { idsType: 'int32', withPositionIds: true }, {}],
  ['token_type_ids', { withTokenTypeIds: true }, {}],
  ['optimum past_key_values', { pastConvention: 'optimum' }, {}],
  ['ORT GPT-2 stacked past', { pastConvention: 'gpt2', idsType: 'int32', withPositionIds: true }, {}],
];

describe.skipIf(!hasCuda)(`GPU scores match the CPU path${hasCuda ? '' : ' (SKIPPED: no CUDA device or provider library here)'}`, () => {
  for (const [label, options, load] of variants) {
    it(`${label}: padded batches, shared rows`, async () => {
      const { modelPath } = writeTinyCausalLm(path.join(workDir, label.replace(/[^a-z0-9]+/gi, '_')), options);
      const inputs = randomModelInputs(60, 64, 30, 5);
      inputs.push({ inputTokens: [5, 6, 7], continuationTokens: [8] }, { inputTokens: [5, 6, 7], continuationTokens: [9] });
      await expectSameScores(modelPath, inputs, { batchSize: 8 }, load);
    });
  }

  it('reused prefixes (KV computed, kept and repeated on the device) and four batches in flight', async () => {
    const { modelPath } = writeTinyCausalLm(path.join(workDir, 'prefix'), { pastConvention: 'optimum', maxPositions: 128 });
    const prefix = Array.from({ length: 40 }, (_, index) => 4 + ((index * 13) % 60));
    const inputs = randomModelInputs(40, 64, 12, 9, 4).map((input) => ({ ...input, inputTokens: [...prefix, ...input.inputTokens] }));
    await expectSameScores(modelPath, inputs, { batchSize: 4, concurrentBatches: 4 });
  });

  it('the session says where the logits are reduced', async () => {
    const notes: string[] = [];
    const model = await loadModel({ model: tinyModel, provider: 'cuda', onLog: (message) => notes.push(message) });
    model.dispose();
    const onDevice = loadBinding().buildInfo().cudaKernels;
    expect(notes.join('\n')).toMatch(onDevice ? /logits stay on the device and are reduced there/ : /reduced there \(this build has no CUDA kernels\)/);
  });

  it("'auto' picks CUDA and says nothing", async () => {
    const warnings: string[] = [];
    const model = await loadModel({ model: tinyModel, provider: 'auto', onWarning: (message) => warnings.push(message) });
    expect(model.provider).toBe('cuda');
    model.dispose();
    expect(warnings).toEqual([]);
  });

  it('EXPECTED FAILURE – NaN logits name the same request and position as on the CPU', async () => {
    const nanModel = writeNanLogitsModel(path.join(workDir, 'nan'));
    const failure = (provider: 'cpu' | 'cuda') =>
      scoreOn(nanModel, provider, [{ inputTokens: [0, 1], continuationTokens: [2] }], { batchSize: 1 }).then(
        () => null,
        (error: unknown) => error,
      );
    const [cpu, gpu] = [await failure('cpu'), await failure('cuda')];
    expect(gpu).toMatchObject({ code: 'NUMERIC', message: (cpu as Error).message });
  });

  it('EXPECTED FAILURE – a token outside the vocabulary', async () => {
    const failure = scoreOn(tinyModel, 'cuda', [{ inputTokens: [4, 999], continuationTokens: [5] }], {});
    await expect(failure).rejects.toMatchObject({ code: 'BAD_DATA' });
  });
});

describe.skipIf(hasCuda)('without CUDA: the fallbacks', () => {
  it("EXPECTED FAILURE – 'cuda' is CUDA_UNAVAILABLE naming the provider library it looked for and the fix", () => {
    // onnxruntime-node ships no provider (the install sets ONNXRUNTIME_NODE_INSTALL=skip), so the file is missing.
    const libraryDir = path.dirname(defaultOrtLibraryPath());
    expect(cudaUnavailable?.message).toContain(path.join(libraryDir, 'libonnxruntime_providers_cuda.so'));
    if (!existsSync(path.join(libraryDir, 'libonnxruntime_providers_cuda.so'))) expect(cudaUnavailable?.message).toMatch(/does not exist/);
    expect(cudaUnavailable?.message).toMatch(/GPU \(CUDA\)/);
    expect(cudaUnavailable?.message).toMatch(/--provider cpu, or auto/);
  });

  it("'auto' loads on the CPU, warns once per process, and scores exactly as 'cpu'", async () => {
    const inputs = randomModelInputs(30, 64, 20, 3);
    const warnings: string[] = [];
    const auto = await scoreOn(tinyModel, 'auto', inputs, { batchSize: 8 }, { onWarning: (message) => warnings.push(message) });
    const again = await scoreOn(tinyModel, 'auto', inputs, { batchSize: 8 }, { onWarning: (message) => warnings.push(message) });
    const cpu = await scoreOn(tinyModel, 'cpu', inputs, { batchSize: 8 });
    expect([auto.provider, again.provider]).toEqual(['cpu', 'cpu']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/--provider auto: scoring on the CPU, since CUDA is unavailable: .*libonnxruntime_providers_cuda\.so/s);
    expect(auto.results).toEqual(cpu.results);
    expect(again.results).toEqual(cpu.results);
  });
});

describe("EXPECTED FAILURE – a provider library that ONNX Runtime cannot use is named, with the loader's reason", () => {
  const asus4Dir = path.join(repoRoot, 'node_modules', 'com.github.asus4.onnxruntime', 'Plugins', 'Linux', 'x64');
  type ChildResult = { code?: string; message?: string; provider?: string };

  /** A folder with ORT's library and its providers_shared (links) and a CUDA provider that is not a shared library. */
  function folderWithBrokenProvider(libraryPath: string): string {
    const folder = mkdtempSync(path.join(workDir, 'ort-'));
    symlinkSync(libraryPath, path.join(folder, path.basename(libraryPath)));
    const shared = path.join(path.dirname(libraryPath), 'libonnxruntime_providers_shared.so');
    if (existsSync(shared)) symlinkSync(shared, path.join(folder, path.basename(shared)));
    writeFileSync(path.join(folder, 'libonnxruntime_providers_cuda.so'), 'not a shared library');
    return path.join(folder, path.basename(libraryPath));
  }

  it.skipIf(hasCuda)("onnxruntime-node's library (V2 provider options)", async () => {
    const library = folderWithBrokenProvider(defaultOrtLibraryPath());
    const result = await runSupportScript<ChildResult>('load-model-child.ts', [tinyModel, 'cuda'], { MLRB_ORT_LIBRARY: library });
    expect(result.code).toBe('CUDA_UNAVAILABLE');
    expect(result.message).toContain(path.join(path.dirname(library), 'libonnxruntime_providers_cuda.so'));
    expect(result.message).toMatch(/the loader says: .*(file too short|invalid ELF header)/);
  });

  it.skipIf(!existsSync(path.join(asus4Dir, 'libonnxruntime.so')) || existsSync(path.join(asus4Dir, 'libonnxruntime_providers_cuda.so')))(
    "asus4's CPU build (ORT 1.29), which loads a separate provider only through the legacy options",
    async () => {
      const library = folderWithBrokenProvider(path.join(asus4Dir, 'libonnxruntime.so'));
      const result = await runSupportScript<ChildResult>('load-model-child.ts', [tinyModel, 'cuda'], { MLRB_ORT_LIBRARY: library });
      // The legacy path was tried: ORT's V2 refusal is followed by its legacy loader's failure.
      expect(result.code).toBe('CUDA_UNAVAILABLE');
      expect(result.message).toContain(path.join(path.dirname(library), 'libonnxruntime_providers_cuda.so'));
      expect(result.message).toMatch(/the loader says: .*(file too short|invalid ELF header)/);
      expect(result.message).toMatch(/not enabled in this build; OrtSessionOptionsAppendExecutionProvider_Cuda: Failed to load shared library/);
    },
  );
});
