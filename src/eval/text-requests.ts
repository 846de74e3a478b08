/**
 * Text requests to the engine: lm-eval's tokenization rules (request-encoding.ts, in the release asked for) turn
 * (context, continuation) pairs into model inputs, which the engine scores. scoreRequests() is the library's
 * lower-level entry: text in, lm-eval's (loglik, isGreedy) pairs out, in order.
 */
import type { LanguageModel } from '../model/onnx-model.js';
import { modelInputFor, type ModelInput, type TokenizedRequest } from '../engine/model-input.js';
import { scoreModelInputs, type ScoreOptions, type ScoreOutput } from '../engine/score-requests.js';
import { isTokenWindow, type LoglikelihoodRequest, type TextPair, type TokenWindowRequest } from './instance.js';
import { DEFAULT_LM_EVAL_VERSION, type LmEvalVersion } from './lm-eval-version.js';
import { encodeRequest, encodingRulesFor, type EncodingRules, type RuleTokenizer } from './request-encoding.js';

/** Options of the entries that tokenize text requests themselves. */
export interface TextScoreOptions extends ScoreOptions {
  /** Whose tokenization rules to follow (default '0.4.4-0.4.8'; see lm-eval-version.ts). */
  readonly lmEvalVersion?: LmEvalVersion;
}

/** lm-eval's tokenization rules applied to every request, with the model's tokenizer and max length. */
export function buildModelInputs(
  model: LanguageModel,
  requests: readonly Pick<LoglikelihoodRequest, 'context' | 'continuation'>[],
  describe: (index: number) => string,
  lmEvalVersion: LmEvalVersion = DEFAULT_LM_EVAL_VERSION,
): ModelInput[] {
  return tokenizeRequests(model, requests, lmEvalVersion).map((tokenized, index) =>
    modelInputFor(tokenized, model.maxLength, () => describe(index), model.backend),
  );
}

/** Remembers a few recent encodings: the requests of one question are neighbours and share their context. */
function recentlyMemoized(encode: (text: string) => readonly number[]): (text: string) => readonly number[] {
  const recent = new Map<string, readonly number[]>();
  return (text) => {
    let ids = recent.get(text);
    if (ids === undefined) {
      if (recent.size >= 16) recent.clear();
      ids = encode(text);
      recent.set(text, ids);
    }
    return ids;
  };
}

/**
 * The release's encoding rules for this model: its tokenizer (or `tokenizer`, a wrapper of it), prefix token,
 * backend and the side-file facts the rules read (config.json's model_type, tokenizer_config.json's bos_token).
 */
export function modelEncodingRules(model: LanguageModel, lmEvalVersion: LmEvalVersion, tokenizer: RuleTokenizer = model.requireTokenizer()): EncodingRules {
  return encodingRulesFor(lmEvalVersion, tokenizer, () => model.prefixTokenId(), model.backend, model.metadata);
}

/**
 * Tokenizes requests with the rules of the given lm-eval release; a token window is already tokens and passes
 * through. The choices of one question share their context, so the context's own encoding is remembered
 * between neighbouring requests instead of being redone per choice.
 */
export function tokenizeRequests(
  model: LanguageModel,
  requests: readonly (TextPair | TokenWindowRequest)[],
  lmEvalVersion: LmEvalVersion = DEFAULT_LM_EVAL_VERSION,
): TokenizedRequest[] {
  const tokenizer = model.requireTokenizer();
  const memoized = {
    encode: recentlyMemoized((text) => tokenizer.encode(text)),
    encodeWithSpecialTokens: recentlyMemoized((text) => tokenizer.encodeWithSpecialTokens(text)),
    tokenText: (id: number) => tokenizer.tokenText(id),
  };
  const rules = modelEncodingRules(model, lmEvalVersion, memoized);
  return requests.map((request) => (isTokenWindow(request) ? request.tokens : encodeRequest(request, rules)));
}

/** Tokenized requests (context and continuation ids) to model inputs. */
export function modelInputsFromTokens(model: LanguageModel, requests: readonly TokenizedRequest[]): ModelInput[] {
  return requests.map((request, index) => modelInputFor(request, model.maxLength, () => `request ${index}`, model.backend));
}

/** The lower-level library entry: text requests in, lm-eval's (loglik, isGreedy) pairs out, in order. */
export async function scoreRequests(model: LanguageModel, requests: readonly LoglikelihoodRequest[], options: TextScoreOptions = {}): Promise<ScoreOutput> {
  const describe = (index: number): string => {
    const request = requests[index];
    return request ? `${request.taskName} doc ${request.docId} choice ${request.choiceIndex}` : `request ${index}`;
  };
  return scoreModelInputs(model, buildModelInputs(model, requests, describe, options.lmEvalVersion), options, describe);
}
