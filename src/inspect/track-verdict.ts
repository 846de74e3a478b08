/**
 * One verdict for a whole edge track, built from the verdicts of the checks the track needs. Every reason and
 * warning keeps the name of the check it came from, so an operator reading "FAIL" sees at once which rule the
 * model broke. 'warn' is a pass that carries warnings (a DRAM figure from the estimate, a gate that could not be
 * judged, fake-quantized weights …): the model meets the track as far as the checks can tell, but a person
 * should read the warnings before accepting it.
 */
import type { Verdict } from './verdict.js';

/** The gates, in report order: each is a rule of the track (track-rules.ts). */
export const TRACK_CHECK_NAMES = ['quantization', 'dtype', 'dram', 'lineage'] as const;
export type TrackCheckName = (typeof TRACK_CHECK_NAMES)[number];

export interface TrackFinding {
  readonly check: TrackCheckName;
  readonly message: string;
}

export interface TrackVerdict {
  readonly status: 'pass' | 'warn' | 'fail';
  readonly reasons: readonly TrackFinding[];
  readonly warnings: readonly TrackFinding[];
}

/** Checks in TRACK_CHECK_NAMES order, whatever order the caller listed them in, so reports read the same. */
export function combineTrackVerdicts(verdicts: Partial<Readonly<Record<TrackCheckName, Verdict>>>): TrackVerdict {
  const ran = TRACK_CHECK_NAMES.flatMap((check) => {
    const verdict = verdicts[check];
    return verdict === undefined ? [] : [{ check, verdict }];
  });
  const reasons = ran.flatMap(({ check, verdict }) => verdict.reasons.map((message) => ({ check, message })));
  const warnings = ran.flatMap(({ check, verdict }) => verdict.warnings.map((message) => ({ check, message })));
  // A check may fail without a reason of its own only if its author forgot one; trust its status anyway.
  const failed = reasons.length > 0 || ran.some(({ verdict }) => verdict.status === 'fail');
  return { status: failed ? 'fail' : warnings.length > 0 ? 'warn' : 'pass', reasons, warnings };
}
