/**
 * MLRB's tokens-per-second and latency protocol on a scripted generator and a manual clock
 * (test/support/scripted-timing-generator.ts): which runs are timed, what the clock covers, what is counted, the
 * sampling settings each call gets. Expected figures are worked by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import { MLRB_PROMPT, measureLatency, measureTokensPerSecond } from '../../src/model-metrics/generation-timing.js';
import { FAKE_BOS, scriptedSubject, type ScriptedCall } from '../support/scripted-timing-generator.js';
import { rejectedMlrbError } from '../support/expect-mlrb-error.js';

// MLRB's prompt is 20 space-separated words: 21 tokens with BOS, leaving 200 − 21 = 179 new tokens.
const PROMPT_TOKENS = 21;
// Two warm-ups that take a full second each (they must not count), then three timed runs.
const SCRIPT: ScriptedCall[] = [
  { tokens: 5, ms: 1000 },
  { tokens: 5, ms: 1000 },
  { tokens: 30, ms: 100 },
  { tokens: 60, ms: 200 },
  { tokens: 500, ms: 400 }, // capped at 179 new tokens, no EOS
];
const options = { warmupRuns: 2, timedRuns: 3, maxLength: 200, seed: 7 };

describe('tokens per second, MLRB-style', () => {
  it('times generate() + decode of the timed runs only and counts the re-encoded output, prompt included', async () => {
    const { subject, generator, clock } = scriptedSubject(SCRIPT, 10);
    const result = await measureTokensPerSecond(subject, { ...options, now: clock.now });
    // Run 1: 21 + 30 tokens in 100 + 10 ms; run 2: 81 in 210 ms; run 3: 21 + 179 = 200 in 410 ms.
    const expected = [51 / 0.11, 81 / 0.21, 200 / 0.41];
    result.runs.forEach((value, index) => expect(value).toBeCloseTo(expected[index] as number, 9));
    expect(result.generated_tokens).toEqual([31, 61, 179]); // EOS included where it ended the run
    expect(result.summary.avg).toBeCloseTo((expected[0]! + expected[1]! + expected[2]!) / 3, 9);
    expect(result.summary.min).toBeCloseTo(81 / 0.21, 9);
    expect(result.summary.max).toBeCloseTo(200 / 0.41, 9);
    expect(generator.calls).toHaveLength(5);
  });

  it("passes MLRB's prompt and sampling to every call, each run with its own seed", async () => {
    const { subject, generator, clock } = scriptedSubject(SCRIPT, 0);
    const result = await measureTokensPerSecond(subject, { ...options, now: clock.now });
    expect(result.procedure).toMatchObject({
      prompt: MLRB_PROMPT,
      prompt_tokens: PROMPT_TOKENS,
      max_length: 200,
      max_new_tokens: 179,
      temperature: 0.8,
      top_k: 300,
      warmup_runs: 2,
      timed_runs: 3,
    });
    for (const [index, call] of generator.calls.entries()) {
      expect(call.prompts).toHaveLength(1);
      expect(call.prompts[0]?.[0]).toBe(FAKE_BOS);
      expect(call.prompts[0]).toHaveLength(PROMPT_TOKENS);
      // No eosTokenIds: the model's EOS ends a run, as tokens_per_second.py's generate call lets it.
      expect(call.settings).toEqual({ maxNewTokens: 179, sampling: { temperature: 0.8, topK: 300, seed: 7 + index } });
    }
  });
});

describe('latency, MLRB-style', () => {
  it('times generate() alone and divides every statistic by 512', async () => {
    const { subject, clock } = scriptedSubject(SCRIPT, 10);
    const result = await measureLatency(subject, { ...options, now: clock.now });
    expect(result.runs_ms).toEqual([100, 200, 400]); // decoding (10 ms) is outside latency's clock
    // latency.py sets eos_token_id = None: every run goes to max_length, whatever the script's EOS says.
    expect(result.generated_tokens).toEqual([179, 179, 179]);
    expect(result.procedure.eos).toMatch(/disabled/);
    // Sorted 100, 200, 400: p90 at position 1.8 → 200 + 0.8 × 200 = 360; p95 at 1.9 → 380.
    expect(result.ms_per_token.avg).toBeCloseTo(700 / 3 / 512, 12);
    expect(result.ms_per_token.median).toBeCloseTo(200 / 512, 12);
    expect(result.ms_per_token.min).toBeCloseTo(100 / 512, 12);
    expect(result.ms_per_token.max).toBeCloseTo(400 / 512, 12);
    expect(result.ms_per_token.p90).toBeCloseTo(360 / 512, 12);
    expect(result.ms_per_token.p95).toBeCloseTo(380 / 512, 12);
    expect(result.procedure.divided_by).toBe(512);
  });
});

describe('latency with end-of-sequence disabled', () => {
  it('asks every call (warm-ups included) to ignore EOS, and refuses a generator that stops early anyway', async () => {
    const { subject, generator, clock } = scriptedSubject(SCRIPT, 0);
    await measureLatency(subject, { ...options, now: clock.now });
    expect(generator.calls.map((call) => call.settings.eosTokenIds)).toEqual([[], [], [], [], []]);

    const stopsAtEos = {
      ...subject,
      generator: {
        generate: async (prompts: readonly (readonly number[])[]) =>
          prompts.map((prompt) => ({ promptTokenCount: prompt.length, tokenIds: Int32Array.of(2), text: '', finishReason: 'eos' as const })),
      },
    };
    const error = await rejectedMlrbError(() => measureLatency(stopsAtEos, { ...options, now: clock.now }));
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toMatch(/stopped after 1 of 179 tokens with end-of-sequence disabled/);
  });
});

describe('refusals', () => {
  it('refuses a max length the prompt already fills, and bad run counts', async () => {
    const { subject, clock } = scriptedSubject(SCRIPT, 0);
    const error = await rejectedMlrbError(() => measureLatency(subject, { ...options, maxLength: PROMPT_TOKENS, now: clock.now }));
    expect(error.code).toBe('BAD_DATA');
    expect(error.message).toMatch(/21 tokens, leaving no room under the max length 21/);
    await expect(measureLatency(subject, { ...options, timedRuns: 0, now: clock.now })).rejects.toThrow(RangeError);
  });
});
