/**
 * What the engine scores and gives back, and nothing about where it came from: token ids in (a context and the
 * continuation whose tokens are scored), one log-likelihood and greedy flag out. Tasks, documents and lm-eval's
 * text rules stay on the other side (src/eval).
 */
import { MlrbError } from '../errors.js';
import type { ModelBackend } from '../model/language-model.js';

/** A request after tokenization: the token ids that feed the model and the ones that are scored. */
export interface TokenizedRequest {
  /** Context tokens (after the lm-eval whitespace and empty-context rules). */
  readonly contextTokens: readonly number[];
  /** Continuation tokens; every one of them is scored. */
  readonly continuationTokens: readonly number[];
}

/** The per-request outcome, as lm-eval's `loglikelihood` returns it. */
export interface LoglikelihoodResult {
  readonly loglik: number;
  readonly isGreedy: boolean;
}

/** What one request feeds the model and which of its positions are scored. */
export interface ModelInput {
  /**
   * A causal model's row: (context + continuation)[-(maxLength + 1):][:-1], lm-eval's left-truncated input. An
   * encoder-decoder's encoder input: context[-maxLength:] (its decoder reads the start token and the continuation).
   */
  readonly inputTokens: readonly number[];
  /** The continuation tokens; logits at the last `length` input positions (the decoder's positions) predict them. */
  readonly continuationTokens: readonly number[];
}

export function modelInputFor(tokenized: TokenizedRequest, maxLength: number, where: () => string, backend: ModelBackend = 'causal'): ModelInput {
  const { contextTokens, continuationTokens } = tokenized;
  if (continuationTokens.length === 0) {
    throw new MlrbError('BAD_DATA', `${where()}: the continuation encodes to no tokens, so there is nothing to score`);
  }
  if (continuationTokens.length > maxLength) {
    throw new MlrbError('BAD_DATA', `${where()}: the continuation has ${continuationTokens.length} tokens, more than the model's max length ${maxLength}`);
  }
  if (backend === 'seq2seq') {
    if (contextTokens.length === 0) throw new MlrbError('BAD_DATA', `${where()}: the context encodes to no tokens, so the encoder has nothing to read`);
    return { inputTokens: contextTokens.slice(Math.max(0, contextTokens.length - maxLength)), continuationTokens };
  }
  const all = [...contextTokens, ...continuationTokens];
  const inputTokens = all.slice(Math.max(0, all.length - (maxLength + 1)), all.length - 1);
  if (inputTokens.length === 0) {
    throw new MlrbError('BAD_DATA', `${where()}: the request has no token to condition on (empty context and a one-token continuation)`);
  }
  return { inputTokens, continuationTokens };
}

/** BAD_DATA naming the request whose ids fall outside the model's vocabulary (a tokenizer of another model). */
export function assertInVocabulary(inputs: readonly ModelInput[], vocabSize: number | null, describe: (index: number) => string): void {
  if (vocabSize === null) return;
  inputs.forEach((input, index) => {
    for (const id of [...input.inputTokens, ...input.continuationTokens]) {
      if (!Number.isInteger(id) || id < 0 || id >= vocabSize) {
        throw new MlrbError(
          'BAD_DATA',
          `${describe(index)}: token id ${id} is outside the model's vocabulary of ${vocabSize} ids (does the tokenizer belong to this model?)`,
          { tokenId: id, vocabSize, request: index },
        );
      }
    }
  });
}
