/**
 * The DRAM measurement, as the NeurIPS'24 Edge-LLM kit did it: one plain forward pass of the graph as
 * submitted, batch 1, a 2,000-token input (or the caller's length, never config.json's), full logits, peak
 * process RSS over the baseline on CPU; on the GPU ('cuda'), the peak device memory as well, which is what
 * the kit measured there. It runs in a fresh child process (dram-probe) so the parent's own memory never
 * pollutes the figure. A graph that cannot take the input (a position table with fewer rows) is refused
 * before the child starts, naming the limit: a shorter input would measure a smaller footprint.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MlrbError, type ErrorCode } from '../errors.js';
import { describeShape } from './architecture.js';
import { DEFAULT_CONTEXT_TOKENS } from './dram-estimate.js';
import {
  DRAM_PROVIDERS, PROBE_ERROR_MARKER, PROBE_RESULT_MARKER, type DramProvider, type ProbeRequest, type ProbeResult,
} from './dram-probe-protocol.js';
import { readGraphFacts } from './graph-facts.js';
import { seq2seqFilesFor } from '../model/seq2seq-files.js';
import { readModelGraph } from './model-graph.js';
import { formatCount } from './units.js';

export { DRAM_PROVIDERS, type DramProvider } from './dram-probe-protocol.js';

export interface DramMeasurement extends ProbeResult {
  /** Peak RSS minus the baseline (after ONNX Runtime itself was loaded, before the model). */
  readonly peakDeltaBytes: number;
}

export interface MeasureDramOptions {
  /** Input length; default 2,000. Exactly this many tokens run, whatever config.json states. */
  readonly tokens?: number;
  readonly threads?: number;
  readonly ortLibrary?: string;
  readonly timeoutMs?: number;
  /**
   * 'cpu' (default) or 'cuda': on 'cuda' the model loads on ONNX Runtime's CUDA provider and the peak device
   * memory is measured too (devicePeakBytes). CUDA_UNAVAILABLE when the provider or the device cannot be used.
   */
  readonly provider?: DramProvider;
}

/** The provider option, checked: a RangeError (before any work) for anything but 'cpu' or 'cuda'. */
export function checkDramProvider(provider: unknown): DramProvider {
  if (provider === undefined) return 'cpu';
  if (!(DRAM_PROVIDERS as readonly unknown[]).includes(provider)) {
    throw new RangeError(`provider must be ${DRAM_PROVIDERS.map((p) => `'${p}'`).join(' or ')}, got ${JSON.stringify(provider)}`);
  }
  return provider as DramProvider;
}

/** The probe as compiled JS beside this module, else (running from sources) its TS through tsx. */
function probeCommand(): string[] {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const compiled = path.join(here, 'dram-probe.js');
  if (existsSync(compiled)) return [compiled];
  const tsxLoader = createRequire(import.meta.url).resolve('tsx');
  return ['--import', pathToFileURL(tsxLoader).href, path.join(here, 'dram-probe.ts')];
}

function lineAfter(stdout: string, marker: string): string | undefined {
  return stdout.split('\n').find((line) => line.startsWith(marker))?.slice(marker.length);
}

/** BAD_MODEL naming the table when the graph's positions stop short of `tokens` (metadata only, no weights read). */
async function requirePositions(modelPath: string, tokens: number): Promise<void> {
  // An encoder-decoder export (a folder) has relative positions only: no table bounds its input.
  if (seq2seqFilesFor(modelPath) !== null) return;
  const graph = await readModelGraph(modelPath);
  const limit = readGraphFacts(graph, describeShape(graph)).positionLimit;
  if (limit === null || limit.rows >= tokens) return;
  throw new MlrbError(
    'BAD_MODEL',
    `${modelPath} cannot run the ${formatCount(tokens)}-token input the DRAM measurement needs: its position table ${limit.tensor} has ${formatCount(limit.rows)} rows, so the longest input is ${formatCount(limit.rows)} tokens`,
    { file: modelPath, tensor: limit.tensor, positionLimit: limit.rows, tokens },
  );
}

export async function measureDram(modelPath: string, options: MeasureDramOptions = {}): Promise<DramMeasurement> {
  const tokens = options.tokens ?? DEFAULT_CONTEXT_TOKENS;
  if (!Number.isInteger(tokens) || tokens < 1) throw new RangeError(`tokens must be a positive integer, got ${tokens}`);
  const threads = options.threads ?? 0;
  if (!Number.isInteger(threads) || threads < 0) throw new RangeError(`threads must be a non-negative integer, got ${threads}`);
  const provider = checkDramProvider(options.provider);
  const request: ProbeRequest = { model: path.resolve(modelPath), tokens, threads, ortLibrary: options.ortLibrary ?? null, provider };
  await requirePositions(request.model, tokens);
  const args = [...probeCommand(), JSON.stringify(request)];
  const { stdout, stderr, failed } = await new Promise<{ stdout: string; stderr: string; failed: Error | null }>((resolve) => {
    execFile(process.execPath, args, { timeout: options.timeoutMs ?? 600_000, maxBuffer: 16 << 20 }, (error, out, err) =>
      resolve({ stdout: out, stderr: err, failed: error }));
  });
  const result = lineAfter(stdout, PROBE_RESULT_MARKER);
  if (result !== undefined) {
    const probe = JSON.parse(result) as ProbeResult;
    return { ...probe, peakDeltaBytes: Math.max(0, probe.peakRssBytes - probe.baselineRssBytes) };
  }
  const reported = lineAfter(stdout, PROBE_ERROR_MARKER);
  if (reported !== undefined) {
    const { code, message } = JSON.parse(reported) as { code: ErrorCode; message: string };
    throw new MlrbError(code, `DRAM measurement of ${request.model}: ${message}`, { file: request.model });
  }
  throw new MlrbError('INTERNAL', `the DRAM measurement process for ${request.model} failed: ${failed?.message ?? 'no result'}\n${stderr.slice(-2000)}`, {
    file: request.model,
  });
}
