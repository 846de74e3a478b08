/**
 * MLRB's perplexity windows (agent_eval/benchmarks/perplexity.py, run by agent_eval/cli.py with n_ctx = 256)
 * as token-level log-likelihood requests. The token stream is cut into floor(n / window) windows that do not
 * overlap (a shorter tail is never scored); each window's first token is replaced by BOS and the window is
 * run on its own; the logits at positions min(512, window/2) … window−2 score the tokens one further on.
 *
 * As a request: context = BOS + the window's tokens before the first scored one, continuation = the scored
 * tokens. lm-eval's model input (context + continuation)[:-1] is then exactly MLRB's window without its last
 * token, whose logits MLRB never reads, so each continuation's log-likelihood is minus that window's NLL.
 */
import { MlrbError } from '../errors.js';
import type { TokenizedRequest } from '../engine/model-input.js';

/** MLRB's n_ctx for the perplexity benchmark (cli.py). */
export const MLRB_PERPLEXITY_WINDOW = 256;
/** perplexity.py starts scoring at min(512, n_ctx // 2): its n_batch, the most logits one forward pass gives. */
const MLRB_SCORING_START_CAP = 512;

export interface WindowPlan {
  readonly windowTokens: number;
  /** Window position of the first logits read; the first scored token is one further. */
  readonly firstScoredLogit: number;
  readonly scoredTokensPerWindow: number;
}

export function windowPlan(windowTokens: number): WindowPlan {
  if (!Number.isInteger(windowTokens) || windowTokens < 4)
    throw new RangeError(`the perplexity window must be a whole number of at least 4 tokens, got ${windowTokens}`);
  const firstScoredLogit = Math.min(MLRB_SCORING_START_CAP, Math.floor(windowTokens / 2));
  return { windowTokens, firstScoredLogit, scoredTokensPerWindow: windowTokens - 1 - firstScoredLogit };
}

export function perplexityRequests(tokens: readonly number[], bosTokenId: number, plan: WindowPlan): TokenizedRequest[] {
  const windows = Math.floor(tokens.length / plan.windowTokens);
  if (windows === 0) {
    throw new MlrbError('BAD_DATA', `the text encodes to ${tokens.length} tokens, fewer than one perplexity window of ${plan.windowTokens}`, {
      tokens: tokens.length,
      windowTokens: plan.windowTokens,
    });
  }
  return Array.from({ length: windows }, (_, index) => {
    const start = index * plan.windowTokens;
    const boundary = start + plan.firstScoredLogit + 1;
    return {
      contextTokens: [bosTokenId, ...tokens.slice(start + 1, boundary)],
      continuationTokens: tokens.slice(boundary, start + plan.windowTokens),
    };
  });
}

export interface WindowedPerplexity {
  /** exp(total NLL / scored tokens) after the last window: the perplexity of every scored token. */
  readonly perplexity: number;
  /** After each window, exp(NLL so far / tokens so far): the list MLRB summarizes (its headline is the mean). */
  readonly runningPerplexity: number[];
  readonly scoredTokens: number;
}

/** Accumulates per-window log-likelihoods as MLRB does: one running NLL and token count across windows. */
export function accumulatePerplexity(windowLogliks: readonly number[], plan: WindowPlan): WindowedPerplexity {
  let nll = 0;
  let count = 0;
  const runningPerplexity = windowLogliks.map((loglik) => {
    nll -= loglik;
    count += plan.scoredTokensPerWindow;
    return Math.exp(nll / count);
  });
  return { perplexity: Math.exp(nll / count), runningPerplexity, scoredTokens: count };
}
