/**
 * lm-eval's (HFLM) rules for turning a (context, continuation) pair into tokens and a model input, in the two
 * releases mlrb-eval follows (lm-eval-version.ts). Every number mlrb-eval reports depends on these being exact.
 */
import type { LoglikelihoodRequest } from './instance.js';
import type { TokenizedRequest } from '../engine/model-input.js';
import type { LmEvalVersion } from './lm-eval-version.js';
import { trailingWhitespaceLength } from '../text/python-text.js';

export interface EncodingRules {
  /** What HFLM.tok_encode gives for a non-empty context, and for context + continuation. */
  encode(text: string): readonly number[];
  /** The encoding without special tokens: HFLM's encoding of a continuation that follows an empty context. */
  encodeWithoutSpecialTokens(text: string): readonly number[];
  /** BOS, else EOS: what lm-eval puts before a continuation with an empty context. */
  readonly prefixTokenId: number;
  /**
   * v0.4.13: a continuation whose encoding starts with the prefix token gives that token to the context instead
   * of being preceded by a second one.
   */
  readonly prefixFromContinuation: boolean;
}

/** What the rules need from a tokenizer (src/model/tokenizer.ts). */
export interface RuleTokenizer {
  encode(text: string): readonly number[];
  encodeWithSpecialTokens(text: string): readonly number[];
  /** The text of one token id, special tokens included (tokenizer.decode([id])). */
  tokenText(id: number): string;
}

/**
 * v0.4.4–v0.4.8 encode everything without special tokens (tok_encode passes add_special_tokens=False for causal
 * models). v0.4.13 leaves add_special_tokens to the tokenizer, so contexts get whatever its post-processor adds
 * (Llama-style tokenizers: BOS; GPT-2's: nothing), except that a text already starting with the prefix token's
 * text is encoded without special tokens (HFLM.tok_encode's has_bos_prefix check).
 */
export function encodingRulesFor(version: LmEvalVersion, tokenizer: RuleTokenizer, prefixTokenId: () => number): EncodingRules {
  const encodeWithoutSpecialTokens = (text: string): readonly number[] => tokenizer.encode(text);
  if (version === '0.4.4-0.4.8') {
    // The prefix is looked up only when an empty context needs it: a model without BOS and EOS still scores the rest.
    return {
      encode: encodeWithoutSpecialTokens,
      encodeWithoutSpecialTokens,
      get prefixTokenId() {
        return prefixTokenId();
      },
      prefixFromContinuation: false,
    };
  }
  const prefix = prefixTokenId();
  const prefixText = tokenizer.tokenText(prefix);
  return {
    encode: (text) => (text.startsWith(prefixText) ? tokenizer.encode(text) : tokenizer.encodeWithSpecialTokens(text)),
    encodeWithoutSpecialTokens,
    prefixTokenId: prefix,
    prefixFromContinuation: true,
  };
}

/**
 * Non-empty context: trailing whitespace of the context moves to the front of the continuation, the
 * whole string is encoded once and the continuation is what follows the context's own encoding (so a
 * merge across the boundary, and a BOS the tokenizer adds, are seen exactly as lm-eval sees them). Empty
 * context: the prefix token stands in for the context (see EncodingRules.prefixFromContinuation).
 */
export function encodeRequest(request: Pick<LoglikelihoodRequest, 'context' | 'continuation'>, rules: EncodingRules): TokenizedRequest {
  const { context, continuation } = request;
  if (context === '') {
    const continuationTokens = rules.encodeWithoutSpecialTokens(continuation);
    const prefix = rules.prefixTokenId;
    if (rules.prefixFromContinuation && continuationTokens[0] === prefix) {
      return { contextTokens: [prefix], continuationTokens: continuationTokens.slice(1) };
    }
    return { contextTokens: [prefix], continuationTokens };
  }
  const spaces = trailingWhitespaceLength(context);
  const movedContext = context.slice(0, context.length - spaces);
  const movedContinuation = context.slice(context.length - spaces) + continuation;
  const whole = rules.encode(movedContext + movedContinuation);
  const contextTokens = rules.encode(movedContext);
  return { contextTokens, continuationTokens: whole.slice(contextTokens.length) };
}
