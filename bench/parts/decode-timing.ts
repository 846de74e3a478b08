/**
 * How every decode benchmark times a peer, from outside it: a run of 1 new token (prefill + the first token) and a
 * run of N new tokens; decode tokens/s = batch × (N − 1) / (t_N − t_1). Prefill is thus excluded from the decode
 * rate and reported beside it as time to first token. Every run's ids are checked against transformers' greedy ids.
 */
import { performance } from 'node:perf_hooks';
import type { GreedyDecoder } from '../peers/greedy-decoder.js';
import { median } from './real-peer.bench-part.js';

/** The prompts a section decodes (all of one length: no row is padded) and transformers' greedy ids for them. */
export interface DecodeReference {
  readonly prompts: readonly (readonly number[])[];
  readonly greedy: readonly (readonly number[])[];
}

export interface DecodeTiming {
  readonly promptTokens: number;
  readonly newTokens: number;
  /** Median seconds of a 1-new-token run: prefill plus the first token. */
  readonly firstTokenSeconds: number;
  /** Median seconds of a newTokens run. */
  readonly totalSeconds: number;
  readonly decodeTokensPerSecond: number;
  /** The first (row, step) whose id differs from transformers' greedy id, if any. */
  readonly firstMismatch?: { readonly row: number; readonly step: number };
}

function firstMismatch(got: readonly (readonly number[])[], expected: readonly (readonly number[])[]): DecodeTiming['firstMismatch'] {
  for (const [row, ids] of expected.entries()) {
    const produced = got[row] ?? [];
    for (const [step, id] of ids.entries()) if (produced[step] !== id) return { row, step };
  }
  return undefined;
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await run();
  return [value, (performance.now() - start) / 1000];
}

export async function measureDecoding(
  decoder: GreedyDecoder,
  reference: DecodeReference,
  batch: number,
  plan: { readonly newTokens: number; readonly repetitions: number },
): Promise<DecodeTiming> {
  const prompts = reference.prompts.slice(0, batch);
  const expected = reference.greedy.slice(0, batch).map((ids) => ids.slice(0, plan.newTokens));
  const first: number[] = [];
  const total: number[] = [];
  let mismatch: DecodeTiming['firstMismatch'];
  for (let repetition = 0; repetition < plan.repetitions; repetition++) {
    first.push((await timed(() => decoder.decode(prompts, 1)))[1]);
    const [ids, seconds] = await timed(() => decoder.decode(prompts, plan.newTokens));
    total.push(seconds);
    mismatch ??= firstMismatch(ids, expected);
  }
  const firstTokenSeconds = median(first);
  const totalSeconds = median(total);
  return {
    promptTokens: prompts[0]?.length ?? 0,
    newTokens: plan.newTokens,
    firstTokenSeconds,
    totalSeconds,
    decodeTokensPerSecond: (batch * (plan.newTokens - 1)) / (totalSeconds - firstTokenSeconds),
    ...(mismatch ? { firstMismatch: mismatch } : {}),
  };
}
