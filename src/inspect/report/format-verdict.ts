/** Verdict lines shared by the human-readable reports. */
import type { Verdict } from '../verdict.js';

export function formatVerdict(label: string, verdict: Verdict): string[] {
  return [
    `${label}: ${verdict.status === 'pass' ? 'PASS' : 'FAIL'}`,
    ...verdict.reasons.map((reason) => `  - ${reason}`),
    ...verdict.warnings.map((warning) => `  ! ${warning}`),
  ];
}
