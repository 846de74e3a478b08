/**
 * Forward passes for an encoder-decoder. A pass holds encoder rows (distinct contexts) and the requests that read
 * them (one decoder row each): the choices of one document share their context, so its encoder runs once for all
 * of them, which lm-eval's seq2seq backend does not do (it encodes the context again for every choice).
 *
 * Requests are grouped by encoder input; groups go longest context first (lm-eval's Collator order, and each pass's
 * first context sets its padded length), and within a group longest continuation first. A pass grows while `fits`
 * allows; a group too big for one pass (every BLiMP sentence reads the same one-token context) continues in the
 * next, which encodes its context again. A pass is packed by the causal path's packBatch (collator.ts): its rows are
 * the encoder inputs and each request's end is its row's length, which native/ort/seq2seq_session.h reads as such.
 */
import { compareLexicographic } from './collator.js';
import {
  ACTIVATION_FLOATS_PER_HIDDEN,
  ACTIVATIONS_PER_BATCH,
  DEFAULT_TOKENS_PER_BATCH,
  FALLBACK_HEADS,
  FALLBACK_HIDDEN,
  FLOAT_BYTES,
  MAX_TOKENS_PER_BATCH,
} from './batch-size.js';
import type { ModelInput } from './model-input.js';

/** One encoder row and the requests (indices into the inputs) that read it in one pass. */
export interface EncoderRow {
  readonly tokens: readonly number[];
  readonly requestIndices: readonly number[];
}

/** A pass's size: its encoder rows padded to `encoderLength`, and `requests` decoder rows padded to `decoderLength`. */
export interface Seq2SeqPassShape {
  readonly encoderRows: number;
  readonly encoderLength: number;
  readonly requests: number;
  readonly decoderLength: number;
}

/** Whether a pass of this shape is allowed; one request always is. */
export type Seq2SeqFits = (shape: Seq2SeqPassShape) => boolean;

/** Requests grouped by encoder input, longest context first (equal lengths in lexicographic order). */
export function groupByEncoderInput(inputs: readonly ModelInput[]): EncoderRow[] {
  const byKey = new Map<string, { tokens: readonly number[]; requestIndices: number[] }>();
  inputs.forEach((input, index) => {
    const key = input.inputTokens.join(',');
    const group = byKey.get(key);
    if (group) group.requestIndices.push(index);
    else byKey.set(key, { tokens: input.inputTokens, requestIndices: [index] });
  });
  const continuationLength = (index: number): number => (inputs[index] as ModelInput).continuationTokens.length;
  return [...byKey.values()]
    .sort((a, b) => (a.tokens.length !== b.tokens.length ? b.tokens.length - a.tokens.length : compareLexicographic(a.tokens, b.tokens)))
    .map((group) => ({ tokens: group.tokens, requestIndices: group.requestIndices.sort((a, b) => continuationLength(b) - continuationLength(a) || a - b) }));
}

/** Passes over `groups` (groupByEncoderInput(inputs)), each as large as `fits` allows. */
export function planSeq2SeqPasses(inputs: readonly ModelInput[], groups: readonly EncoderRow[], fits: Seq2SeqFits): EncoderRow[][] {
  const passes: EncoderRow[][] = [];
  let rows: { tokens: readonly number[]; requestIndices: number[] }[] = [];
  let shape: Seq2SeqPassShape = { encoderRows: 0, encoderLength: 0, requests: 0, decoderLength: 0 };
  for (const group of groups) {
    let row: { tokens: readonly number[]; requestIndices: number[] } | undefined;
    for (const index of group.requestIndices) {
      const next: Seq2SeqPassShape = {
        encoderRows: shape.encoderRows + (row === undefined ? 1 : 0),
        encoderLength: Math.max(shape.encoderLength, group.tokens.length),
        requests: shape.requests + 1,
        decoderLength: Math.max(shape.decoderLength, (inputs[index] as ModelInput).continuationTokens.length),
      };
      if (shape.requests > 0 && !fits(next)) {
        passes.push(rows);
        rows = [];
        row = undefined;
        shape = { encoderRows: 1, encoderLength: group.tokens.length, requests: 1, decoderLength: (inputs[index] as ModelInput).continuationTokens.length };
      } else {
        shape = next;
      }
      if (row === undefined) {
        row = { tokens: group.tokens, requestIndices: [] };
        rows.push(row);
      }
      row.requestIndices.push(index);
    }
  }
  if (rows.length > 0) passes.push(rows);
  return passes;
}

/** The dimensions the `auto` estimate needs (config.json's d_model and heads; the logits' width). */
export interface Seq2SeqDimensions {
  readonly vocabSize: number;
  readonly hiddenSize: number | null;
  readonly attentionHeads: number | null;
}

/**
 * A fixed batch size is N requests per pass (lm-eval's meaning: N decoder rows, each with its encoder row). `auto`
 * bounds the tokens a pass computes (encoder rows, decoder rows, and the encoder states each decoder row reads
 * through cross-attention) by the activation budget of the causal path (batch-size.ts), and its memory: logits
 * [requests, decoder length, vocab], activations, and the attention scores of the encoder, the decoder's
 * self-attention and its cross-attention.
 */
export function seq2seqFitsFor(
  batchSize: number | 'auto',
  dims: Seq2SeqDimensions,
  memoryBudgetBytes: number,
  tokensPerBatch?: number,
  maxTokensPerBatch = Number.POSITIVE_INFINITY,
): Seq2SeqFits {
  if (batchSize !== 'auto') {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batch size must be a positive integer or 'auto', got ${batchSize}`);
    return (shape) => shape.requests <= batchSize;
  }
  const hidden = dims.hiddenSize ?? FALLBACK_HIDDEN;
  const heads = dims.attentionHeads ?? FALLBACK_HEADS;
  const tokenBudget =
    tokensPerBatch ??
    Math.min(Math.max(DEFAULT_TOKENS_PER_BATCH, Math.min(MAX_TOKENS_PER_BATCH, Math.floor(ACTIVATIONS_PER_BATCH / hidden))), maxTokensPerBatch);
  return (shape) => {
    const encoderTokens = shape.encoderRows * shape.encoderLength;
    const decoderTokens = shape.requests * shape.decoderLength;
    const tokens = encoderTokens + decoderTokens + shape.requests * shape.encoderLength;
    const logits = decoderTokens * dims.vocabSize * FLOAT_BYTES;
    const activations = tokens * hidden * ACTIVATION_FLOATS_PER_HIDDEN * FLOAT_BYTES;
    const scores = heads * (encoderTokens * shape.encoderLength + decoderTokens * (shape.decoderLength + shape.encoderLength)) * FLOAT_BYTES * 2;
    return tokens <= tokenBudget && logits + activations + scores <= memoryBudgetBytes;
  };
}
