/**
 * Whether a model may be counted for its task. The edge tasks have rules a model file shows (no quantization,
 * a DRAM limit, genuine pruning of the base), judged by the existing track check; its verdict is used as it
 * stands. The other tasks' rules are about how the model was made, so the record says they are unchecked and
 * lists them, rather than implying a pass.
 */
import type { TrackReport } from '../inspect/track-check.js';
import type { Eligibility } from './run-record.js';
import type { EligibilityRule } from './tasks.js';

/** What became of the track check for a task whose rule is a track. */
export type TrackOutcome =
  | { readonly kind: 'report'; readonly report: TrackReport }
  /** The check could not judge the model (it failed to run, or a mini task lacks its base). */
  | { readonly kind: 'not_run'; readonly reason: string };

export function judgeEligibility(rule: EligibilityRule, track: TrackOutcome | undefined): Eligibility {
  if (rule.kind === 'unverifiable') {
    return { status: 'unchecked', rule: 'unverifiable', reasons: rule.rules.map((message) => ({ check: 'rules', message })), warnings: [] };
  }
  const ruleName = `check-track ${rule.track}`;
  if (track === undefined || track.kind === 'not_run') {
    return { status: 'unchecked', rule: ruleName, reasons: [{ check: 'track', message: track?.reason ?? 'the track check was not run' }], warnings: [] };
  }
  const { verdict } = track.report;
  return {
    status: verdict.status === 'fail' ? 'ineligible' : 'eligible',
    rule: ruleName,
    reasons: verdict.reasons.map((item) => ({ ...item })),
    warnings: verdict.warnings.map((item) => ({ ...item })),
  };
}
