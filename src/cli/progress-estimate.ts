/**
 * The work estimate behind the progress bar. Work is tokens, not requests: rows are sorted longest first,
 * so early batches hold few requests and a request-based ETA overestimates many times over (a 3-minute run
 * once showed 154 minutes). While later chunks are still being tokenized, the token total is extrapolated
 * from the requests tokenized so far. The rate is an exponential moving average over time, seeded from a
 * few seconds of observed work after the first event (which carries start-up and warm-up), and no ETA is
 * given before then.
 */
import type { ScoreProgress } from '../engine/score-requests.js';

/** Work observed after the first event before the rate is trusted. */
export const MIN_OBSERVED_MS = 3_000;
const MIN_OBSERVED_EVENTS = 2;
/** Time constant of the rate's moving average: old rates weigh e^(-t/τ). */
const RATE_TIME_CONSTANT_MS = 20_000;
// Events closer than this are folded into one step, so bursts of concurrent passes read as one.
const MIN_STEP_MS = 250;

export interface WorkEstimate {
  /** Fraction of the estimated total tokens done, in [0, 1]; 1 once every request is done. */
  readonly fraction: number;
  readonly tokensPerSecond: number;
  /** Undefined until enough work has been observed to trust the rate. */
  readonly etaMs: number | undefined;
  readonly finished: boolean;
}

interface Sample {
  readonly elapsedMs: number;
  readonly tokensDone: number;
}

/** The token total the run will reach: exact once tokenization is final, otherwise extrapolated per request. */
export function estimatedTotalTokens(progress: ScoreProgress): number {
  if (progress.tokensTotalFinal !== false) return progress.tokensTotal;
  const tokenized = progress.requestsTokenized;
  if (tokenized === undefined || tokenized <= 0) return progress.tokensTotal;
  return Math.max(progress.tokensTotal, (progress.tokensTotal * progress.requestsTotal) / tokenized);
}

export class WorkRateEstimator {
  private baseline: Sample | undefined;
  private last: Sample | undefined;
  private eventsSinceBaseline = 0;
  private rate: number | undefined;

  update(progress: ScoreProgress): WorkEstimate {
    const now = { elapsedMs: progress.elapsedMs, tokensDone: progress.tokensDone };
    this.observe(now);
    const finished = progress.requestsDone >= progress.requestsTotal;
    const total = estimatedTotalTokens(progress);
    const fraction = finished ? 1 : total > 0 ? Math.min(1, progress.tokensDone / total) : 0;
    const averageRate = progress.elapsedMs > 0 ? (progress.tokensDone * 1000) / progress.elapsedMs : 0;
    const tokensPerSecond = this.rate ?? averageRate;
    const etaMs = finished ? 0 : this.rate !== undefined && this.rate > 0 ? (Math.max(0, total - progress.tokensDone) / this.rate) * 1000 : undefined;
    return { fraction, tokensPerSecond, etaMs, finished };
  }

  private observe(now: Sample): void {
    if (!this.baseline) {
      this.baseline = now;
      return;
    }
    this.eventsSinceBaseline += 1;
    if (this.rate === undefined) {
      const span = now.elapsedMs - this.baseline.elapsedMs;
      if (span < MIN_OBSERVED_MS || this.eventsSinceBaseline < MIN_OBSERVED_EVENTS) return;
      this.rate = ((now.tokensDone - this.baseline.tokensDone) * 1000) / span;
      this.last = now;
      return;
    }
    const last = this.last as Sample;
    const step = now.elapsedMs - last.elapsedMs;
    if (step < MIN_STEP_MS) return;
    const stepRate = ((now.tokensDone - last.tokensDone) * 1000) / step;
    this.rate += (1 - Math.exp(-step / RATE_TIME_CONSTANT_MS)) * (stepRate - this.rate);
    this.last = now;
  }
}
