/**
 * `check-track`: one verdict for an Edge-LLM track, from the checks that track's rules need, each run once.
 *   edge-compression: no quantization + DRAM within 12 GB + genuine structural pruning of Phi-2 (or --base)
 *   edge-training:    no quantization + DRAM within 1 GB
 * The checks are the public ones `inspect` and `check-pruning` run (checkEdgeModel, checkPruning); this
 * module only decides which apply and labels their findings. The metadata is read once by each of them:
 * checkPruning reads its model from a path, so sharing one graph would mean re-implementing it here.
 */
import { EDGE_TRACKS, type DramCheck, type EdgeTrack } from './dram-check.js';
import { checkEdgeModel } from './edge-check.js';
import type { InspectReport } from './inspect-report.js';
import { PHI2_CONFIG_PATH } from './phi2-config.js';
import { checkPruning, type PruningReport } from './pruning-check.js';
import type { QuantizationCheck } from './quantization-check.js';
import type { DramProbeProgress } from './dram-measure.js';
import { parseTrackCheckArguments, type TrackCheckOptions } from './track-options.js';
import { combineTrackVerdicts, type TrackVerdict } from './track-verdict.js';

export interface TrackChecks {
  readonly quantization: QuantizationCheck;
  readonly dram: DramCheck;
  /** edge-compression only: the training track has no base to compare with. */
  readonly pruning?: PruningReport;
}

export interface TrackReport {
  readonly track: EdgeTrack;
  readonly description: string;
  readonly model: string;
  readonly verdict: TrackVerdict;
  /** What the model is made of (parameters, bytes by dtype, architecture): the DRAM estimate's inputs. */
  readonly inspect: InspectReport;
  readonly checks: TrackChecks;
}

export async function checkTrack(track: EdgeTrack, modelPath: string, options: TrackCheckOptions = {}): Promise<TrackReport> {
  const parsed = parseTrackCheckArguments(track, options);
  if (typeof modelPath !== 'string' || modelPath === '') throw new TypeError('modelPath must be a non-empty string');
  const o = parsed.options;
  const runtime = {
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
    ...(o.ortLibrary !== undefined ? { ortLibrary: o.ortLibrary } : {}),
  };
  // Pruning first: it is the cheaper of the two and the likelier to fail outright (a model that cannot be
  // compared with the base), before the DRAM measurement's child process spends its minutes. Sequential, not
  // in parallel, so the operator's machine holds one copy of the model at a time.
  if (parsed.track === 'edge-compression') o.onProgress?.({ check: 'pruning' });
  const pruning = parsed.track === 'edge-compression'
    ? await checkPruning(modelPath, { base: o.base ?? PHI2_CONFIG_PATH, ...runtime })
    : undefined;
  o.onProgress?.({ check: 'graph' });
  const edge = await checkEdgeModel(modelPath, {
    track: parsed.track,
    ...(o.dramBudgetBytes !== undefined ? { dramBudgetBytes: o.dramBudgetBytes } : {}),
    measure: o.measureDram,
    provider: o.provider,
    ...runtime,
    ...(o.onProgress !== undefined ? { onDramProgress: (progress: DramProbeProgress) => o.onProgress?.({ check: 'dram', ...progress }) } : {}),
  });
  const verdict = combineTrackVerdicts({
    quantization: edge.quantization.verdict,
    dram: edge.dram.verdict,
    ...(pruning ? { pruning: pruning.verdict } : {}),
  });
  return {
    track: parsed.track,
    description: EDGE_TRACKS[parsed.track].description,
    model: edge.inspect.model,
    verdict,
    inspect: edge.inspect,
    checks: { quantization: edge.quantization, dram: edge.dram, ...(pruning ? { pruning } : {}) },
  };
}
