/**
 * The verdict every check returns: pass or fail, the reasons for a fail, and warnings that do not fail
 * (bf16 weights when configured to warn, an estimate that disagrees with the measurement …).
 */
export interface Verdict {
  readonly status: 'pass' | 'fail';
  readonly reasons: readonly string[];
  readonly warnings: readonly string[];
}

export function verdictOf(reasons: readonly string[], warnings: readonly string[] = []): Verdict {
  return { status: reasons.length > 0 ? 'fail' : 'pass', reasons: [...reasons], warnings: [...warnings] };
}

/** Several checks' verdicts as one: fails when any fails, keeps every reason and warning. */
export function combineVerdicts(verdicts: readonly Verdict[]): Verdict {
  return verdictOf(
    verdicts.flatMap((verdict) => verdict.reasons),
    verdicts.flatMap((verdict) => verdict.warnings),
  );
}
