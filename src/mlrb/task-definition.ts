/**
 * The shape of an MLRB task definition (the data is in src/mlrb/definitions/, one file per task): for the full
 * task and its mini_ variant, what each of MLRB's sources runs, which of them a run follows and why, what we
 * run (suites, headline, eligibility, model metrics) and each deliberate difference from the source followed.
 * The runner (run-task.ts) and the documentation table (definitions-table.ts) read these and nothing else.
 */
import type { EdgeTrack } from '../inspect/dram/dram-check.js';
import type { SourceReading } from './sources.js';

/** An lm-eval suite the task runs; `name` is a `--tasks` name, so `mlrb-eval MODEL --tasks NAME` is the same run. */
export interface TaskSuite {
  readonly name: string;
  /**
   * headline: the headline is computed from it, and the run is complete only when it is scored whole.
   * extra: scored when its data is given and reported beside the headline; without its data the record says
   * what to fetch, and the run is still complete.
   */
  readonly role: 'headline' | 'extra';
}

/** Where the headline number sits in lm-eval's results: a group or task entry and one of its metrics. */
export interface HeadlineMetric {
  readonly kind: 'metric';
  /** What the number is, for people ("MMLU accuracy"). */
  readonly label: string;
  /** The suite (one of the variant's, role headline) that must be scored for the headline to exist. */
  readonly suite: string;
  /** The group or task name in lm-eval's results (`mmlu`, `superglue`, `blimp`). */
  readonly entry: string;
  readonly metric: string;
}

/** A number of the math-reasoning report (generated proofs), not of lm-eval: the Lean compile rate. */
export interface HeadlineGenerated {
  readonly kind: 'generated';
  readonly label: string;
  /** The report's metric: `lean.compile_rate` needs a Lean toolchain (--lean). */
  readonly metric: 'lean.compile_rate';
}

/** MLRB defines no single number for the variant (the mini tasks: agent-eval prints four model metrics). */
export interface HeadlineNone {
  readonly kind: 'none';
  readonly label: string;
  readonly reason: string;
}

export type HeadlineRule = HeadlineMetric | HeadlineGenerated | HeadlineNone;

/** What decides whether a model may be counted for the task. */
export type EligibilityRule =
  /** The edge track's verdict (`mlrb-eval check-track TRACK MODEL`), each of its gates measured. */
  | { readonly kind: 'track'; readonly track: EdgeTrack }
  /** Rules about how the model was made, which no check of the model file can see. */
  | { readonly kind: 'unverifiable'; readonly rules: readonly string[] };

/** One variant (the full task, or its mini_ one) as MLRB's sources define it and as a run does it. */
export interface VariantDefinition {
  /** What each of MLRB's sources runs for the variant (prompt, run.sh, run_evals.sh or run_mini_evals.sh, README, paper). */
  readonly readings: readonly SourceReading[];
  /** The reading a run follows; the record names it. */
  readonly followed: SourceReading;
  /** Why that one (the prompt unless its command cannot run; then the paper; then run.sh). */
  readonly why: string;
  readonly suites: readonly TaskSuite[];
  readonly headline: HeadlineRule;
  readonly eligibility: EligibilityRule;
  /** on_request: with --model-metrics; always: the variant is the model metrics (the mini tasks). */
  readonly modelMetrics: 'on_request' | 'always';
  /** Our deliberate differences from the source followed, each named; in the record and the docs. */
  readonly differences: readonly string[];
}

export interface MlrbTaskDefinition<Name extends string = string> {
  readonly name: Name;
  /** MLRB's name for the task (`agent-eval --task`). */
  readonly mlrbName: string;
  readonly title: string;
  readonly full: VariantDefinition;
  readonly mini: VariantDefinition;
}
