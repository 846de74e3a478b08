/**
 * A causal LM behind the native core: the ONNX session, what the files beside it say, and its tokenizer; and
 * loadModel(), which loads this or, for a folder holding an encoder-decoder export, its sibling
 * (src/model/seq2seq-model.ts). This and that are the only TS code holding native session handles.
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
  type NativeSession,
  type PackedBatch,
  type PrefixId,
  type RewriteOutcome,
  type RewriteSwitches,
  type RuntimeInfo,
} from '../native/binding.js';
import { initOrtRuntime } from '../native/ort-library.js';
import { openSession } from './execution-provider.js';
import type { LanguageModel, LoadModelOptions } from './language-model.js';
import {
  DEFAULT_MAX_LENGTH,
  explainLoadFailure,
  loadSideFiles,
  ModelBase,
  parallelBatchesFor,
  validateLoadOptions,
  warningSink,
  type SideFiles,
} from './model-loading.js';
import type { ModelMetadata } from './model-metadata.js';
import { resolveModelGraphs } from './model-path.js';
import { loadSeq2SeqModel } from './seq2seq-model.js';
import { SEQ2SEQ_FILE_NAMES } from './seq2seq-files.js';

export type { LanguageModel, LoadModelOptions, ModelBackend } from './language-model.js';
export { DEFAULT_MAX_LENGTH } from './model-loading.js';

class OnnxLanguageModel extends ModelBase implements LanguageModel {
  readonly backend = 'causal';
  readonly decoderStartTokenId = null;

  constructor(
    provider: ExecutionProvider,
    modelPath: string,
    metadata: ModelMetadata,
    readonly signature: GraphSignature,
    runtime: RuntimeInfo,
    maxLength: number,
    parallelBatches: number,
    private readonly session: NativeSession,
    sideFiles: SideFiles,
  ) {
    super(provider, modelPath, metadata, runtime, maxLength, parallelBatches, sideFiles);
  }

  get graphFiles(): readonly string[] {
    return [this.modelPath];
  }

  get vocabSize(): number | null {
    return this.signature.vocabSize ?? this.metadata.vocabSize;
  }

  /** Its own past inputs, or the decodeCache rewrite's cache in the fused attention (src/generate/decode-cache.ts). */
  get decodesWithKvCache(): boolean {
    return this.session.supportsPrefix || this.rewrites.some((outcome) => outcome.name === 'decodeCache' && outcome.applied);
  }

  scoreBatch(batch: PackedBatch, prefix?: PrefixId): Promise<BatchScores> {
    return prefix === undefined ? this.session.score(batch) : this.session.score(batch, prefix);
  }

  get supportsPrefix(): boolean {
    return this.session.supportsPrefix;
  }

  get attentionFused(): boolean {
    return this.session.attentionFused;
  }

  get rewrites(): readonly RewriteOutcome[] {
    return this.session.rewrites;
  }

  computePrefix(tokens: readonly number[]): Promise<PrefixId> {
    return this.session.computePrefix(Int32Array.from(tokens));
  }

  releasePrefix(prefix: PrefixId): void {
    this.session.releasePrefix(prefix);
  }

  startGeneration(request: NativeGenerationRequest): NativeGeneration {
    return this.session.startGeneration(request);
  }

  dispose(): void {
    this.session.dispose();
  }
}

/**
 * The shorthands (cpuFusion, sliceLmHead) folded into the rewrites object, an explicit rewrites entry winning;
 * without shorthands the object goes to the addon as given, which checks its shape.
 */
function rewriteSwitches(options: LoadModelOptions): RewriteSwitches | undefined {
  if (options.cpuFusion === undefined && options.sliceLmHead === undefined) return options.rewrites;
  return {
    ...(options.cpuFusion !== undefined ? { cpuFusion: options.cpuFusion } : {}),
    ...(options.sliceLmHead !== undefined ? { sliceLmHead: options.sliceLmHead } : {}),
    ...options.rewrites,
  };
}

/** One line per rewrite, for verbose output: `rewrite cpuFusion: applied (12 of 12 Softmax …)`. */
function describeRewrites(outcomes: readonly RewriteOutcome[]): string[] {
  return outcomes.map((outcome) => `rewrite ${outcome.name}: ${outcome.applied ? 'applied' : 'not applied'} (${outcome.reason})`);
}

export async function loadModel(options: LoadModelOptions): Promise<LanguageModel> {
  validateLoadOptions(options);
  const graphs = resolveModelGraphs(options.model);
  if (graphs.seq2seq !== null) return loadSeq2SeqModel(graphs.seq2seq, options);
  const modelPath = graphs.path;
  const modelDir = path.dirname(modelPath);
  const sideFiles = loadSideFiles(modelDir, options);
  const { metadata } = sideFiles;
  if (metadata.isEncoderDecoder === true) {
    throw new MlrbError(
      'BAD_MODEL',
      `${modelDir}: config.json says the model is an encoder-decoder (is_encoder_decoder), but the folder holds ` +
        `no ${SEQ2SEQ_FILE_NAMES.encoder} beside ${path.basename(modelPath)}; export it with optimum (text2text-generation) or pass the folder of that export`,
      { file: modelDir },
    );
  }
  const runtime = initOrtRuntime(options.ortLibrary);
  const threads = options.threads ?? 1;
  const nativeOptions = {
    intraOpThreads: threads,
    readRoot: modelExternalDataRoot(modelPath),
    ...(metadata.numKeyValueHeads !== null ? { numKeyValueHeads: metadata.numKeyValueHeads } : {}),
    ...(metadata.headDim !== null ? { headDim: metadata.headDim } : {}),
    ...(options.initializerOverrides !== undefined ? { initializerOverrides: options.initializerOverrides } : {}),
  };
  const rewrites = rewriteSwitches(options);
  const { session, provider } = await openSession(
    (chosen) => loadBinding().loadSession(modelPath, { ...nativeOptions, ...(rewrites !== undefined ? { rewrites } : {}), provider: chosen }),
    options.provider ?? 'cpu',
    warningSink(options),
  ).catch((error: unknown) => {
    throw explainLoadFailure(error, modelDir, modelPath);
  });
  const parallelBatches = parallelBatchesFor(provider, threads);
  for (const line of describeRewrites(session.rewrites)) options.onLog?.(`${path.basename(modelPath)}: ${line}`);
  if (provider === 'cuda') options.onLog?.(`${path.basename(modelPath)}: ${session.providerNote}`);
  if (session.supportsPrefix) options.onLog?.(`${path.basename(modelPath)}: KV-cache inputs found; shared prompt prefixes are computed once and reused`);
  const maxLength = options.maxLength ?? metadata.maxLength ?? DEFAULT_MAX_LENGTH;
  return new OnnxLanguageModel(provider, modelPath, metadata, session.signature(), runtime, maxLength, parallelBatches, session, sideFiles);
}
