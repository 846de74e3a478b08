/**
 * lm-eval's `loglikelihood_rolling` requests (perplexity tasks such as wikitext): a whole document is scored
 * token by token, cut into windows no longer than the model's context. Each window is an ordinary
 * (context ids, continuation ids) pair, so the windows go through the same scoring path as every other request
 * and a document's log-likelihood is the sum over its windows.
 *
 * lm-eval (utils.get_rolling_token_windows with context_len 1, then make_disjoint_window) cuts the document's
 * tokens t[0..n) at max length L as follows:
 *   first window   context [prefix] + t[0 .. min(L, n) - 1), predicts t[0 .. min(L, n))
 *   later windows  predict the next ≤ L tokens t[p .. e), conditioned on the L - (e - p) tokens before them
 *                  (so every window fills the whole context, overlapping its predecessor where it must)
 * make_disjoint_window then keeps in the context only what precedes the first predicted token.
 */
import type { TokenizedRequest } from '../engine/model-input.js';
import type { EncodingRules } from './request-encoding.js';

/**
 * The disjoint windows of a document's token ids. `prefixTokenId` conditions the first token (HFLM's
 * prefix_token_id: BOS, else EOS). An empty document has no windows (lm-eval scores it as 0).
 */
export function rollingWindows(tokens: readonly number[], prefixTokenId: number, maxLength: number): TokenizedRequest[] {
  if (!Number.isInteger(maxLength) || maxLength < 1) {
    throw new RangeError(`rolling windows need a max length of at least 1 token, not ${maxLength}`);
  }
  if (tokens.length === 0) return [];
  const windows: TokenizedRequest[] = [];
  const firstLength = Math.min(maxLength, tokens.length);
  windows.push({ contextTokens: [prefixTokenId], continuationTokens: tokens.slice(0, firstLength) });
  for (let predicted = firstLength; predicted < tokens.length; ) {
    const end = Math.min(tokens.length, predicted + maxLength);
    // The model input is tokens[end - L - 1 .. end - 1); its part before `predicted` is the context.
    windows.push({
      contextTokens: tokens.slice(Math.max(0, end - maxLength - 1), predicted),
      continuationTokens: tokens.slice(predicted, end),
    });
    predicted = end;
  }
  return windows;
}

/**
 * A document's windows under the release's encoding rules: HFLM.loglikelihood_rolling encodes the whole text
 * with tok_encode, which in v0.4.13 lets the tokenizer add BOS (so a Llama-style model then also predicts that
 * BOS after the prefix BOS, even for an empty text) and in v0.4.4–v0.4.8 adds nothing (an empty text then has
 * no windows) but for a Gemma model, whose special tokens it adds (request-encoding.ts addsBosForGemma).
 */
export function documentWindows(text: string, rules: EncodingRules, maxLength: number): TokenizedRequest[] {
  return rollingWindows(rules.encode(text), rules.prefixTokenId, maxLength);
}
