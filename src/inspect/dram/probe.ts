/**
 * The child process `measureDram` runs, once per probe (dram/probes.ts). It loads the submitted graph as submitted
 * and runs one plain batch-1 forward pass of exactly the probe's tokens, as the Edge-LLM kit measured: no LM-head slicing (the logits
 * [1, N, vocab] are computed in full), no CPU attention fusion and so no last-block row pruning. Those
 * load-time rewrites are mlrb-eval's scoring optimisations; measured through them, a model whose logits
 * alone exceed a track's budget would pass it. It reports the peak RSS over its baseline (and, on 'cuda',
 * the peak device memory: free memory before loading minus free memory after the pass). It runs alone in
 * its own process so nothing else (the parent's heap, other models, test runners) is counted.
 * Output: one marked JSON line.
 */
import { randomInt } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { isMlrbError, MlrbError } from '../../errors.js';
import { loadModel, type LanguageModel } from '../../model/onnx-model.js';
import { loadBinding, type CudaDeviceInfo, type PackedBatch } from '../../native/binding.js';
import { initOrtRuntime } from '../../native/ort-library.js';
import { PROBE_ERROR_MARKER, PROBE_LOADED_MARKER, PROBE_RESULT_MARKER, type ProbeInput, type ProbeRequest, type ProbeResult } from './probe-protocol.js';

function memoryStatus(): { rss: number; hwm: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kib = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/** Writing 5 to clear_refs resets VmHWM (Linux >= 4.0), so the peak starts from the baseline. */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** Device 0 as the addon's CUDA runtime sees it; CUDA_UNAVAILABLE when it cannot say. */
function readDevice(device: CudaDeviceInfo | null): CudaDeviceInfo {
  if (device) return device;
  const why = loadBinding().buildInfo().cudaKernels
    ? 'the CUDA runtime sees no device 0 (check nvidia-smi and CUDA_VISIBLE_DEVICES)'
    : 'this build has no CUDA runtime (the addon was built without nvcc; rebuild it with CUDA to measure on the GPU)';
  throw new MlrbError('CUDA_UNAVAILABLE', `device memory cannot be read: ${why}`);
}

/** The input's ids plus one (the last position's target); random and repeated ids are drawn from the vocabulary here. */
function inputIds(input: ProbeInput, vocab: number): Int32Array {
  if (input.kind === 'ids') return Int32Array.from(input.ids);
  if (input.kind === 'random') return Int32Array.from({ length: input.tokens + 1 }, () => randomInt(vocab));
  return new Int32Array(input.tokens + 1).fill(randomInt(vocab));
}

/**
 * One row of ids and one request that scores every position after the first token, so each row of the logits is
 * read: nothing the pass computes is dead.
 */
function wholeRowBatch(ids: Int32Array): PackedBatch {
  const tokens = ids.length - 1;
  return {
    tokens: ids.subarray(0, tokens),
    rowOffsets: Int32Array.of(0, tokens),
    requestRows: Int32Array.of(0),
    targets: ids.subarray(1),
    targetOffsets: Int32Array.of(0, tokens),
  };
}

/** The guarantees the measurement rests on, checked on the loaded session rather than assumed. */
function requirePlainGraph(model: LanguageModel): void {
  if (model.signature.logitsSliced || model.attentionFused) {
    throw new MlrbError(
      'INTERNAL',
      `${model.modelPath} was loaded with scoring rewrites (LM-head slicing or fused attention) although the DRAM probe turned them off`,
      {
        file: model.modelPath,
      },
    );
  }
}

async function probe(request: ProbeRequest): Promise<ProbeResult> {
  initOrtRuntime(request.ortLibrary ?? undefined); // the runtime's own code is not the model's footprint
  const onCuda = request.provider === 'cuda';
  // Read first, so the CUDA context this creates is in neither baseline: it is the runtime's, not the model's.
  const deviceBefore = onCuda ? loadBinding().cudaDevice() : null;
  const peakResetSupported = resetPeak();
  const baseline = memoryStatus();
  const loadStarted = performance.now();
  // An unusable CUDA provider fails here with CUDA_UNAVAILABLE naming its library: the more useful message,
  // so it comes before the one about device memory.
  const model = await loadModel({
    model: request.model,
    threads: request.threads,
    ortLibrary: request.ortLibrary ?? undefined,
    provider: request.provider,
    sliceLmHead: false,
    cpuFusion: false,
    tokenizer: null,
    initializerOverrides: request.initializerOverrides.map(({ base64, ...tensor }) => ({ ...tensor, data: new Uint8Array(Buffer.from(base64, 'base64')) })),
  });
  const loadMs = performance.now() - loadStarted;
  process.stdout.write(`${PROBE_LOADED_MARKER}\n`);
  requirePlainGraph(model);
  const device = onCuda ? readDevice(deviceBefore) : null; // (the process ends on failure, the model with it)
  const afterLoad = memoryStatus();
  const ids = inputIds(request.input, model.vocabSize ?? 2);
  const forwardStarted = performance.now();
  const scores = await model.scoreBatch(wholeRowBatch(ids));
  const forwardMs = performance.now() - forwardStarted;
  const peak = memoryStatus();
  const deviceAfter = device ? readDevice(loadBinding().cudaDevice()) : null;
  const { signature } = model;
  model.dispose();
  return {
    tokens: ids.length - 1,
    distinctIds: new Set(ids.subarray(0, -1)).size,
    logitRows: scores.logitRows,
    vocabSize: signature.vocabSize,
    logitsType: signature.logitsType,
    baselineRssBytes: baseline.rss,
    afterLoadRssBytes: afterLoad.rss,
    peakRssBytes: Math.max(peak.hwm, baseline.rss),
    loadMs,
    forwardMs,
    peakResetSupported,
    provider: request.provider,
    deviceName: device?.name ?? null,
    deviceBaselineFreeBytes: device?.freeBytes ?? null,
    devicePeakBytes: device && deviceAfter ? Math.max(0, device.freeBytes - deviceAfter.freeBytes) : null,
  };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  try {
    const request = JSON.parse(await readStdin()) as ProbeRequest;
    process.stdout.write(`${PROBE_RESULT_MARKER}${JSON.stringify(await probe(request))}\n`);
  } catch (error) {
    const code = isMlrbError(error) ? error.code : 'INTERNAL';
    process.stdout.write(`${PROBE_ERROR_MARKER}${JSON.stringify({ code, message: (error as Error).message ?? String(error) })}\n`);
    process.exitCode = 1;
  }
}

// Only when run as the child; importing this module (for its types and markers) does nothing.
if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) await main();
