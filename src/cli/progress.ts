/**
 * What a command prints on stderr besides its errors, in one place for every command: progress, notes (what
 * was written where, a summary) and warnings. `--quiet` keeps the warnings and drops the rest, so a quiet run
 * prints its results (stdout), its problems and nothing else.
 *
 * Progress: on a terminal a bar is redrawn in place (at most every REDRAW_INTERVAL_MS) and the last draw ends
 * the line; in logs (CI, files) a plain line is printed at each further tenth of the work or every
 * LOG_INTERVAL_MS, whichever comes first, and once at the end. Time comes from the events (or from when the
 * counter was made), so no timer is kept and a run that fails leaves nothing scheduled.
 *
 * The bar is drawn here rather than with a library (cli-progress and the like): the ETA has to come from
 * our token estimate anyway, the drawing is a few lines, and those libraries bring a redraw timer and
 * string-width dependencies that a one-line bar does not need.
 */
import type { ScoreProgress } from '../engine/score-requests.js';
import type { GenerationProgress } from '../generate/types.js';
import type { CliIo } from './exit-error.js';
import { WorkRateEstimator } from './progress-estimate.js';
import { formatBarLine, formatLogLine, SCORING_UNITS, type ProgressUnits } from './progress-render.js';

export { formatBarLine, formatDuration, formatLogLine } from './progress-render.js';

const REDRAW_INTERVAL_MS = 100;
const LOG_INTERVAL_MS = 30_000;
const LOG_STEPS = 10;

/** What the reporter needs of a stream: process.stderr, or a fake in tests. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): unknown;
}

export function createProgressReporter(
  label: string,
  stream: ProgressStream = process.stderr,
  units: ProgressUnits = SCORING_UNITS,
): (progress: ScoreProgress) => void {
  const estimator = new WorkRateEstimator();
  let lastWrittenMs = Number.NEGATIVE_INFINITY;
  let lastLoggedStep = 0;
  let ended = false;
  return (progress) => {
    const estimate = estimator.update(progress);
    if (ended) return;
    ended = estimate.finished;
    if (stream.isTTY) {
      if (!estimate.finished && progress.elapsedMs - lastWrittenMs < REDRAW_INTERVAL_MS) return;
      lastWrittenMs = progress.elapsedMs;
      const line = formatBarLine(label, progress, estimate, stream.columns, units);
      stream.write(`\r${line}\u001b[K${estimate.finished ? '\n' : ''}`);
      return;
    }
    const step = Math.floor(estimate.fraction * LOG_STEPS);
    if (estimate.finished || step > lastLoggedStep || progress.elapsedMs - lastWrittenMs >= LOG_INTERVAL_MS) {
      lastLoggedStep = Math.max(lastLoggedStep, step);
      lastWrittenMs = progress.elapsedMs;
      stream.write(`${formatLogLine(label, progress, estimate, units)}\n`);
    }
  };
}

/** Work counted in whole items (prompts, runs, charts): `update(done, total)` as each finishes. */
export type CountProgress = (done: number, total: number) => void;

/** A command's stderr, as every command uses it. */
export interface CommandStatus {
  /** Whether --quiet was given (commands need not ask: the methods below already obey it). */
  readonly quiet: boolean;
  /** A line of information: a stage begun, a summary, where a file was written. */
  note(line: string): void;
  /** A problem that did not stop the command; printed even with --quiet. */
  warn(message: string): void;
  /** Progress of lm-eval scoring, one bar per label (suites scored together share one). */
  scoring(progress: ScoreProgress & { readonly label?: string }): void;
  /** Progress of work counted in `unit`s; its ETA is from the items' own rate. */
  counter(label: string, unit: string): CountProgress;
  /** Progress of text generation, counted in prompts. */
  generation(label: string): (progress: GenerationProgress) => void;
}

const SILENT: CountProgress = () => undefined;

export function commandStatus(io: CliIo, options: { readonly quiet: boolean }): CommandStatus {
  const stream = io.stderr as NodeJS.WritableStream & ProgressStream;
  const scoringBars = new Map<string, (progress: ScoreProgress) => void>();
  const counter = (label: string, unit: string): CountProgress => {
    if (options.quiet) return SILENT;
    const report = createProgressReporter(label, stream, { items: unit, work: unit });
    const started = performance.now();
    return (done, total) => report({ requestsDone: done, requestsTotal: total, tokensDone: done, tokensTotal: total, elapsedMs: performance.now() - started });
  };
  return {
    quiet: options.quiet,
    note: (line) => {
      if (!options.quiet) io.stderr.write(`${line}\n`);
    },
    warn: (message) => io.stderr.write(`warning: ${message}\n`),
    scoring: (progress) => {
      if (options.quiet) return;
      const label = progress.label ?? 'scoring';
      let bar = scoringBars.get(label);
      if (bar === undefined) {
        bar = createProgressReporter(label, stream);
        scoringBars.set(label, bar);
      }
      bar(progress);
    },
    counter,
    generation: (label) => {
      const update = counter(label, 'prompts');
      return (progress) => update(progress.finishedPrompts, progress.totalPrompts);
    },
  };
}
