/**
 * MLRB's wikitext perplexity of a loaded model, through the same batched scoring path as every lm-eval request
 * (src/engine/score-requests.ts): the text is tokenized once as MLRB tokenizes it (the tokenizer's defaults, so a
 * Llama tokenizer puts BOS in front), cut into windows (perplexity-windows.ts), and each window's scored half is
 * one token-level log-likelihood request.
 */
import { MlrbError } from '../errors.js';
import type { LanguageModel } from '../model/onnx-model.js';
import { modelInputFor } from '../engine/model-input.js';
import { scoreModelInputs, type ScoreOptions } from '../engine/score-requests.js';
import { summarizeSample } from './sample-statistics.js';
import { accumulatePerplexity, perplexityRequests, windowPlan, MLRB_PERPLEXITY_WINDOW } from './perplexity-windows.js';

export interface PerplexityOptions extends Pick<ScoreOptions, 'batchSize' | 'onProgress' | 'concurrentBatches'> {
  /** MLRB's n_ctx; default 256. */
  readonly windowTokens?: number;
}

/** MLRB's printed summary of the running perplexities; `avg` is the number MLRB reports as perplexity. */
export interface MlrbPerplexitySummary {
  readonly avg: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly p90: number;
  readonly p95: number;
}

export interface PerplexityResult {
  readonly procedure: {
    readonly window_tokens: number;
    readonly window_stride: number;
    readonly first_scored_position: number;
    readonly scored_tokens_per_window: number;
    readonly bos_token_id: number;
    readonly text_tokens: number;
  };
  readonly windows: number;
  readonly scored_tokens: number;
  /** exp(mean NLL over every scored token). */
  readonly perplexity: number;
  /** MLRB's figures: the mean (its headline), median, min, max, p90, p95 of the running perplexity after each window. */
  readonly mlrb: MlrbPerplexitySummary;
  readonly running_perplexity: number[];
}

/** The BOS id MLRB writes into each window (tokenizer.bos_token_id); unlike lm-eval's prefix, never EOS instead. */
export function bosTokenIdOf(model: LanguageModel): number {
  const { bosTokenId, bosToken } = model.metadata;
  const id = bosTokenId ?? (bosToken === null ? undefined : model.requireTokenizer().tokenToId(bosToken));
  if (id === undefined) {
    throw new MlrbError(
      'BAD_MODEL',
      `${model.modelPath}: neither config.json nor tokenizer_config.json names a BOS token, which MLRB's perplexity puts at the start of every window`,
      {
        file: model.modelPath,
      },
    );
  }
  return id;
}

/**
 * Why MLRB's perplexity has no value for an encoder-decoder: its procedure is a causal LM's (agent_eval loads
 * AutoModelForCausalLM, which refuses a T5 config, and reads each window position's next-token logits). lm-eval
 * does define one, and mlrb-eval follows it: its wikitext task's rolling windows, each window's context through the
 * encoder (EOS alone for the first window) and its tokens through the decoder.
 */
export const SEQ2SEQ_PERPLEXITY_REFUSAL =
  "MLRB's perplexity (agent_eval/benchmarks/perplexity.py) is a causal LM's: it loads AutoModelForCausalLM, which cannot load an " +
  "encoder-decoder, and scores each window position's next-token logits. lm-eval's wikitext task does define an encoder-decoder's " +
  "perplexity (each rolling window's context to the encoder, its tokens to the decoder), and mlrb-eval follows it: run " +
  '`mlrb-eval MODEL --tasks wikitext`; measure tokens per second and latency here with --only tokens-per-second,latency';

/** BAD_MODEL with SEQ2SEQ_PERPLEXITY_REFUSAL for an encoder-decoder. */
export function checkPerplexityApplies(model: LanguageModel): void {
  if (model.backend === 'seq2seq')
    throw new MlrbError('BAD_MODEL', `${model.modelPath} is an encoder-decoder: ${SEQ2SEQ_PERPLEXITY_REFUSAL}`, { file: model.modelPath });
}

export async function measurePerplexity(model: LanguageModel, text: string, options: PerplexityOptions = {}): Promise<PerplexityResult> {
  checkPerplexityApplies(model);
  const plan = windowPlan(options.windowTokens ?? MLRB_PERPLEXITY_WINDOW);
  // A shorter max length would left-truncate each window and score it with less context than MLRB gives it.
  if (plan.windowTokens - 1 > model.maxLength) {
    throw new MlrbError(
      'BAD_MODEL',
      `${model.modelPath}: the model's max length ${model.maxLength} is shorter than MLRB's perplexity window of ${plan.windowTokens} tokens`,
      {
        file: model.modelPath,
      },
    );
  }
  const bos = bosTokenIdOf(model);
  const tokens = model.requireTokenizer().encodeWithSpecialTokens(text);
  const requests = perplexityRequests(tokens, bos, plan);
  const describe = (index: number): string => `perplexity window ${index + 1} of ${requests.length}`;
  const inputs = requests.map((request, index) => modelInputFor(request, model.maxLength, () => describe(index)));
  const { results } = await scoreModelInputs(
    model,
    inputs,
    {
      ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
      ...(options.concurrentBatches !== undefined ? { concurrentBatches: options.concurrentBatches } : {}),
      ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
      // Windows never share a prefix; folding one into another would only cost the planning.
      prefixReuse: false,
      mergePrefixRows: false,
    },
    describe,
  );
  const accumulated = accumulatePerplexity(
    results.map((result) => result.loglik),
    plan,
  );
  const summary = summarizeSample(accumulated.runningPerplexity, 'running perplexity');
  return {
    procedure: {
      window_tokens: plan.windowTokens,
      window_stride: plan.windowTokens,
      first_scored_position: plan.firstScoredLogit + 1,
      scored_tokens_per_window: plan.scoredTokensPerWindow,
      bos_token_id: bos,
      text_tokens: tokens.length,
    },
    windows: requests.length,
    scored_tokens: accumulated.scoredTokens,
    perplexity: accumulated.perplexity,
    mlrb: { avg: summary.mean, median: summary.median, min: summary.min, max: summary.max, p90: summary.p90, p95: summary.p95 },
    running_perplexity: accumulated.runningPerplexity,
  };
}
