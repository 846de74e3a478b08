/**
 * lm-eval's (HFLM) rules for turning a (context, continuation) pair into tokens and a model input, in the two
 * releases mlrb-eval follows (lm-eval-version.ts). Every number mlrb-eval reports depends on these being exact.
 */
import type { LoglikelihoodRequest } from './instance.js';
import type { TokenizedRequest } from '../engine/model-input.js';
import type { LmEvalVersion } from './lm-eval-version.js';
import type { ModelBackend } from '../model/language-model.js';
import { trailingWhitespaceLength } from '../text/python-text.js';

export interface EncodingRules {
  /** What HFLM.tok_encode gives for a non-empty context, and for context + continuation. */
  encode(text: string): readonly number[];
  /** What HFLM.tok_batch_encode gives for a generation prompt (one row, before padding). */
  encodePrompt(text: string): readonly number[];
  /** HFLM's encoding of a continuation that follows an empty context. */
  encodeAfterEmptyContext(text: string): readonly number[];
  /**
   * The seq2seq backend's encoding of a continuation after a non-empty context: on its own, without special
   * tokens (TemplateLM._encode_pair). Absent for a causal model, whose continuation is the tail of the whole text.
   */
  readonly encodeContinuationAlone?: (text: string) => readonly number[];
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

/** What the rules read from the model's side files besides the tokenizer (ModelMetadata has both). */
export interface EncodingFacts {
  /** config.json's model_type as stated; null or absent: none. */
  readonly modelType?: string | null;
  /** The tokenizer's bos_token text (tokenizer_config.json's); null or absent: none. */
  readonly bosToken?: string | null;
}

/**
 * lm-eval v0.4.4–v0.4.8's HFLM.__init__ sets add_bos_token=True for a config whose model_type contains "gemma"
 * (`"gemma" in config.model_type`: gemma, gemma2, gemma3, recurrent_gemma …), so a causal Gemma model's
 * tok_encode and tok_batch_encode add the tokenizer's special tokens. v0.4.13 dropped the special case.
 */
export function addsBosForGemma(version: LmEvalVersion, facts: EncodingFacts, backend: ModelBackend = 'causal'): boolean {
  return version === '0.4.4-0.4.8' && backend === 'causal' && typeof facts.modelType === 'string' && facts.modelType.includes('gemma');
}

/**
 * What besides the release, the tokenizer and the prefix token decides the ids a request gets: part of the
 * token cache's key (token-cache.ts), so runs encoded by different rules never share cached ids. Empty for the
 * plain causal rules, so their keys stay as they were.
 */
export function encodingVariant(version: LmEvalVersion, facts: EncodingFacts, backend: ModelBackend = 'causal'): string {
  if (backend === 'seq2seq') return 'backend seq2seq';
  return addsBosForGemma(version, facts, backend) ? 'add_bos_token gemma' : '';
}

/**
 * Causal models: v0.4.4–v0.4.8 encode everything without special tokens (tok_encode and tok_batch_encode pass
 * add_special_tokens=False for causal models), except for a Gemma model (addsBosForGemma), whose texts all get the
 * tokenizer's special tokens. v0.4.13 leaves add_special_tokens to the tokenizer, so contexts get whatever its
 * post-processor adds (Llama-style tokenizers: BOS; GPT-2's: nothing), except that a text already starting with
 * a BOS text is encoded without special tokens: for tok_encode (scoring, rolling documents) the prefix token's
 * text (decode(prefix_token_id): BOS, else EOS), for tok_batch_encode (generation prompts) the tokenizer's own
 * bos_token (none: never).
 *
 * Encoder-decoders (backend seq2seq): tok_encode leaves special tokens to the tokenizer in every release (T5's
 * appends </s>), with v0.4.13's has_bos_prefix exception; the continuation after a context is encoded apart,
 * without special tokens. After an empty context v0.4.4–v0.4.8 encode the continuation with the tokenizer's
 * defaults (tok_encode(continuation)), v0.4.13 without special tokens; a generation prompt keeps the
 * tokenizer's special tokens in every release.
 */
export function encodingRulesFor(
  version: LmEvalVersion,
  tokenizer: RuleTokenizer,
  prefixTokenId: () => number,
  backend: ModelBackend = 'causal',
  facts: EncodingFacts = {},
): EncodingRules {
  const withoutSpecialTokens = (text: string): readonly number[] => tokenizer.encode(text);
  const withSpecialTokens = (text: string): readonly number[] => tokenizer.encodeWithSpecialTokens(text);
  const separate = backend === 'seq2seq' ? { encodeContinuationAlone: withoutSpecialTokens } : {};
  if (version === '0.4.4-0.4.8') {
    const encode = backend === 'seq2seq' || addsBosForGemma(version, facts, backend) ? withSpecialTokens : withoutSpecialTokens;
    // The prefix is looked up only when an empty context needs it: a model without BOS and EOS still scores the rest.
    return {
      encode,
      encodePrompt: encode,
      encodeAfterEmptyContext: encode,
      ...separate,
      get prefixTokenId() {
        return prefixTokenId();
      },
      prefixFromContinuation: false,
    };
  }
  const prefix = prefixTokenId();
  const unlessStartingWith = (bosText: string | null | undefined) => (text: string) =>
    typeof bosText === 'string' && text.startsWith(bosText) ? withoutSpecialTokens(text) : withSpecialTokens(text);
  return {
    encode: unlessStartingWith(tokenizer.tokenText(prefix)),
    // tok_batch_encode checks for a leading BOS only for a causal model.
    encodePrompt: backend === 'seq2seq' ? withSpecialTokens : unlessStartingWith(facts.bosToken),
    encodeAfterEmptyContext: withoutSpecialTokens,
    ...separate,
    prefixTokenId: prefix,
    prefixFromContinuation: true,
  };
}

/**
 * Non-empty context: trailing whitespace of the context moves to the front of the continuation, the
 * whole string is encoded once and the continuation is what follows the context's own encoding (so a
 * merge across the boundary, and a BOS the tokenizer adds, are seen exactly as lm-eval sees them); an
 * encoder-decoder's continuation is encoded on its own instead. Empty context: the prefix token stands in for
 * the context (see EncodingRules.prefixFromContinuation).
 */
export function encodeRequest(request: Pick<LoglikelihoodRequest, 'context' | 'continuation'>, rules: EncodingRules): TokenizedRequest {
  const { context, continuation } = request;
  if (context === '') {
    const continuationTokens = rules.encodeAfterEmptyContext(continuation);
    const prefix = rules.prefixTokenId;
    if (rules.prefixFromContinuation && continuationTokens[0] === prefix) {
      return { contextTokens: [prefix], continuationTokens: continuationTokens.slice(1) };
    }
    return { contextTokens: [prefix], continuationTokens };
  }
  const spaces = trailingWhitespaceLength(context);
  const movedContext = context.slice(0, context.length - spaces);
  const movedContinuation = context.slice(context.length - spaces) + continuation;
  const contextTokens = rules.encode(movedContext);
  if (rules.encodeContinuationAlone !== undefined) return { contextTokens, continuationTokens: rules.encodeContinuationAlone(movedContinuation) };
  const whole = rules.encode(movedContext + movedContinuation);
  return { contextTokens, continuationTokens: whole.slice(contextTokens.length) };
}
