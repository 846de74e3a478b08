/**
 * `check-track`: one verdict for an Edge-LLM track, gated by exactly the rules its sources state (track/rules.ts):
 *   both tracks:      no quantization (the allow-list) + weights FP16/FP32 + DRAM within the limit, measured
 *   edge-compression: + derived from Phi-2 (or --base), judged by the lineage of the weights
 * Everything else is information: check-pruning's report (% of parameters removed, sparsity, zeros that save
 * nothing, widths kept) rides along under `pruning` with its own, stricter verdict ("is this a real structural
 * pruning?"), which gates nothing. Rules no file can prove are listed as `unchecked`. The checks are the public ones
 * `inspect` and `check-pruning` run (checkEdgeModel, checkPruning); this module decides which apply and labels
 * their findings.
 */
import { judgeDerivation, type DerivationCheck } from './derivation-check.js';
import type { DramCheck } from '../dram/dram-check.js';
import { checkEdgeModel } from '../edge-check.js';
import type { InspectReport } from '../report/inspect-report.js';
import { PHI2_CONFIG_PATH } from '../config/phi2-config.js';
import { checkPruning, type PruningReport } from '../pruning/pruning-check.js';
import type { DramProbeProgress } from '../dram/measure.js';
import type { QuantizationCheck, WeightDtypeCheck } from '../quantization/quantization-check.js';
import { parseTrackCheckArguments, type TrackCheckOptions } from './options.js';
import { EDGE_TRACKS, type EdgeTrack, type TrackRules } from './rules.js';
import { combineTrackVerdicts, type TrackVerdict } from './verdict.js';

export interface TrackChecks {
  readonly quantization: QuantizationCheck;
  /** Weights FP16 or FP32 (bfloat16 and float64 fail). */
  readonly dtype: WeightDtypeCheck;
  readonly dram: DramCheck;
  /** edge-compression only: derived from the base (Phi-2 by default). */
  readonly lineage?: DerivationCheck;
}

export interface TrackReport {
  readonly track: EdgeTrack;
  readonly description: string;
  readonly model: string;
  readonly verdict: TrackVerdict;
  /** What the model is made of (parameters, bytes by dtype, architecture): the DRAM estimate's inputs. */
  readonly inspect: InspectReport;
  /** The gates, each a rule of the track. */
  readonly checks: TrackChecks;
  /**
   * The rule each gate judges, quoted with its source, and the rules no model file can prove (how the model was
   * trained or compressed): `unchecked`, never a pass.
   */
  readonly rules: { readonly gates: TrackRules['gates']; readonly unchecked: readonly string[] };
  /**
   * edge-compression only, information: check-pruning against the base. Its verdict is check-pruning's own
   * ("is this a genuine structural pruning?"), stricter than the track's rules, and gates nothing.
   */
  readonly pruning?: PruningReport;
}

export async function checkTrack(track: EdgeTrack, modelPath: string, options: TrackCheckOptions = {}): Promise<TrackReport> {
  const parsed = parseTrackCheckArguments(track, options);
  if (typeof modelPath !== 'string' || modelPath === '') throw new TypeError('modelPath must be a non-empty string');
  const o = parsed.options;
  const runtime = {
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
    ...(o.ortLibrary !== undefined ? { ortLibrary: o.ortLibrary } : {}),
  };
  const rules: TrackRules = EDGE_TRACKS[parsed.track];
  // Pruning (and its lineage) first: the cheaper of the two, before the DRAM measurement's child processes spend
  // their minutes. Sequential, not in parallel, so the operator's machine holds one copy of the model at a time.
  if (rules.gates.lineage !== undefined) o.onProgress?.({ check: 'pruning' });
  const pruning = rules.gates.lineage !== undefined ? await checkPruning(modelPath, { base: o.base ?? PHI2_CONFIG_PATH, ...runtime }) : undefined;
  o.onProgress?.({ check: 'graph' });
  const edge = await checkEdgeModel(modelPath, {
    track: parsed.track,
    ...(o.dramBudgetBytes !== undefined ? { dramBudgetBytes: o.dramBudgetBytes } : {}),
    measure: o.measureDram,
    provider: o.provider,
    bf16: 'fail',
    ...runtime,
    ...(o.onProgress !== undefined ? { onDramProgress: (progress: DramProbeProgress) => o.onProgress?.({ check: 'dram', ...progress }) } : {}),
  });
  const lineage = pruning ? judgeDerivation(pruning) : undefined;
  const verdict = combineTrackVerdicts({
    quantization: edge.quantization.verdict,
    dtype: edge.weightDtypes.verdict,
    dram: edge.dram.verdict,
    ...(lineage ? { lineage: lineage.verdict } : {}),
  });
  return {
    track: parsed.track,
    description: rules.description,
    model: edge.inspect.model,
    verdict,
    inspect: edge.inspect,
    checks: { quantization: edge.quantization, dtype: edge.weightDtypes, dram: edge.dram, ...(lineage ? { lineage } : {}) },
    rules: { gates: rules.gates, unchecked: rules.unchecked },
    ...(pruning ? { pruning } : {}),
  };
}
