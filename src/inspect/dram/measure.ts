/**
 * The DRAM measurement, as the NeurIPS'24 Edge-LLM kit did it: plain forward passes of the graph as submitted,
 * batch 1, the kit's 2,000-token input length (or the caller's, never config.json's), full logits, peak process
 * RSS over the baseline on CPU; on the GPU ('cuda'), the peak device memory as well, which is what the kit
 * measured there. Several inputs are run (dram/probes.ts: real text tokenized by the model's tokenizer, at that
 * length and another, random ids and a repeated id), each in a fresh child process (dram-probe) so neither the
 * parent's memory nor another probe's pollutes the figure, and the largest peak is the measurement. A graph
 * that cannot take the input (a learned position table with fewer rows) is refused before any child starts,
 * naming the limit: a shorter input would measure a smaller footprint.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isMlrbError, MlrbError, type ErrorCode } from '../../errors.js';
import { nodeScriptArguments } from '../../io/node-script.js';
import { readConfigJson, resolveHfConfig } from '../../model/hf-config.js';
import { describeShape } from '../graph/architecture.js';
import { DEFAULT_CONTEXT_TOKENS } from './estimate.js';
import {
  DRAM_PROVIDERS,
  PROBE_ERROR_MARKER,
  PROBE_LOADED_MARKER,
  PROBE_RESULT_MARKER,
  type DramProbeProgress,
  type DramProvider,
  type ProbeInitializer,
  type ProbeInput,
  type ProbeRequest,
  type ProbeResult,
} from './probe-protocol.js';
import { resolveModelGraphs } from '../../model/model-path.js';
import { loadTokenizer, type TextTokenizer } from '../../model/tokenizer.js';
import { planProbes, type DramProbeKind, type PlannedProbe } from './probes.js';
import { DRAM_TEXT_SOURCE } from './text.js';
import { readGraphFacts, type PositionTable } from '../graph/graph-facts.js';
import { readModelGraph } from '../graph/model-graph.js';
import { matchRotaryCache, rebuildRotaryCache, type RebuiltRotaryCache } from '../graph/rotary-cache.js';
import { rotarySettingsOf } from '../graph/rotary-settings.js';
import { formatCount } from '../units.js';

export { DRAM_PROVIDERS, type DramProbeProgress, type DramProvider } from './probe-protocol.js';
export { DRAM_PROBE_KINDS, type DramProbeKind } from './probes.js';

/** One probe's input and what its child process measured. */
export interface DramProbe extends ProbeResult {
  readonly kind: DramProbeKind;
  readonly description: string;
  /** Peak RSS minus the baseline (after ONNX Runtime itself was loaded, before the model). */
  readonly peakDeltaBytes: number;
}

export interface DramMeasurement {
  /** The kit's input length: every probe but text-other-length runs exactly this many tokens. */
  readonly tokens: number;
  readonly provider: DramProvider;
  /** The largest peak RSS delta of the probes (on 'cuda', of the probe with the largest device peak). */
  readonly peakDeltaBytes: number;
  /** On 'cuda', the largest peak device memory of the probes; null on 'cpu'. */
  readonly devicePeakBytes: number | null;
  /** The probe the figures above come from. */
  readonly decidingProbe: DramProbeKind;
  readonly probes: readonly DramProbe[];
  /**
   * Rotary cos/sin caches the export stored with fewer rows than the input, rebuilt from config.json's rotary
   * settings in the measurement's copy of the graph (the model file is not changed); empty when none were.
   */
  readonly rebuiltRotaryCaches: readonly RebuiltRotaryCache[];
  /** The text the text probes fed, and the tokenizer that tokenized it. */
  readonly text: { readonly file: string; readonly source: string; readonly licence: string; readonly tokenizer: string };
}

export interface MeasureDramOptions {
  /** Input length; default 2,000. Exactly this many tokens run, whatever config.json states. */
  readonly tokens?: number;
  /** tokenizer.json that tokenizes the probes' text; default: the one beside the model (the kit used the model's). */
  readonly tokenizer?: string;
  readonly threads?: number;
  readonly ortLibrary?: string;
  /** Per probe. */
  readonly timeoutMs?: number;
  /**
   * 'cpu' (default) or 'cuda': on 'cuda' the model loads on ONNX Runtime's CUDA provider and the peak device
   * memory is measured too (devicePeakBytes). CUDA_UNAVAILABLE when the provider or the device cannot be used.
   */
  readonly provider?: DramProvider;
  /** Told when the child starts loading the model, when the measured pass starts, and when it is done. */
  readonly onProgress?: (progress: DramProbeProgress) => void;
}

/** The provider option, checked: a RangeError (before any work) for anything but 'cpu' or 'cuda'. */
export function checkDramProvider(provider: unknown): DramProvider {
  if (provider === undefined) return 'cpu';
  if (!(DRAM_PROVIDERS as readonly unknown[]).includes(provider)) {
    throw new RangeError(`provider must be ${DRAM_PROVIDERS.map((p) => `'${p}'`).join(' or ')}, got ${JSON.stringify(provider)}`);
  }
  return provider as DramProvider;
}

/** The tokens a probe's input runs (ProbeInput: an ids list's last id is only a target). */
function inputTokens(input: ProbeInput): number {
  return input.kind === 'ids' ? input.ids.length - 1 : input.tokens;
}

function lineAfter(stdout: string, marker: string): string | undefined {
  return stdout
    .split('\n')
    .find((line) => line.startsWith(marker))
    ?.slice(marker.length);
}

/**
 * What the graph's position tables mean for an input of `tokens` tokens (metadata, and the values of short rotary
 * caches only). A learned table with fewer rows is BAD_MODEL naming it: the kit's Hugging Face model holds the same
 * table and cannot run the input either. A rotary cache with fewer rows is the export's artefact (transformers
 * computes rotary positions on the fly): it is checked against config.json's rotary settings and rebuilt with
 * `tokens` rows for the measurement's copy of the graph (graph/rotary-cache.ts), or BAD_MODEL saying why it cannot be.
 */
async function preparePositions(modelPath: string, tokens: number): Promise<{ rebuilt: RebuiltRotaryCache[]; overrides: ProbeInitializer[] }> {
  const graph = await readModelGraph(modelPath);
  const facts = readGraphFacts(graph, describeShape(graph));
  const limit = facts.positionLimit;
  if (limit !== null && limit.rows < tokens) {
    throw new MlrbError(
      'BAD_MODEL',
      `${modelPath} cannot run the ${formatCount(tokens)}-token input the DRAM measurement needs: its learned position table ${limit.tensor} has ${formatCount(limit.rows)} rows, so the longest input is ${formatCount(limit.rows)} tokens`,
      { file: modelPath, tensor: limit.tensor, positionLimit: limit.rows, tokens },
    );
  }
  const short = facts.rotaryCaches.filter((cache) => cache.rows < tokens);
  if (short.length === 0) return { rebuilt: [], overrides: [] };
  const configPath = path.join(path.dirname(modelPath), 'config.json');
  const rebuildWhy = (cache: PositionTable): string =>
    `its rotary cache ${cache.tensor} has ${formatCount(cache.rows)} rows, fewer than the ${formatCount(tokens)} tokens measured`;
  if (!existsSync(configPath)) {
    throw new MlrbError(
      'BAD_MODEL',
      `${modelPath}: ${rebuildWhy(short[0]!)}, and there is no config.json beside the model to rebuild it from (rope_theta, head_dim, partial_rotary_factor)`,
      {
        file: modelPath,
        tensor: short[0]!.tensor,
        positionLimit: short[0]!.rows,
        tokens,
      },
    );
  }
  const { resolved, json } = readConfigJson(configPath);
  const settings = rotarySettingsOf(json, resolveHfConfig(json, resolved));
  const rebuilt = short.map((cache) => {
    try {
      return matchRotaryCache(graph.tensorByName.get(cache.tensor)!, settings, tokens);
    } catch (error) {
      if (!isMlrbError(error)) throw error;
      throw new MlrbError(
        'BAD_MODEL',
        `${modelPath}: ${rebuildWhy(cache)}; ${error.message}`,
        { file: modelPath, tensor: cache.tensor, positionLimit: cache.rows, tokens },
        { cause: error },
      );
    }
  });
  const overrides = rebuilt.map((cache) => {
    const table = rebuildRotaryCache(cache, graph.tensorByName.get(cache.tensor)!.dims[1]!);
    return { name: table.name, elementType: table.elementType, dims: table.dims, base64: Buffer.from(table.data).toString('base64') };
  });
  return { rebuilt, overrides };
}

/**
 * The model's tokenizer: the kit fed real text through it, so without one the measurement cannot feed the kind of
 * input the kit did. BAD_TOKENIZER naming where it looked.
 */
function probeTokenizer(modelFolder: string, given: string | undefined): TextTokenizer {
  const file = path.resolve(given ?? path.join(modelFolder, 'tokenizer.json'));
  if (given === undefined && !existsSync(file)) {
    throw new MlrbError(
      'BAD_TOKENIZER',
      `no tokenizer at ${file}: the DRAM measurement feeds real text tokenized by the model's tokenizer, as the Edge-LLM kit did; put tokenizer.json beside the model`,
      { file },
    );
  }
  return loadTokenizer(file);
}

/**
 * One probe in its own child process, the request on its stdin. `report` is told when the child starts (loading
 * the model), when the model is loaded (the child's one progress line) and when the pass was measured.
 */
async function runProbe(request: ProbeRequest, timeoutMs: number, report: (stage: DramProbeProgress['stage']) => void): Promise<ProbeResult> {
  report('loading');
  const { stdout, stderr, failed } = await new Promise<{ stdout: string; stderr: string; failed: Error | null }>((resolve) => {
    const child = execFile(process.execPath, nodeScriptArguments(import.meta.url, 'probe'), { timeout: timeoutMs, maxBuffer: 16 << 20 }, (error, out, err) =>
      resolve({ stdout: out, stderr: err, failed: error }),
    );
    child.stdin?.end(JSON.stringify(request));
    // execFile keeps collecting stdout for the result; this only watches it for the child's one progress line.
    let tail = '';
    let loaded = false;
    child.stdout?.on('data', (chunk: Buffer | string) => {
      if (loaded) return;
      const text = `${tail}${String(chunk)}`;
      loaded = text.includes(PROBE_LOADED_MARKER);
      if (loaded) report('running');
      else tail = text.slice(-PROBE_LOADED_MARKER.length);
    });
  });
  const result = lineAfter(stdout, PROBE_RESULT_MARKER);
  if (result !== undefined) {
    report('done');
    return JSON.parse(result) as ProbeResult;
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

/** The probe a verdict judges: the largest device peak on 'cuda', else the largest RSS delta. */
function decidingProbe(probes: readonly DramProbe[]): DramProbe {
  const used = (probe: DramProbe): number => probe.devicePeakBytes ?? probe.peakDeltaBytes;
  return probes.reduce((largest, probe) => (used(probe) > used(largest) ? probe : largest));
}

export async function measureDram(modelPath: string, options: MeasureDramOptions = {}): Promise<DramMeasurement> {
  const tokens = options.tokens ?? DEFAULT_CONTEXT_TOKENS;
  if (!Number.isInteger(tokens) || tokens < 1) throw new RangeError(`tokens must be a positive integer, got ${tokens}`);
  const threads = options.threads ?? 0;
  if (!Number.isInteger(threads) || threads < 0) throw new RangeError(`threads must be a non-negative integer, got ${threads}`);
  const provider = checkDramProvider(options.provider);
  if (options.tokenizer !== undefined && (typeof options.tokenizer !== 'string' || options.tokenizer === '')) {
    throw new TypeError('tokenizer must name a tokenizer.json file');
  }
  const graphs = resolveModelGraphs(modelPath);
  const model = graphs.path;
  // An encoder-decoder export (a folder, its tokenizer inside) has relative positions only: no table bounds its
  // input and no rotary cache needs rebuilding.
  const positions = graphs.seq2seq === null ? await preparePositions(model, tokens) : { rebuilt: [], overrides: [] };
  const tokenizer = probeTokenizer(graphs.seq2seq === null ? path.dirname(model) : model, options.tokenizer);
  const planned: readonly PlannedProbe[] = planProbes(tokenizer, tokens);
  const probes: DramProbe[] = [];
  // One at a time: two probes at once would hold two copies of the model, and each must have the machine to itself.
  for (const [index, probe] of planned.entries()) {
    const request: ProbeRequest = {
      model,
      input: probe.input,
      threads,
      ortLibrary: options.ortLibrary ?? null,
      provider,
      initializerOverrides: positions.overrides,
    };
    const started = performance.now();
    const report = (stage: DramProbeProgress['stage']): void =>
      options.onProgress?.({
        stage,
        probe: probe.kind,
        index: index + 1,
        count: planned.length,
        tokens: inputTokens(probe.input),
        elapsedMs: performance.now() - started,
      });
    const result = await runProbe(request, options.timeoutMs ?? 600_000, report);
    probes.push({ kind: probe.kind, description: probe.description, ...result, peakDeltaBytes: Math.max(0, result.peakRssBytes - result.baselineRssBytes) });
  }
  const deciding = decidingProbe(probes);
  return {
    tokens,
    provider,
    peakDeltaBytes: deciding.peakDeltaBytes,
    devicePeakBytes: deciding.devicePeakBytes,
    decidingProbe: deciding.kind,
    probes,
    text: { ...DRAM_TEXT_SOURCE, tokenizer: tokenizer.path },
    rebuiltRotaryCaches: positions.rebuilt,
  };
}
