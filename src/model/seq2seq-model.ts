/**
 * An encoder-decoder model (an optimum T5 export, src/model/seq2seq-files.ts) behind the native core: the
 * LanguageModel sibling of the causal one in onnx-model.ts. Its scoring follows lm-eval's seq2seq backend
 * (the context feeds the encoder, the continuation the decoder after decoder_start_token_id), its generation
 * transformers' generate() for T5; both run in native/ort/seq2seq_session.h.
 */
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { modelExternalDataRoot } from '../io/hub-snapshot.js';
import {
  loadBinding,
  type BatchScores,
  type ExecutionProvider,
  type GraphSignature,
  type NativeGeneration,
  type NativeGenerationRequest,
  type NativeSeq2SeqFacts,
  type NativeSeq2SeqSession,
  type PackedBatch,
  type PrefixId,
  type RewriteOutcome,
  type RuntimeInfo,
} from '../native/binding.js';
import { initOrtRuntime } from '../native/ort-library.js';
import { openSession } from './execution-provider.js';
import type { LanguageModel, LoadModelOptions } from './language-model.js';
import { DEFAULT_MAX_LENGTH, explainLoadFailure, loadSideFiles, ModelBase, parallelBatchesFor, warningSink, type SideFiles } from './model-loading.js';
import type { ModelMetadata } from './model-metadata.js';
import { seq2seqGraphFiles, type Seq2SeqFiles } from './seq2seq-files.js';

class OnnxSeq2SeqModel extends ModelBase implements LanguageModel {
  readonly backend = 'seq2seq';
  /** Nothing is reused between requests but the encoder pass of a shared context (see scoreBatch). */
  readonly supportsPrefix = false;
  /** The graphs run as exported: the load-time rewrites match causal graphs only. */
  readonly attentionFused = false;
  readonly rewrites: readonly RewriteOutcome[] = [];

  constructor(
    provider: ExecutionProvider,
    readonly files: Seq2SeqFiles,
    metadata: ModelMetadata,
    runtime: RuntimeInfo,
    maxLength: number,
    parallelBatches: number,
    private readonly session: NativeSeq2SeqSession,
    sideFiles: SideFiles,
    private readonly facts: NativeSeq2SeqFacts,
    readonly decoderStartTokenId: number,
  ) {
    super(provider, files.folder, metadata, runtime, maxLength, parallelBatches, sideFiles);
  }

  get graphFiles(): readonly string[] {
    return seq2seqGraphFiles(this.files);
  }

  get signature(): GraphSignature {
    return { inputs: [], outputs: [], logitsOutput: 'logits', logitsType: this.facts.logitsType, vocabSize: this.facts.vocabSize, logitsSliced: false };
  }

  get vocabSize(): number | null {
    return this.facts.vocabSize ?? this.metadata.vocabSize;
  }

  get decodesWithKvCache(): boolean {
    return this.facts.usesKvCache;
  }

  scoreBatch(batch: PackedBatch, prefix?: PrefixId): Promise<BatchScores> {
    if (prefix !== undefined) return Promise.reject(noPrefix(this.modelPath));
    return this.session.score(batch);
  }

  computePrefix(): Promise<PrefixId> {
    return Promise.reject(noPrefix(this.modelPath));
  }

  releasePrefix(): void {}

  startGeneration(request: NativeGenerationRequest): NativeGeneration {
    return this.session.startGeneration(request);
  }

  dispose(): void {
    this.session.dispose();
  }
}

function noPrefix(modelPath: string): MlrbError {
  return new MlrbError('BAD_MODEL', `${modelPath} is an encoder-decoder model: it has no causal KV-cache prefix to reuse`, { file: modelPath });
}

/** config.json must say where the decoder starts, and must not say the model is not an encoder-decoder. */
function decoderStartOf(metadata: ModelMetadata, files: Seq2SeqFiles): number {
  const config = path.join(files.folder, 'config.json');
  if (metadata.isEncoderDecoder === false) {
    throw new MlrbError('BAD_MODEL', `${config} says is_encoder_decoder false, but ${files.folder} holds an encoder-decoder export`, { file: config });
  }
  if (metadata.decoderStartTokenId === null) {
    throw new MlrbError('BAD_MODEL', `${files.folder}: config.json does not state decoder_start_token_id, which an encoder-decoder's decoder starts from`, {
      file: config,
    });
  }
  return metadata.decoderStartTokenId;
}

/** Loads the export `files` describe; options as loadModel's (the causal graph rewrites do not apply). */
export async function loadSeq2SeqModel(files: Seq2SeqFiles, options: LoadModelOptions): Promise<LanguageModel> {
  if ((options.initializerOverrides?.length ?? 0) > 0) {
    throw new TypeError("initializerOverrides replace a causal graph's rotary caches; an encoder-decoder export takes none");
  }
  const sideFiles = loadSideFiles(files.folder, options);
  const { metadata } = sideFiles;
  const decoderStartTokenId = decoderStartOf(metadata, files);
  const runtime = initOrtRuntime(options.ortLibrary);
  const threads = options.threads ?? 1;
  const nativeOptions = {
    intraOpThreads: threads,
    readRoot: modelExternalDataRoot(files.decoder),
    decoderStartTokenId,
    ...(metadata.padTokenId !== null ? { padTokenId: metadata.padTokenId } : {}),
    ...(metadata.attentionHeads !== null ? { numHeads: metadata.attentionHeads } : {}),
    ...(metadata.headDim !== null ? { headDim: metadata.headDim } : {}),
  };
  const graphs = { encoder: files.encoder, decoder: files.decoder, ...(files.decoderWithPast !== undefined ? { decoderWithPast: files.decoderWithPast } : {}) };
  const { session, provider } = await openSession(
    (chosen) => loadBinding().loadSeq2SeqSession(graphs, { ...nativeOptions, provider: chosen }),
    options.provider ?? 'cpu',
    warningSink(options),
  ).catch((error: unknown) => {
    throw explainLoadFailure(error, files.folder, files.folder);
  });
  const facts = session.facts();
  options.onLog?.(
    `${path.basename(files.folder)}: encoder-decoder (${files.layout}): ${facts.description}; ` +
      (facts.usesKvCache ? 'generation keeps the decoder KV cache' : 'generation reruns the decoder each step (no decoder with past)'),
  );
  const maxLength = options.maxLength ?? metadata.maxLength ?? DEFAULT_MAX_LENGTH;
  return new OnnxSeq2SeqModel(
    provider,
    files,
    metadata,
    runtime,
    maxLength,
    parallelBatchesFor(provider, threads),
    session,
    sideFiles,
    facts,
    decoderStartTokenId,
  );
}
