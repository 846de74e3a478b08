/**
 * The child process `measureDram` runs: loads one model through the library, scores one batch-1 request
 * of N tokens and reports the peak RSS over its baseline (and, on 'cuda', the peak device memory: free
 * memory before loading minus free memory after scoring). It runs alone in its own process so nothing
 * else (the parent's heap, other models, test runners) is counted. Output: one marked JSON line.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { isMlrbError, MlrbError } from '../errors.js';
import { modelInputsFromTokens, scoreModelInputs } from '../eval/score-requests.js';
import { loadModel } from '../model/onnx-model.js';
import { loadBinding, type CudaDeviceInfo } from '../native/binding.js';
import { initOrtRuntime } from '../native/ort-library.js';
import { PROBE_ERROR_MARKER, PROBE_RESULT_MARKER, type ProbeRequest, type ProbeResult } from './dram-probe-protocol.js';

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
    model: request.model, threads: request.threads, ortLibrary: request.ortLibrary ?? undefined, provider: request.provider,
  });
  const loadMs = performance.now() - loadStarted;
  const device = onCuda ? readDevice(deviceBefore) : null; // (the process ends on failure, the model with it)
  const afterLoad = memoryStatus();
  const tokens = Math.min(request.tokens, model.maxLength);
  const vocab = model.vocabSize ?? 2;
  // Any ids in the vocabulary do: memory depends on the length, not on the text.
  const ids = Array.from({ length: tokens + 1 }, (_, index) => (index * 7919 + 13) % vocab);
  const inputs = modelInputsFromTokens(model, [{ contextTokens: ids.slice(0, tokens), continuationTokens: ids.slice(tokens) }]);
  const forwardStarted = performance.now();
  await scoreModelInputs(model, inputs, { batchSize: 1 });
  const forwardMs = performance.now() - forwardStarted;
  const peak = memoryStatus();
  const deviceAfter = device ? readDevice(loadBinding().cudaDevice()) : null;
  model.dispose();
  return {
    tokens,
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

async function main(): Promise<void> {
  try {
    const request = JSON.parse(process.argv[2] ?? '') as ProbeRequest;
    process.stdout.write(`${PROBE_RESULT_MARKER}${JSON.stringify(await probe(request))}\n`);
  } catch (error) {
    const code = isMlrbError(error) ? error.code : 'INTERNAL';
    process.stdout.write(`${PROBE_ERROR_MARKER}${JSON.stringify({ code, message: (error as Error).message ?? String(error) })}\n`);
    process.exitCode = 1;
  }
}

// Only when run as the child; importing this module (for its types and markers) does nothing.
if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) await main();
