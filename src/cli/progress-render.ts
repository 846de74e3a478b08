/**
 * Progress text: a one-line bar for terminals and a plain line for logs. Both show the items done/total (lm-eval
 * requests, prompts, runs …), the rate of the work the ETA counts (tokens for scoring, else the items), elapsed
 * time and the ETA ("ETA …" until the estimate is trusted).
 */
import type { ScoreProgress } from '../eval/score-requests.js';
import type { WorkEstimate } from './progress-estimate.js';

/** What is counted: the items shown done/total, and the work whose rate is shown (and the ETA is based on). */
export interface ProgressUnits {
  readonly items: string;
  readonly work: string;
}

/** Scoring: requests done, tokens per second. */
export const SCORING_UNITS: ProgressUnits = { items: 'req', work: 'tok' };

/** The widest line drawn, even on a wider terminal. */
export const MAX_LINE_COLUMNS = 100;
const MAX_LABEL_COLUMNS = 24;
const MAX_BAR_COLUMNS = 30;
const MIN_BAR_COLUMNS = 10;

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  const seconds = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, '0')}m`;
  return minutes > 0 ? `${minutes}m${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`;
}

const count = (value: number): string => Math.round(value).toLocaleString('en-US');
/** A rate with one decimal below 10 (0.4 prompts/s), whole above. */
const rate = (value: number): string => (value < 10 ? value.toFixed(1) : count(value));

function shortLabel(label: string): string {
  return label.length <= MAX_LABEL_COLUMNS ? label : `${label.slice(0, MAX_LABEL_COLUMNS - 1)}…`;
}

function details(progress: ScoreProgress, estimate: WorkEstimate, units: ProgressUnits): string {
  const eta = estimate.finished ? 'done' : estimate.etaMs === undefined ? 'ETA …' : `ETA ${formatDuration(estimate.etaMs)}`;
  // Requests answered by the score cache cost no work: the percentage and ETA are of the tokens left.
  const fromCache = progress.requestsFromCache ? ` (${count(progress.requestsFromCache)} cached)` : '';
  return (
    `${count(progress.requestsDone)}/${count(progress.requestsTotal)} ${units.items}${fromCache} · ${rate(estimate.tokensPerSecond)} ${units.work}/s · ` +
    `${formatDuration(progress.elapsedMs)} · ${eta}`
  );
}

const percent = (estimate: WorkEstimate): string => `${Math.floor(estimate.fraction * 100)}%`.padStart(4);

/** A plain line for logs; the percentage is of the work (tokens), which the ETA is based on. */
export function formatLogLine(label: string, progress: ScoreProgress, estimate: WorkEstimate, units: ProgressUnits = SCORING_UNITS): string {
  return `[${label}] ${percent(estimate).trim()} · ${details(progress, estimate, units)}`;
}

/**
 * One terminal line narrower than `columns` (and at most MAX_LINE_COLUMNS): a line that fills the last
 * column wraps on some terminals. The bar shrinks, then goes. A pseudo-terminal may report 0 columns.
 */
export function formatBarLine(label: string, progress: ScoreProgress, estimate: WorkEstimate, columns = 0, units: ProgressUnits = SCORING_UNITS): string {
  const width = columns > 0 ? Math.min(columns - 1, MAX_LINE_COLUMNS) : MAX_LINE_COLUMNS;
  const head = `${shortLabel(label)} `;
  const tail = ` ${percent(estimate)} ${details(progress, estimate, units)}`;
  const barColumns = Math.min(MAX_BAR_COLUMNS, width - head.length - tail.length - 2);
  if (barColumns < MIN_BAR_COLUMNS) return `${head}${tail.trimStart()}`.slice(0, width);
  const filled = Math.round(estimate.fraction * barColumns);
  return `${head}[${'█'.repeat(filled)}${'░'.repeat(barColumns - filled)}]${tail}`;
}
