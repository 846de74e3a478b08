/**
 * Whether a model may be counted for its task. The edge tasks have rules a model file shows, judged by the
 * track check (check-track), whose gates are exactly those rules (no quantization, FP16/FP32 weights, DRAM within
 * the limit, and for compression derived from Phi-2), used as they stand, gate by gate. Eligibility is never
 * granted by an estimate or an open question: a DRAM figure that was not measured (--skip-dram), or a lineage that
 * could not be traced (a config.json base has no weights), judges nothing, so that gate is `not_judged` and the
 * record is not eligible. The other tasks' rules are
 * about how the model was made, so the record says they are unchecked and lists them, rather than implying a pass.
 */
import type { TrackReport } from '../inspect/track/track-check.js';
import { TRACK_CHECK_NAMES, type TrackCheckName } from '../inspect/track/verdict.js';
import { formatBytes } from '../inspect/units.js';
import type { Eligibility, EligibilityGate } from './run-record.js';
import type { EligibilityRule } from './task-definition.js';

/** What became of the track check for a task whose rule is a track. */
export type TrackOutcome =
  | { readonly kind: 'report'; readonly report: TrackReport }
  /** The check could not judge the model (it failed to run, or a mini task lacks its base). */
  | { readonly kind: 'not_run'; readonly reason: string };

/** How to get the DRAM gate judged: what the reason of a not_judged DRAM gate says. */
export const MEASURE_DRAM =
  "run without --skip-dram: the DRAM gate is judged by measuring the model (a child process runs it on the track's input and its peak memory is compared with the budget)";

export function judgeEligibility(rule: EligibilityRule, track: TrackOutcome | undefined): Eligibility {
  if (rule.kind === 'unverifiable') {
    return { status: 'unchecked', rule: 'unverifiable', gates: [], reasons: rule.rules.map((message) => ({ check: 'rules', message })), warnings: [] };
  }
  const ruleName = `check-track ${rule.track}`;
  if (track === undefined || track.kind === 'not_run') {
    return {
      status: 'not_judged',
      rule: ruleName,
      gates: [],
      reasons: [{ check: 'track', message: track?.reason ?? 'the track check was not run' }],
      warnings: [],
    };
  }
  const { report } = track;
  const gates = TRACK_CHECK_NAMES.filter((check) => report.checks[check] !== undefined).map((check) => gateOf(report, check));
  const reasons = report.verdict.reasons
    .filter((item) => gates.find((gate) => gate.check === item.check)?.status !== 'not_judged')
    .map((item) => ({ ...item }));
  const notJudged = gates.filter((gate) => gate.status === 'not_judged').map((gate) => ({ check: gate.check, message: gate.reason ?? 'not judged' }));
  // A failing verdict without a failing gate would be a check that failed without a reason: trust its status.
  const failed = gates.some((gate) => gate.status === 'fail') || (report.verdict.status === 'fail' && reasons.length > 0);
  return {
    status: failed ? 'ineligible' : notJudged.length > 0 ? 'not_judged' : 'eligible',
    rule: ruleName,
    gates,
    reasons: [...reasons, ...notJudged],
    warnings: report.verdict.warnings.map((item) => ({ ...item })),
  };
}

/** One gate's outcome from the verdict: failed when the verdict names a reason of its check. */
function gateOf(report: TrackReport, check: TrackCheckName): EligibilityGate {
  if (check === 'dram') {
    const { dram } = report.checks;
    // No measurement and no failed attempt: the verdict judged the estimate, which grants nothing.
    if (dram.measurement === null && dram.measurementError === null) {
      const budget = dram.budget === null ? '' : ` against a budget of ${formatBytes(dram.budget.bytes)}`;
      return {
        check,
        status: 'not_judged',
        reason: `DRAM was not measured; the estimate (${formatBytes(dram.estimate.totalBytes)}${budget}) judges nothing: ${MEASURE_DRAM}`,
      };
    }
  }
  // Derivation from the base needs its weights: a config.json base leaves the gate open, never passed.
  const notJudged = check === 'lineage' ? (report.checks.lineage?.notJudged ?? null) : null;
  if (notJudged !== null) return { check, status: 'not_judged', reason: notJudged };
  const failed = report.verdict.reasons.some((item) => item.check === check);
  return { check, status: failed ? 'fail' : 'pass', reason: null };
}
