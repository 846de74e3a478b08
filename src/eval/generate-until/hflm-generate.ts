/**
 * lm-eval's HFLM.generate_until over a TextGenerator: how a request's context and generation_kwargs become
 * token ids, settings and the returned string (lm_eval/models/huggingface.py generate_until and
 * tok_batch_encode; lm_eval/models/utils.py normalize_gen_kwargs, handle_stop_sequences,
 * postprocess_generated_text — v0.4.13, and the same steps inline in v0.4.4–v0.4.8):
 *   - max_gen_toks is the request's, else HFLM's default 256;
 *   - `until` gets the EOS token's text (tok_decode(eot_token_id, skip_special_tokens=False)) appended unless it is
 *     already there (0.4.8 appends it regardless; a repeated stop string changes nothing);
 *   - the context is encoded by the run's rules (EncodingRules.encodePrompt; 0.4.4–0.4.8: no special tokens, but
 *     the tokenizer's own for a Gemma model; 0.4.13: the tokenizer's own, none when the text starts with the
 *     tokenizer's bos_token), then left-truncated to its last max_length − max_gen_toks tokens,
 *     which must be positive. (0.4.13's tok_batch_encode decides the BOS question for a whole batch by its first
 *     context; here each context decides for itself, which is the same for a task whose contexts all start
 *     alike, as gsm8k's "Question:" do);
 *   - do_sample false (or temperature 0 with do_sample unset) is greedy decoding of at most max_gen_toks tokens,
 *     stopping at the model's EOS;
 *   - the generated ids are decoded with special tokens skipped and the text is cut at each `until` term in turn
 *     (s = s.split(term)[0], empty terms skipped), i.e. before the earliest occurrence of any of them.
 * The engine already cuts its text at the earliest stop string; the cut is applied again here because it is
 * lm-eval's rule and it is idempotent. Requests are generated in groups of equal kwargs, as HFLM's Collator
 * groups them, and answered in request order.
 *
 * An encoder-decoder (HFLM's seq2seq backend) differs in three places:
 *   - the context is encoded with the tokenizer's special tokens in every release (tok_batch_encode passes no
 *     add_special_tokens for seq2seq: T5 appends </s>) and left-truncated to max_length, the encoder's whole
 *     length; max_gen_toks need not be below max_length;
 *   - generate() gets max_length = context length + max_gen_toks, which for an encoder-decoder bounds the decoder
 *     sequence, decoder_start_token_id included: up to context length + max_gen_toks − 1 new tokens. The context
 *     length is the batch's padded one; here it is each context's own (lm-eval at batch size 1);
 *   - the stop strings end nothing before the decoder has passed the context's length (StoppingCriteria compare
 *     decoder ids after position context length), but the text is cut at the first one all the same, so stopping
 *     there gives the same text.
 */
import { MlrbError } from '../../errors.js';
import type { Generation, GenerationProgress, GenerationSettings, TextGenerator } from '../../generate/types.js';
import type { ModelBackend } from '../../model/language-model.js';
import type { GenerationKwargs } from '../../tasks/generate-until-types.js';
import type { GenerateUntilRequest } from './requests.js';

/** HFLM's max_gen_toks when a request sets none. */
export const HFLM_DEFAULT_MAX_GEN_TOKS = 256;

export interface HflmGenerateOptions {
  /** HFLM's context encoding for the run's lm-eval version: EncodingRules.encode (src/eval/request-encoding.ts). */
  readonly encode: (text: string) => readonly number[];
  /** The EOS token's text with special tokens kept (`</s>`, `<|endoftext|>`). */
  readonly eosText: string;
  /** HFLM.max_length: the model's context window in tokens. */
  readonly maxLength: number;
  /** Absent: 256. */
  readonly defaultMaxGenToks?: number;
  /** HFLM's backend (absent: causal). */
  readonly backend?: ModelBackend;
  /** seq2seq: ids to text, special tokens skipped (tok_decode), for a generation cut at its own token limit. */
  readonly decode?: (ids: readonly number[]) => string;
}

/** What one group of requests with equal kwargs is generated with. */
export interface GenerationPlan {
  readonly until: readonly string[];
  readonly maxGenToks: number;
  readonly settings: GenerationSettings;
}

/**
 * The settings HFLM uses for these kwargs. Sampling (do_sample true, or a positive temperature with do_sample
 * unset) is refused: lm-eval's samples come from torch's generator, which no other engine reproduces.
 */
export function planGeneration(kwargs: GenerationKwargs, options: HflmGenerateOptions): GenerationPlan {
  if (kwargs.doSample) throw new RangeError('generate_until with do_sample true is not supported: only greedy decoding reproduces lm-eval');
  const maxGenToks = kwargs.maxGenToks ?? options.defaultMaxGenToks ?? HFLM_DEFAULT_MAX_GEN_TOKS;
  if (!Number.isInteger(maxGenToks) || maxGenToks < 1) throw new RangeError(`max_gen_toks must be a positive integer; got ${String(maxGenToks)}`);
  if (options.backend !== 'seq2seq' && options.maxLength - maxGenToks <= 0) {
    throw new RangeError(`max_gen_toks ${maxGenToks} must be less than the model's max length ${options.maxLength} (lm-eval asserts the same)`);
  }
  const until = kwargs.until.includes(options.eosText) ? [...kwargs.until] : [...kwargs.until, options.eosText];
  return { until, maxGenToks, settings: { maxNewTokens: maxGenToks, stopStrings: until } };
}

/** The context's ids as HFLM feeds them: encoded, then its last max_length − max_gen_toks tokens (seq2seq: max_length). */
export function contextTokens(context: string, plan: GenerationPlan, options: HflmGenerateOptions): number[] {
  const tokens = options.encode(context);
  const room = options.backend === 'seq2seq' ? options.maxLength : options.maxLength - plan.maxGenToks;
  const kept = tokens.length > room ? tokens.slice(tokens.length - room) : [...tokens];
  if (kept.length === 0) throw new MlrbError('BAD_DATA', 'a generate_until context encodes to no tokens, so there is nothing to generate from');
  return kept;
}

/** lm-eval's postprocess: the text before the first occurrence of each non-empty term, applied in turn. */
export function cutAtStopStrings(text: string, until: readonly string[]): string {
  let cut = text;
  for (const term of until) if (term.length > 0) cut = cut.split(term)[0] ?? '';
  return cut;
}

/** One string per request, in request order (lm-eval's `resps`). */
export async function generateUntil(
  requests: readonly GenerateUntilRequest[],
  generator: TextGenerator,
  options: HflmGenerateOptions,
  onProgress?: (progress: GenerationProgress) => void,
): Promise<string[]> {
  const answers = new Array<string>(requests.length);
  let finishedBefore = 0;
  let tokensBefore = 0;
  for (const group of groupByKwargs(requests)) {
    const plan = planGeneration(group.kwargs, options);
    const prompts = group.indices.map((index) => contextTokens(requests[index]?.context ?? '', plan, options));
    const limits = prompts.map((prompt) => newTokenLimit(prompt.length, plan, options));
    const generations = await generator.generate(
      prompts,
      { ...plan.settings, maxNewTokens: Math.max(...limits) },
      onProgress === undefined
        ? undefined
        : (progress) =>
            onProgress({
              finishedPrompts: finishedBefore + progress.finishedPrompts,
              totalPrompts: requests.length,
              generatedTokens: tokensBefore + progress.generatedTokens,
            }),
    );
    if (generations.length !== prompts.length) {
      throw new MlrbError('INTERNAL', `the generator returned ${generations.length} generations for ${prompts.length} prompts`);
    }
    group.indices.forEach((requestIndex, position) => {
      answers[requestIndex] = cutAtStopStrings(textWithin(generations[position], limits[position] as number, options), plan.until);
    });
    finishedBefore += prompts.length;
    tokensBefore += generations.reduce((sum, generation) => sum + generation.tokenIds.length, 0);
  }
  return answers;
}

/** New tokens HFLM lets a context of `promptLength` tokens generate (see the seq2seq notes above). */
function newTokenLimit(promptLength: number, plan: GenerationPlan, options: HflmGenerateOptions): number {
  return options.backend === 'seq2seq' ? promptLength + plan.maxGenToks - 1 : plan.maxGenToks;
}

/** A generation's text, or, where it ran past its own limit (prompts of one call share the longest's), its first `limit` ids'. */
function textWithin(generation: Generation | undefined, limit: number, options: HflmGenerateOptions): string {
  if (generation === undefined) return '';
  if (generation.tokenIds.length <= limit) return generation.text;
  if (options.decode === undefined) throw new MlrbError('INTERNAL', 'a generation ran past its token limit and no decoder was given to cut it');
  return options.decode(Array.from(generation.tokenIds.subarray(0, limit)));
}

interface KwargsGroup {
  readonly kwargs: GenerationKwargs;
  readonly indices: number[];
}

/** Requests grouped by equal kwargs (as HFLM's Collator group_by="gen_kwargs"), groups in first-seen order. */
function groupByKwargs(requests: readonly GenerateUntilRequest[]): KwargsGroup[] {
  const groups = new Map<string, KwargsGroup>();
  requests.forEach((request, index) => {
    const { until, doSample, temperature, maxGenToks } = request.generationKwargs;
    const key = JSON.stringify([until, doSample, temperature, maxGenToks ?? null]);
    let group = groups.get(key);
    if (group === undefined) {
      group = { kwargs: request.generationKwargs, indices: [] };
      groups.set(key, group);
    }
    group.indices.push(index);
  });
  return [...groups.values()];
}
