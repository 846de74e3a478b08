/**
 * The task's headline number, read by the variant's rule: from lm-eval's results (the named suite's entry and
 * metric), from the math-reasoning report (the Lean compile rate), or none where MLRB defines none (the mini
 * tasks). A number is given only when its data was scored whole: a partial folder renames the group
 * `<name>_partial` (src/tasks/partial.ts) and --limit scores a prefix of each task, and either way the result is
 * not the task's score.
 */
import type { LmEvalResults } from '../eval/result-types.js';
import type { MathReasoningReport } from '../math-reasoning/score.js';
import { PARTIAL_SUFFIX } from '../tasks/partial.js';
import type { Headline, SuiteOutcome } from './run-record.js';
import type { HeadlineGenerated, HeadlineRule } from './task-definition.js';

/** lm-eval keys every metric with its filter; ours is always `none`. */
const FILTER = 'none';

export interface HeadlineInput {
  readonly rule: HeadlineRule;
  readonly suites: readonly SuiteOutcome[];
  /** null when no suite was scored. */
  readonly results: LmEvalResults | null;
  readonly limit: number | undefined;
  /** For a `generated` headline: the math-reasoning run's report, or why there is none. */
  readonly generated?: GeneratedOutcome;
}

export type GeneratedOutcome = { readonly kind: 'scored'; readonly report: MathReasoningReport } | { readonly kind: 'not_scored'; readonly reason: string };

/** What a compile-rate headline lacks without a Lean toolchain. */
export const LEAN_NEEDED =
  'the headline is the Lean compile rate, which needs a Lean 3 toolchain: give --lean PATH (lean, or lake run from a Lean project); BLEU and ROUGE-L are in math_reasoning';

export function computeHeadline({ rule, suites, results, limit, generated }: HeadlineInput): Headline {
  if (rule.kind === 'none') return { label: rule.label, source: null, status: 'unavailable', value: null, reasons: [rule.reason] };
  if (rule.kind === 'generated') return generatedHeadline(rule, generated, limit);
  const metric = `${rule.metric},${FILTER}`;
  const base = { label: rule.label, source: { kind: 'lm_eval' as const, suite: rule.suite, entry: rule.entry, metric } };
  const suite = suites.find((outcome) => outcome.name === rule.suite);
  if (suite === undefined || suite.status === 'not_scored' || results === null) {
    return { ...base, status: 'not_scored', value: null, reasons: [`${rule.suite} was not scored: ${suite?.reason ?? 'it is not among the suites run'}`] };
  }
  const entries = { ...results.results, ...results.groups };
  const partialEntry = `${rule.entry}${PARTIAL_SUFFIX}`;
  if (entries[rule.entry] === undefined && entries[partialEntry] !== undefined) {
    return {
      ...base,
      status: 'partial',
      value: null,
      reasons: [`${rule.suite} was scored on part of its data only (lm_eval: ${partialEntry}): ${suite.reason ?? 'subtasks are missing'}`],
    };
  }
  if (limit !== undefined) {
    return { ...base, status: 'partial', value: null, reasons: [`--limit ${limit}: only the first documents of each task were scored`] };
  }
  const value = entries[rule.entry]?.[metric as `${string},${string}`];
  if (typeof value !== 'number') {
    // The definitions are tested against the suites' results, so this is a definition out of step with a loader.
    throw new RangeError(`lm-eval results have no ${metric} for ${rule.entry}; the MLRB task definition does not match the ${rule.suite} suite`);
  }
  return { ...base, status: 'scored', value, reasons: [] };
}

/** The number comes from the record's math_reasoning report (metrics.lean.compile_rate), not from lm_eval. */
function generatedHeadline(rule: HeadlineGenerated, generated: GeneratedOutcome | undefined, limit: number | undefined): Headline {
  const base = { label: rule.label, source: { kind: 'math_reasoning' as const, metric: rule.metric } };
  if (generated === undefined || generated.kind === 'not_scored') {
    return { ...base, status: 'not_scored', value: null, reasons: [generated?.reason ?? 'no generation was run'] };
  }
  const { report } = generated;
  const lean = report.metrics.lean;
  if (lean === null) return { ...base, status: 'not_scored', value: null, reasons: [LEAN_NEEDED] };
  // As for lm-eval headlines, a --limit run never gives a number, even when the limit reached every problem.
  if (limit !== undefined) {
    return {
      ...base,
      status: 'partial',
      value: null,
      reasons: [`--limit ${limit}: ${report.problems_scored} of ${report.problems_in_file} problems were scored`],
    };
  }
  return { ...base, status: 'scored', value: lean.compile_rate, reasons: [] };
}
