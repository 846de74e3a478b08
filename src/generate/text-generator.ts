/**
 * The generation engine behind TextGenerator: it plans batches, drives the native decoding loop a few passes at a
 * time, and between calls decodes each prompt's new ids to check its stop strings, telling native which prompts
 * to stop. Only token ids cross the boundary; the KV cache stays native (native/ort/generation_session.h).
 * A prompt's ids end at the token that completed its stop string: ids native decoded past it in the same call
 * are dropped (GeneratedText).
 */
import { MlrbError } from '../errors.js';
import type { LanguageModel } from '../model/onnx-model.js';
import { NATIVE_FINISH, type NativeStepOutput } from '../native/binding.js';
import { planGenerationBatches } from './batch-plan.js';
import { decodeCacheOf } from './decode-cache.js';
import { checkPrompts, checkSettings } from './settings-check.js';
import { GeneratedText } from './generated-text.js';
import type { FinishReason, Generation, GenerationProgress, GenerationSettings, TextGenerator } from './types.js';

export interface TextGeneratorOptions {
  /** Prompts decoded together in one batch (default 8). */
  readonly batchSize?: number | undefined;
  /**
   * Forward passes per native call (default 8): stop strings are checked between calls, so a prompt may run up
   * to this many passes past its stop string (wasted work only: those ids are dropped from its tokenIds).
   */
  readonly stepsPerCall?: number | undefined;
  /** Batches decoded at once (default: the model's parallelBatches, one per core group on the CPU). */
  readonly parallelBatches?: number | undefined;
  /** Receives, once per generator, the warning that the graph has no KV cache and each token recomputes the sequence. */
  readonly onWarning?: ((message: string) => void) | undefined;
}

const DEFAULT_BATCH_SIZE = 8;
const DEFAULT_STEPS_PER_CALL = 8;

/** One prompt's state while its batch decodes. */
interface PromptProgress {
  readonly generated: GeneratedText;
  finish: FinishReason | null;
}

function checkPositiveInteger(value: number | undefined, what: string): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) throw new RangeError(`${what} must be a positive integer, got ${value}`);
}

function finishFromNative(code: number): FinishReason | null {
  switch (code) {
    case NATIVE_FINISH.eos:
      return 'eos';
    case NATIVE_FINISH.maxNewTokens:
      return 'max_new_tokens';
    case NATIVE_FINISH.stopped:
      return 'stop_string';
    default:
      return null;
  }
}

class OnnxTextGenerator implements TextGenerator {
  private warned = false;
  private readonly batchSize: number;
  private readonly stepsPerCall: number;
  private readonly parallelBatches: number;

  constructor(
    private readonly model: LanguageModel,
    private readonly options: TextGeneratorOptions,
  ) {
    checkPositiveInteger(options.batchSize, 'batchSize');
    checkPositiveInteger(options.stepsPerCall, 'stepsPerCall');
    checkPositiveInteger(options.parallelBatches, 'parallelBatches');
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.stepsPerCall = options.stepsPerCall ?? DEFAULT_STEPS_PER_CALL;
    this.parallelBatches = options.parallelBatches ?? model.parallelBatches;
  }

  async generate(
    prompts: readonly (readonly number[])[],
    settings: GenerationSettings,
    onProgress?: (progress: GenerationProgress) => void,
  ): Promise<Generation[]> {
    checkSettings(settings);
    // An encoder-decoder's max length is lm-eval's truncation rule, not a limit of its relative positions.
    const maxLength = this.model.backend === 'seq2seq' ? null : this.model.maxLength;
    checkPrompts(prompts, { vocabSize: this.model.vocabSize, maxLength, maxNewTokens: settings.maxNewTokens, model: this.model.modelPath });
    const tokenizer = this.model.requireTokenizer();
    this.warnOnceWithoutCache();
    const decode = (ids: readonly number[]): string => tokenizer.decode(ids, { skipSpecialTokens: true });
    const states: PromptProgress[] = prompts.map((_prompt, index) => ({
      generated: new GeneratedText(decode, settings.stopStrings ?? [], `prompt ${index}`),
      finish: null,
    }));
    const progress = { finishedPrompts: 0, totalPrompts: prompts.length, generatedTokens: 0 };
    const batches = planGenerationBatches(
      prompts.map((prompt) => prompt.length),
      this.batchSize,
      this.maxLengthSpread(settings.maxNewTokens),
    );
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batches.length) {
        const batch = batches[next++]!;
        await this.decodeBatch(prompts, batch, settings, states, (newTokens, newlyFinished) => {
          progress.generatedTokens += newTokens;
          progress.finishedPrompts += newlyFinished;
          onProgress?.({ ...progress });
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.parallelBatches, batches.length) }, worker));
    return states.map(({ generated, finish }, index) => ({
      promptTokenCount: prompts[index]!.length,
      tokenIds: Int32Array.from(generated.ids),
      text: generated.text,
      finishReason: finish ?? 'max_new_tokens',
    }));
  }

  private async decodeBatch(
    prompts: readonly (readonly number[])[],
    batch: readonly number[],
    settings: GenerationSettings,
    states: PromptProgress[],
    report: (newTokens: number, newlyFinished: number) => void,
  ): Promise<void> {
    const offsets = [0];
    for (const index of batch) offsets.push(offsets.at(-1)! + prompts[index]!.length);
    const eos = settings.eosTokenIds ?? (this.model.metadata.eosTokenId !== null ? [this.model.metadata.eosTokenId] : []);
    const sampling = settings.sampling;
    const generation = this.model.startGeneration({
      tokens: Int32Array.from(batch.flatMap((index) => [...prompts[index]!])),
      promptOffsets: Int32Array.from(offsets),
      // The prompt's index in the whole call: its samples do not depend on which batch it lands in.
      streams: Int32Array.from(batch),
      maxNewTokens: settings.maxNewTokens,
      eosTokenIds: Int32Array.from(eos),
      ...(sampling !== undefined ? { sampling: { temperature: sampling.temperature, topK: sampling.topK ?? 0, seed: sampling.seed } } : {}),
    });
    try {
      while (!generation.finished) {
        const output = await generation.step(this.stepsPerCall);
        const { newTokens, newlyFinished, toStop } = this.absorb(output, batch, states);
        if (toStop.length > 0) generation.stop(Int32Array.from(toStop));
        report(newTokens, newlyFinished + toStop.length);
      }
    } catch (cause) {
      throw this.withBatchContext(cause, batch);
    } finally {
      generation.dispose(); // no step is in flight here: frees the batch's KV cache now rather than at GC
    }
  }

  /** Files one step's ids under their prompts; returns what changed and which running prompts hit a stop string. */
  private absorb(output: NativeStepOutput, batch: readonly number[], states: PromptProgress[]) {
    let newTokens = 0;
    let newlyFinished = 0;
    const toStop: number[] = [];
    output.prompts.forEach((row, i) => {
      const state = states[batch[row]!]!;
      newTokens += state.generated.append(output.tokens.subarray(output.tokenOffsets[i]!, output.tokenOffsets[i + 1]!));
      if (state.generated.stopped) {
        // The stop string decides the reason even when EOS or the limit came in the same call.
        if (finishFromNative(output.finish[i]!) === null) toStop.push(row);
        else newlyFinished += 1;
        state.finish = 'stop_string';
      } else {
        state.finish = finishFromNative(output.finish[i]!);
        if (state.finish !== null) newlyFinished += 1;
      }
    });
    return { newTokens, newlyFinished, toStop };
  }

  /** Native BAD_DATA names prompts by their row in the batch; the caller knows them by their index in the call. */
  private withBatchContext(cause: unknown, batch: readonly number[]): unknown {
    if (!(cause instanceof MlrbError)) return cause;
    return new MlrbError(
      cause.code,
      `${cause.message} (batch of prompts ${batch.join(', ')}; model ${this.model.modelPath})`,
      { ...cause.details, batchPrompts: [...batch], file: this.model.modelPath },
      { cause },
    );
  }

  /**
   * How far the prompt lengths of one batch may spread (src/generate/batch-plan.ts). Graphs with a KV cache but no
   * position_ids (or mask) number positions from the cache: no padding, one length. A fused-attention cache
   * staggers longer prompts' extra tokens over passes: up to the new-token limit. An encoder-decoder masks its
   * encoder's padding, and its decoder rows never need any.
   */
  private maxLengthSpread(maxNewTokens: number): number {
    if (this.model.backend === 'seq2seq') return Number.POSITIVE_INFINITY;
    const cache = decodeCacheOf(this.model);
    if (cache === 'fused-attention') return maxNewTokens;
    if (cache === 'none') return Number.POSITIVE_INFINITY;
    const roles = new Set(this.model.signature.inputs.map((input) => input.role));
    return roles.has('position_ids') && roles.has('attention_mask') ? Number.POSITIVE_INFINITY : 0;
  }

  private warnOnceWithoutCache(): void {
    if (this.model.decodesWithKvCache || this.warned) return;
    this.warned = true;
    this.options.onWarning?.(
      this.model.backend === 'seq2seq'
        ? `${this.model.modelPath} has no decoder with past (decoder_with_past_model.onnx or decoder_model_merged.onnx), so every new token ` +
            'reruns the decoder over the whole sequence; export it with past (optimum: text2text-generation-with-past) for faster generation'
        : `${this.model.modelPath} has no KV-cache inputs (past_key_values.*) and its attention could not keep a cache ` +
            `(${this.model.rewrites.find((outcome) => outcome.name === 'decodeCache')?.reason ?? 'decodeCache did not run'}), ` +
            'so every new token reruns the whole sequence; export the model with past (optimum: text-generation-with-past) for faster generation',
    );
  }
}

/** A TextGenerator over a loaded model; the model stays the caller's to dispose. */
export function createTextGenerator(model: LanguageModel, options: TextGeneratorOptions = {}): TextGenerator {
  return new OnnxTextGenerator(model, options);
}
