/**
 * A causal LM behind the native core: the ONNX session, what the files beside it say, and its tokenizer.
 * This is the only TS code that holds a native session handle.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { isMlrbError, MlrbError } from '../errors.js';
import { GIT_LFS_POINTER_REASON, gitLfsPointersIn } from '../io/git-lfs-pointer.js';
import { modelExternalDataRoot } from '../io/hub-snapshot.js';
import {
  loadBinding, type BatchScores, type ExecutionProvider, type GraphSignature, type NativeGeneration, type NativeGenerationRequest,
  type InitializerOverride, type NativeSession, type PackedBatch, type PrefixId,
  type RewriteOutcome, type RewriteSwitches, type RuntimeInfo,
} from '../native/binding.js';
import { initOrtRuntime } from '../native/ort-library.js';
import { openSession, PROVIDER_CHOICES, type ProviderChoice } from './execution-provider.js';
import { readModelMetadata, type ModelMetadata } from './model-metadata.js';
import { resolveModelFile } from './model-path.js';
import { loadTokenizer, type TextTokenizer } from './tokenizer.js';

/** lm-eval's HFLM falls back to this when neither config nor tokenizer states a length. */
export const DEFAULT_MAX_LENGTH = 2048;

export interface LoadModelOptions {
  /**
   * Path to model.onnx (external-data files beside it are found by ONNX Runtime), or the folder holding it
   * (src/model/model-path.ts).
   */
  readonly model: string;
  /** Hugging Face config.json; default: the one beside the model. */
  readonly config?: string | undefined;
  /**
   * tokenizer.json; default: the one beside the model. Missing is fine until text must be encoded. null loads
   * none (the DRAM probe: a tokenizer's JS heap is not the model's footprint).
   */
  readonly tokenizer?: string | null | undefined;
  readonly maxLength?: number | undefined;
  /**
   * ONNX Runtime intra-op threads per forward pass. Default 1, with one pass per core in flight: on CPU,
   * per-op thread synchronisation costs more than splitting each op gains (bench/RESULTS.md). 0 is ORT's
   * own default (one thread per core) with one pass at a time.
   */
  readonly threads?: number | undefined;
  /**
   * 'cpu' (default), 'cuda' (ONNX Runtime's CUDA provider; CUDA_UNAVAILABLE when it cannot load), or 'auto':
   * CUDA when it loads, else the CPU with a warning (once per process) to onWarning.
   */
  readonly provider?: ProviderChoice | undefined;
  /** Another ONNX Runtime shared library (else MLRB_ORT_LIBRARY, else the one beside the addon or onnxruntime-node's). */
  readonly ortLibrary?: string | undefined;
  /**
   * Load-time graph rewrites to turn off, by name (README "Load-time graph rewrites"); each runs where the
   * graph allows it unless set false. Passed to the addon as given: it refuses unknown names.
   */
  readonly rewrites?: RewriteSwitches | undefined;
  /** Shorthand for rewrites.sliceLmHead: the LM head runs only at scored positions (default true). */
  readonly sliceLmHead?: boolean | undefined;
  /**
   * CPU graph fusion (default true; the CPU provider only): each decomposed attention block (MatMul, scale,
   * mask, Softmax, MatMul, with its rotary embedding and head reshaping) runs as one fused kernel that rounds
   * as ONNX Runtime's own kernels do, so logliks stay those of the exported graph (bit for bit on AVX-512
   * CPUs) while long rows run several times faster; with a sliced head, the last block also runs on the
   * scored rows only (README, "CPU graph fusion", "Last-block row pruning"). false runs the graph as
   * exported (apart from LM-head slicing). Shorthand for rewrites.cpuFusion.
   */
  readonly cpuFusion?: boolean | undefined;
  /**
   * Initializers to replace in the graph ORT loads (the DRAM measurement's rebuilt rotary caches, dram/measure.ts);
   * the file itself is never changed.
   */
  readonly initializerOverrides?: readonly InitializerOverride[] | undefined;
  /** Receives what loading decided (LM-head slicing, prefix reuse, the device), for verbose output. */
  readonly onLog?: ((message: string) => void) | undefined;
  /** Receives warnings (the 'auto' provider falling back to the CPU); default onLog, else stderr. */
  readonly onWarning?: ((message: string) => void) | undefined;
}

export interface LanguageModel {
  readonly modelPath: string;
  readonly metadata: ModelMetadata;
  readonly signature: GraphSignature;
  readonly runtime: RuntimeInfo;
  /** What runs the forward pass ('auto' resolved). */
  readonly provider: ExecutionProvider;
  readonly maxLength: number;
  /** Forward passes worth running at once: on CPU, cores divided by the intra-op threads each one uses; on CUDA, 2. */
  readonly parallelBatches: number;
  /** Logits width: the graph's, else config.json's. */
  readonly vocabSize: number | null;
  /** Throws BAD_TOKENIZER when the model has no tokenizer. */
  requireTokenizer(): TextTokenizer;
  /** BOS, else EOS: the context lm-eval uses for an empty one. */
  prefixTokenId(): number;
  /** With a prefix, every row continues the prefix's tokens (see computePrefix). */
  scoreBatch(batch: PackedBatch, prefix?: PrefixId): Promise<BatchScores>;
  /** The graph has KV-cache inputs, so a shared prefix can be computed once and reused. */
  readonly supportsPrefix: boolean;
  /** Attention runs as fused kernels, so passes hold no [rows, heads, T, T] score tensors. */
  readonly attentionFused: boolean;
  /** Every load-time graph rewrite, in the order they ran: what it did, or why it did nothing. */
  readonly rewrites: readonly RewriteOutcome[];
  computePrefix(tokens: readonly number[]): Promise<PrefixId>;
  releasePrefix(prefix: PrefixId): void;
  /**
   * Starts decoding a batch of prompts (src/generate/ drives it); throws BAD_DATA for prompts the graph cannot
   * run. The handle keeps the session's forward pass alive until it is disposed.
   */
  startGeneration(request: NativeGenerationRequest): NativeGeneration;
  dispose(): void;
}

class OnnxLanguageModel implements LanguageModel {
  constructor(
    readonly provider: ExecutionProvider,
    readonly modelPath: string,
    readonly metadata: ModelMetadata,
    readonly signature: GraphSignature,
    readonly runtime: RuntimeInfo,
    readonly maxLength: number,
    readonly parallelBatches: number,
    private readonly session: NativeSession,
    private readonly tokenizer: TextTokenizer | null,
    private readonly tokenizerPath: string,
  ) {}

  get vocabSize(): number | null {
    return this.signature.vocabSize ?? this.metadata.vocabSize;
  }

  requireTokenizer(): TextTokenizer {
    if (this.tokenizer) return this.tokenizer;
    throw new MlrbError(
      'BAD_TOKENIZER',
      `no tokenizer at ${this.tokenizerPath}; put tokenizer.json beside the model or pass --tokenizer`,
      { file: this.tokenizerPath },
    );
  }

  prefixTokenId(): number {
    const fromText = (token: string | null): number | undefined => (token === null ? undefined : this.tokenizer?.tokenToId(token));
    const id = this.metadata.bosTokenId ?? fromText(this.metadata.bosToken) ?? this.metadata.eosTokenId ?? fromText(this.metadata.eosToken);
    if (id === undefined || id === null) {
      throw new MlrbError('BAD_MODEL', `${this.modelPath}: neither config.json nor tokenizer_config.json names a BOS or EOS token`, {
        file: this.modelPath,
      });
    }
    return id;
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
 * CPU: one pass per core group, since per-op thread synchronisation costs more than splitting ops gains.
 * CUDA: two, so the next batch is padded and uploaded while the current one runs on the device.
 */
function parallelBatchesFor(provider: ExecutionProvider, threads: number): number {
  if (provider === 'cuda') return 2;
  return threads === 0 ? 1 : Math.max(1, Math.floor(availableParallelism() / threads));
}

function validateThreads(threads: number | undefined): void {
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 0)) {
    throw new RangeError(`threads must be a non-negative integer, got ${threads}`);
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

/**
 * ONNX Runtime names an external-data file left as a Git LFS pointer only by its length ("offset … given
 * file_length: 132 are out of bounds"); a pointer beside the model is the likelier cause, so it is named instead.
 */
function explainLoadFailure(error: unknown, modelPath: string): unknown {
  if (!isMlrbError(error) || (error.code !== 'ORT_RUN' && error.code !== 'BAD_MODEL')) return error;
  const [pointer] = gitLfsPointersIn(path.dirname(modelPath));
  if (pointer === undefined) return error;
  return new MlrbError('BAD_MODEL', `cannot load ${modelPath}: ${pointer} ${GIT_LFS_POINTER_REASON}`, { file: pointer }, { cause: error });
}

/** One line per rewrite, for verbose output: `rewrite cpuFusion: applied (12 of 12 Softmax …)`. */
function describeRewrites(outcomes: readonly RewriteOutcome[]): string[] {
  return outcomes.map((outcome) => `rewrite ${outcome.name}: ${outcome.applied ? 'applied' : 'not applied'} (${outcome.reason})`);
}

export async function loadModel(options: LoadModelOptions): Promise<LanguageModel> {
  validateThreads(options.threads);
  if (options.provider !== undefined && !PROVIDER_CHOICES.includes(options.provider)) {
    throw new RangeError(`provider must be one of ${PROVIDER_CHOICES.join(', ')}, got ${JSON.stringify(options.provider)}`);
  }
  if (options.maxLength !== undefined && (!Number.isInteger(options.maxLength) || options.maxLength < 1)) {
    throw new RangeError(`maxLength must be a positive integer, got ${options.maxLength}`);
  }
  const modelPath = resolveModelFile(options.model);
  const modelDir = path.dirname(modelPath);
  const metadata = readModelMetadata(modelDir, options.config === undefined ? {} : { configFile: path.resolve(options.config) });
  const tokenizerPath = path.resolve(options.tokenizer ?? path.join(modelDir, 'tokenizer.json'));
  const wanted = options.tokenizer !== null && (options.tokenizer !== undefined || existsSync(tokenizerPath));
  const tokenizer = wanted ? loadTokenizer(tokenizerPath) : null;
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
  const warn = options.onWarning ?? options.onLog ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
  const { session, provider } = await openSession(
    (chosen) => loadBinding().loadSession(modelPath, { ...nativeOptions, ...(rewrites !== undefined ? { rewrites } : {}), provider: chosen }),
    options.provider ?? 'cpu',
    warn,
  ).catch((error: unknown) => {
    throw explainLoadFailure(error, modelPath);
  });
  const parallelBatches = parallelBatchesFor(provider, threads);
  for (const line of describeRewrites(session.rewrites)) options.onLog?.(`${path.basename(modelPath)}: ${line}`);
  if (provider === 'cuda') options.onLog?.(`${path.basename(modelPath)}: ${session.providerNote}`);
  if (session.supportsPrefix) options.onLog?.(`${path.basename(modelPath)}: KV-cache inputs found; shared prompt prefixes are computed once and reused`);
  const maxLength = options.maxLength ?? metadata.maxLength ?? DEFAULT_MAX_LENGTH;
  return new OnnxLanguageModel(provider, modelPath, metadata, session.signature(), runtime, maxLength, parallelBatches, session, tokenizer, tokenizerPath);
}
