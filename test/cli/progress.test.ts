import { describe, expect, it } from 'vitest';
import type { ScoreProgress } from '../../src/engine/score-requests.js';
import { createProgressReporter, formatDuration } from '../../src/cli/progress.js';
import { estimatedTotalTokens, WorkRateEstimator } from '../../src/cli/progress-estimate.js';

interface Run {
  readonly events: ScoreProgress[];
  readonly endMs: number;
}

interface RunShape {
  /** Token lengths of the requests, one array per tokenization chunk. */
  readonly chunks: number[][];
  /** Rows per batch, or undefined to fill batches up to batchTokens. */
  readonly batchRows?: number;
  readonly batchTokens?: number;
  readonly order: 'longest-first' | 'shortest-first';
  /** Tokenizing the first chunk and warming the model up, before the first batch. */
  readonly startupMs: number;
  readonly overheadMsPerBatch: number;
  readonly msPerToken: number;
}

/** The events tokenizeAndScore would emit for a run of this shape, on a fake clock. */
function simulate(shape: RunShape): Run {
  const requestsTotal = shape.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const events: ScoreProgress[] = [];
  let clock = shape.startupMs;
  let requestsDone = 0;
  let tokensDone = 0;
  let tokensBefore = 0;
  let requestsTokenized = 0;
  shape.chunks.forEach((chunk, chunkIndex) => {
    const rows = [...chunk].sort((a, b) => (shape.order === 'longest-first' ? b - a : a - b));
    const chunkTokens = rows.reduce((sum, length) => sum + length, 0);
    requestsTokenized += rows.length;
    for (let start = 0; start < rows.length; ) {
      let end = start + 1;
      let tokens = rows[start] as number;
      while (end < rows.length && (shape.batchRows ? end - start < shape.batchRows : tokens + (rows[end] as number) <= (shape.batchTokens ?? 0))) {
        tokens += rows[end] as number;
        end += 1;
      }
      clock += shape.overheadMsPerBatch + tokens * shape.msPerToken;
      requestsDone += end - start;
      tokensDone += tokens;
      events.push({
        requestsDone,
        requestsTotal,
        tokensDone,
        tokensTotal: tokensBefore + chunkTokens,
        tokensTotalFinal: chunkIndex === shape.chunks.length - 1,
        requestsTokenized,
        elapsedMs: clock,
      });
      start = end;
    }
    tokensBefore += chunkTokens;
  });
  return { events, endMs: clock };
}

/** Deterministic lengths: most requests short, a tail of long ones (few-shot prompts, long passages). */
function lengths(count: number, seed: number): number[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const unit = state / 2 ** 31;
    return unit < 0.05 ? 600 + Math.floor(unit * 8000) : 20 + Math.floor(unit * 120);
  });
}

const chunks = [0, 1, 2, 3].map((seed) => lengths(4096, seed + 1));

const SHAPES: Record<string, RunShape> = {
  // Rows sorted longest first, batches filled to a token budget: the first batches hold a handful of
  // requests, so a request-based ETA starts far too high (the 154-minute case).
  'longest rows first': { chunks, batchTokens: 4096, order: 'longest-first', startupMs: 4000, overheadMsPerBatch: 20, msPerToken: 0.12 },
  // A fixed batch size with short rows first: the first batches are short and quick.
  'short batches first': { chunks, batchRows: 32, order: 'shortest-first', startupMs: 4000, overheadMsPerBatch: 40, msPerToken: 0.12 },
};

function requestBasedEta(progress: ScoreProgress): number {
  return ((progress.requestsTotal - progress.requestsDone) * progress.elapsedMs) / progress.requestsDone;
}

describe('ETA', () => {
  for (const [name, shape] of Object.entries(SHAPES)) {
    it(`is within 2x of the truth from its first showing (${name})`, () => {
      const run = simulate(shape);
      expect(run.endMs).toBeGreaterThan(60_000);
      const estimator = new WorkRateEstimator();
      const checked: number[] = [];
      for (const event of run.events) {
        const estimate = estimator.update(event);
        const truth = run.endMs - event.elapsedMs;
        if (estimate.etaMs === undefined || truth < 10_000) continue;
        checked.push(event.elapsedMs);
        expect(estimate.etaMs, `at ${formatDuration(event.elapsedMs)}, truth ${formatDuration(truth)}`).toBeGreaterThan(truth / 2);
        expect(estimate.etaMs, `at ${formatDuration(event.elapsedMs)}, truth ${formatDuration(truth)}`).toBeLessThan(truth * 2);
      }
      // Shown within the first seconds of scoring, and checked to the end.
      expect(checked[0]).toBeLessThan(shape.startupMs + 10_000);
      expect(checked.length).toBeGreaterThan(run.events.length / 2);
    });
  }

  it('would have been far off had it counted requests (the case this estimate replaces)', () => {
    const run = simulate(SHAPES['longest rows first'] as RunShape);
    const first = run.events[0] as ScoreProgress;
    expect(requestBasedEta(first)).toBeGreaterThan(10 * (run.endMs - first.elapsedMs));
  });

  it('shows no ETA before a few seconds of work after the first event', () => {
    const estimator = new WorkRateEstimator();
    const event = (elapsedMs: number, tokensDone: number): ScoreProgress => ({
      requestsDone: 1,
      requestsTotal: 100,
      tokensDone,
      tokensTotal: 10_000,
      elapsedMs,
    });
    expect(estimator.update(event(5_000, 100)).etaMs).toBeUndefined();
    expect(estimator.update(event(6_000, 200)).etaMs).toBeUndefined();
    expect(estimator.update(event(7_000, 300)).etaMs).toBeUndefined();
    // 300 tokens in the 3 s since the first event: 100 tok/s, 9,700 tokens left.
    expect(estimator.update(event(8_000, 400)).etaMs).toBeCloseTo(96_000, -3);
  });

  it('extrapolates the token total from the requests tokenized so far', () => {
    const progress = { requestsDone: 0, requestsTotal: 400, tokensDone: 0, tokensTotal: 1_000, tokensTotalFinal: false, requestsTokenized: 100, elapsedMs: 0 };
    expect(estimatedTotalTokens(progress)).toBe(4_000);
    expect(estimatedTotalTokens({ ...progress, tokensTotalFinal: true })).toBe(1_000);
  });
});

function fakeStream(isTTY: boolean, columns?: number): { isTTY: boolean; columns?: number; text: string; write(text: string): boolean } {
  return {
    isTTY,
    ...(columns === undefined ? {} : { columns }),
    text: '',
    write(text: string) {
      this.text += text;
      return true;
    },
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: it strips the ESC sequences the progress line writes
const visible = (text: string): string => text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');

describe('progress on a terminal', () => {
  it('draws a bar with requests, tokens/s, elapsed and ETA that fits 100 columns and ends the line', () => {
    const run = simulate(SHAPES['longest rows first'] as RunShape);
    const stream = fakeStream(true, 300);
    const report = createProgressReporter('blimp_filtered+blimp_supplement+superglue', stream);
    for (const event of run.events) report(event);
    expect(stream.text.endsWith('\n')).toBe(true);
    const draws = stream.text.split('\r').filter((draw) => draw.length > 0);
    expect(draws.length).toBeGreaterThan(10);
    // At most one draw per event, and redraws are throttled to ten a second.
    expect(draws.length).toBeLessThanOrEqual(Math.min(run.events.length, run.endMs / 100 + 1));
    for (const draw of draws) expect([...visible(draw).replace(/\n$/, '')].length).toBeLessThanOrEqual(100);
    expect(visible(draws[0] as string)).toMatch(/\[[█░]+\] +\d+% [\d,]+\/16,384 req · [\d,]+ tok\/s · \d+s · ETA …$/);
    expect(visible(draws.at(-1) as string)).toMatch(/\[█+\] 100% 16,384\/16,384 req · [\d,]+ tok\/s · \dm\d\ds · done\n$/);
    expect(draws.some((draw) => /ETA \dm\d\ds/.test(draw))).toBe(true);
  });

  it('fits a narrow terminal by shrinking, then dropping, the bar', () => {
    const run = simulate(SHAPES['longest rows first'] as RunShape);
    for (const columns of [60, 80]) {
      const stream = fakeStream(true, columns);
      const report = createProgressReporter('mmlu', stream);
      for (const event of run.events) report(event);
      for (const draw of stream.text.split('\r')) expect([...visible(draw).replace(/\n$/, '')].length).toBeLessThan(columns);
    }
  });

  it('draws 100 columns where the terminal reports no width (a pseudo-terminal may say 0)', () => {
    const run = simulate(SHAPES['longest rows first'] as RunShape);
    const stream = fakeStream(true, 0);
    const report = createProgressReporter('mmlu', stream);
    for (const event of run.events) report(event);
    const draws = stream.text
      .split('\r')
      .filter((draw) => draw.length > 0)
      .map((draw) => [...visible(draw).replace(/\n$/, '')].length);
    expect(Math.min(...draws)).toBeGreaterThan(60);
    expect(Math.max(...draws)).toBeLessThanOrEqual(100);
  });
});

describe('progress in logs', () => {
  it('prints plain lines at each tenth of the work or every 30 s, and a last one', () => {
    for (const shape of Object.values(SHAPES)) {
      const run = simulate(shape);
      const stream = fakeStream(false);
      const report = createProgressReporter('mmlu', stream);
      for (const event of run.events) report(event);
      const lines = stream.text.split('\n').filter((line) => line.length > 0);
      expect(lines.length).toBeLessThanOrEqual(10 + Math.ceil(run.endMs / 30_000) + 2);
      expect(lines.length).toBeGreaterThanOrEqual(10);
      expect(stream.text).not.toContain('\r');
      expect(lines.at(-1)).toMatch(/^\[mmlu\] 100% · 16,384\/16,384 req · [\d,]+ tok\/s · \dm\d\ds · done$/);
    }
  });
});

describe('progress of a resumed run', () => {
  it('counts cached requests as done at once and bases the percentage on the tokens left', () => {
    const stream = fakeStream(false);
    const report = createProgressReporter('blimp', stream);
    const resumed = { requestsTotal: 1_000, tokensTotal: 5_000, requestsFromCache: 600 };
    report({ ...resumed, requestsDone: 600, tokensDone: 0, elapsedMs: 100 });
    report({ ...resumed, requestsDone: 800, tokensDone: 2_500, elapsedMs: 5_000 });
    report({ ...resumed, requestsDone: 1_000, tokensDone: 5_000, elapsedMs: 9_000 });
    const lines = stream.text.trim().split('\n');
    expect(lines[0]).toMatch(/^\[blimp\] 0% · 600\/1,000 req \(600 cached\) · /);
    expect(lines[1]).toMatch(/^\[blimp\] 50% · 800\/1,000 req \(600 cached\) · /);
    expect(lines.at(-1)).toMatch(/^\[blimp\] 100% · 1,000\/1,000 req \(600 cached\) · .* · done$/);
  });
});
