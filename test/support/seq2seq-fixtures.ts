/**
 * The tiny encoder-decoder fixtures (scripts/seq2seq/build_fixtures.py) and what real lm-eval 0.4.13 and
 * transformers did with them (scripts/seq2seq/record_lm_eval.py).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readRecordedRequests, type RecordedRequest } from './lm-eval-requests.js';
import { repoRoot } from './shared-data.js';

export const SEQ2SEQ_FIXTURES = path.join(repoRoot, 'test/fixtures/seq2seq');
export const SEQ2SEQ_MODELS = ['t5', 'flan-t5'] as const;
export type Seq2SeqModelName = (typeof SEQ2SEQ_MODELS)[number];
/** optimum's three layouts, as the fixture folders are named. */
export const SEQ2SEQ_LAYOUTS = ['nopast', 'past', 'merged'] as const;

export const seq2seqFolder = (name: Seq2SeqModelName, layout: (typeof SEQ2SEQ_LAYOUTS)[number]): string => path.join(SEQ2SEQ_FIXTURES, name, layout);

/** Every (model, layout) pair, for it.each / describe.each. */
export const SEQ2SEQ_EXPORTS = SEQ2SEQ_MODELS.flatMap((name) => SEQ2SEQ_LAYOUTS.map((layout) => [name, layout] as const));

export function readSeq2SeqExpectation<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(SEQ2SEQ_FIXTURES, 'expectations', file), 'utf8')) as T;
}

/** lm-eval 0.4.13's requests on one fixture model, by task/doc/choice. */
export function readSeq2SeqRequests(name: Seq2SeqModelName): Map<string, RecordedRequest> {
  return readRecordedRequests(path.join(SEQ2SEQ_FIXTURES, 'expectations', `${name}-requests.jsonl`));
}

export interface RecordedEdges {
  readonly prefix_token_id: number;
  readonly max_length: number;
  readonly loglikelihood: readonly {
    context: string;
    continuation: string;
    context_ids: number[];
    continuation_ids: number[];
    loglik: number;
    is_greedy: boolean;
  }[];
  readonly rolling: readonly { text: string; loglik: number }[];
  readonly generate_until: readonly {
    kwargs: { until: string[]; max_gen_toks: number; do_sample: boolean };
    contexts: string[];
    responses: string[];
  }[];
  readonly untied_head: { request: [string, string]; loglik_with_tie_weights: number };
}

export interface RecordedGenerations {
  readonly maxNewTokens: number;
  readonly prompts: number[][];
  readonly greedy: number[][];
  readonly minTopGap: number;
  readonly eosTokenId: number;
  readonly eosGreedy: number[][];
  /** float32 logits of prompt 0's first decoder position. */
  readonly firstLogits: number[];
  /** transformers' num_parameters(): the shared embedding once, a tied head not again. */
  readonly numParameters: number;
}
