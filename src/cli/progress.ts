/**
 * Progress on stderr. On a terminal a bar is redrawn in place (at most every REDRAW_INTERVAL_MS) and the
 * last draw ends the line; in logs (CI, files) a plain line is printed at each further tenth of the work or
 * every LOG_INTERVAL_MS, whichever comes first, and once at the end. Time is the events' elapsedMs, so the
 * reporter keeps no timer of its own and a run that fails leaves nothing scheduled.
 *
 * The bar is drawn here rather than with a library (cli-progress and the like): the ETA has to come from
 * our token estimate anyway, the drawing is a few lines, and those libraries bring a redraw timer and
 * string-width dependencies that a one-line bar does not need.
 */
import type { ScoreProgress } from '../eval/score-requests.js';
import { WorkRateEstimator } from './progress-estimate.js';
import { formatBarLine, formatLogLine } from './progress-render.js';

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

export function createProgressReporter(label: string, stream: ProgressStream = process.stderr): (progress: ScoreProgress) => void {
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
      const line = formatBarLine(label, progress, estimate, stream.columns);
      stream.write(`\r${line}\u001b[K${estimate.finished ? '\n' : ''}`);
      return;
    }
    const step = Math.floor(estimate.fraction * LOG_STEPS);
    if (estimate.finished || step > lastLoggedStep || progress.elapsedMs - lastWrittenMs >= LOG_INTERVAL_MS) {
      lastLoggedStep = Math.max(lastLoggedStep, step);
      lastWrittenMs = progress.elapsedMs;
      stream.write(`${formatLogLine(label, progress, estimate)}\n`);
    }
  };
}
