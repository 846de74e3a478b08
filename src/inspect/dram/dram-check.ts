/**
 * The DRAM verdict against a budget: an Edge-LLM track's or an explicit one. The measurement decides
 * when there is one (it is what the tracks check); otherwise the estimate does, and the verdict says so.
 * A measurement on the GPU is judged by its peak device memory: on the GPU, that is what the Edge-LLM kit
 * measured. Budgets are decimal (1 GB = 10^9 bytes): the stricter reading of the track rules.
 */
import type { DramEstimate } from './estimate.js';
import type { DramMeasurement } from './measure.js';
import { EDGE_TRACKS, limitFigures, type EdgeTrack, type LimitFigures } from '../track/rules.js';
import { formatBytes, formatCount } from '../units.js';
import { verdictOf, type Verdict } from '../verdict.js';

export { EDGE_TRACKS, type EdgeTrack } from '../track/rules.js';

export interface DramBudget extends LimitFigures {
  /** The track's name, or 'custom' for --dram-budget. */
  readonly source: EdgeTrack | 'custom';
  /** Where the limit comes from: the rule quoted with its source, or the operator's override. */
  readonly rule: string;
}

export interface DramCheck {
  readonly budget: DramBudget | null;
  readonly estimate: DramEstimate;
  readonly measurement: DramMeasurement | null;
  /**
   * What the verdict compared with the budget: the measured peak RSS delta ('measured', on the CPU), the
   * measured peak device memory ('measured-device', on CUDA), or the estimate.
   */
  readonly basis: 'measured' | 'measured-device' | 'estimate';
  readonly usedBytes: number;
  /** Why the measurement did not happen when it was asked for (the model does not load or run …). */
  readonly measurementError: { readonly code: string; readonly message: string } | null;
  readonly verdict: Verdict;
}

export function resolveBudget(track: EdgeTrack | undefined, dramBudgetBytes: number | undefined): DramBudget | null {
  if (track !== undefined && !(track in EDGE_TRACKS)) throw new RangeError(`unknown track '${String(track)}' (known: ${Object.keys(EDGE_TRACKS).join(', ')})`);
  if (dramBudgetBytes !== undefined && (!Number.isSafeInteger(dramBudgetBytes) || dramBudgetBytes <= 0)) {
    throw new RangeError(`dramBudgetBytes must be a positive integer, got ${dramBudgetBytes}`);
  }
  // An explicit budget overrides the track's.
  if (dramBudgetBytes !== undefined) return { ...limitFigures(dramBudgetBytes), source: 'custom', rule: 'operator override (--dram-budget / dramBudgetBytes)' };
  return track === undefined ? null : { ...limitFigures(EDGE_TRACKS[track].budgetBytes), source: track, rule: EDGE_TRACKS[track].limitSource };
}

export function checkDramBudget(
  estimate: DramEstimate,
  measurement: DramMeasurement | null,
  budget: DramBudget | null,
  measurementError: DramCheck['measurementError'] = null,
): DramCheck {
  const deviceBytes = measurement?.devicePeakBytes ?? null;
  const measuredBytes = measurement ? (deviceBytes ?? measurement.peakDeltaBytes) : null;
  const basis = measurement ? (deviceBytes !== null ? 'measured-device' : 'measured') : 'estimate';
  const usedBytes = measuredBytes ?? estimate.totalBytes;
  const reasons: string[] = [];
  const warnings: string[] = [];
  if (budget) {
    const label = budget.source === 'custom' ? 'the DRAM budget' : `the ${budget.source} budget`;
    if (usedBytes > budget.bytes) {
      const what = { measured: 'measured peak DRAM', 'measured-device': 'measured peak device memory', estimate: 'estimated DRAM' }[basis];
      reasons.push(`${what} ${formatBytes(usedBytes)} exceeds ${label} of ${formatBytes(budget.bytes)} by ${formatBytes(usedBytes - budget.bytes)}`);
    }
    if (measuredBytes !== null && estimate.totalBytes > budget.bytes !== measuredBytes > budget.bytes) {
      warnings.push(
        `the estimate (${formatBytes(estimate.totalBytes)}) and the measurement (${formatBytes(measuredBytes)}) fall on different sides of the budget`,
      );
    }
    if (!measurement && !measurementError) warnings.push('verdict from the estimate: no measurement was made');
    const limit = estimate.inputLimit;
    // Measured, the probe refuses such a graph (measurementError); estimated, the figure is for an input it cannot run.
    if (limit && !measurementError) {
      warnings.push(
        `the graph cannot run the ${formatCount(estimate.contextTokens)}-token input: its position table ${limit.tensor} has ${formatCount(limit.rows)} rows`,
      );
    }
  }
  // A model that cannot be measured cannot be shown to fit: the failure is the finding.
  if (measurementError) reasons.push(`the DRAM measurement failed (${measurementError.code}): ${measurementError.message}`);
  return { budget, estimate, measurement, basis, usedBytes, measurementError, verdict: verdictOf(reasons, warnings) };
}
