import { MlrbError } from '../errors.js';
import type { TokenizedRequest } from '../engine/model-input.js';
import type { GenerateUntilRequest } from './generate-until/requests.js';

/**
 * A log-likelihood request with the coordinates lm-eval's Instance carries (task, doc, choice index), so
 * results can be matched back after the collator reorders everything.
 */
export interface LoglikelihoodRequest {
  readonly taskName: string;
  readonly docId: number;
  readonly choiceIndex: number;
  readonly context: string;
  readonly continuation: string;
}

/**
 * lm-eval's `loglikelihood_rolling` Instance: one whole text (its arguments are `(target,)`), scored as the sum
 * over the windows it is cut into once tokenized (rolling-windows.ts).
 */
export interface RollingLoglikelihoodRequest {
  readonly taskName: string;
  readonly docId: number;
  readonly text: string;
}

/**
 * A task's requests, tagged with the kind of task that made them (src/eval/task-kinds.ts): what --log-samples
 * shows as a document's arguments and what a shard's requests digest covers.
 */
export type TaskRequests =
  | { readonly kind: 'multiple_choice'; readonly requests: readonly LoglikelihoodRequest[] }
  | { readonly kind: 'loglikelihood_rolling'; readonly requests: readonly RollingLoglikelihoodRequest[] }
  | { readonly kind: 'generate_until'; readonly requests: readonly GenerateUntilRequest[] };

/**
 * A request that is already token ids (a rolling window): it skips text encoding and goes straight to the
 * model. `choiceIndex` says which of the document's results it adds to; `window` orders its pieces.
 */
export interface TokenWindowRequest {
  readonly taskName: string;
  readonly docId: number;
  readonly choiceIndex: number;
  readonly window: number;
  readonly tokens: TokenizedRequest;
}

/**
 * What the scoring path takes: text pairs, which it tokenizes by lm-eval's rules, and token windows, which it
 * scores as they are. A document's result for a choice is the sum over the scoring requests with its
 * (task, doc, choice): one for a text pair, one per window for a rolling text.
 */
export type ScoringRequest = LoglikelihoodRequest | TokenWindowRequest;

/** A request's text pair alone: all tokenization needs of a text request. */
export type TextPair = Pick<LoglikelihoodRequest, 'context' | 'continuation'>;

export function isTokenWindow(request: TextPair | TokenWindowRequest): request is TokenWindowRequest {
  return 'tokens' in request;
}

/** A scoring request as error messages name it. */
export function describeScoringRequest(request: ScoringRequest): string {
  const { taskName, docId } = request;
  return isTokenWindow(request) ? `${taskName} doc ${docId} window ${request.window}` : `${taskName} doc ${docId} choice ${request.choiceIndex}`;
}

/** A task's requests from a run's map; a task without an entry is a bug in whoever built the map. */
export function requestsOf(requestsByTask: ReadonlyMap<string, TaskRequests>, taskName: string): TaskRequests {
  const requests = requestsByTask.get(taskName);
  if (requests === undefined) throw new MlrbError('INTERNAL', `no requests were built for task ${taskName}`, { task: taskName });
  return requests;
}
