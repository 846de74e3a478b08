/**
 * The whole native surface as one type, and the loader that checks it in. Handles are opaque to callers
 * outside src/model; everything that crosses is typed arrays and small plain objects.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { MlrbError } from '../errors.js';

export interface TensorInfo {
  readonly name: string;
  readonly type: string;
  readonly shape: readonly (number | string)[];
}

export type InputRole =
  | 'input_ids'
  | 'attention_mask'
  | 'position_ids'
  | 'token_type_ids'
  | 'past_key_value'
  | 'past_stacked'
  /** Added by LM-head slicing: the flat positions whose logits are computed. */
  | 'logit_positions';

export interface GraphSignature {
  readonly inputs: readonly (TensorInfo & { readonly role: InputRole })[];
  readonly outputs: readonly TensorInfo[];
  readonly logitsOutput: string;
  readonly logitsType: string;
  /** null when the graph leaves the vocabulary dimension symbolic. */
  readonly vocabSize: number | null;
  /** The LM head was rewritten to run only at scored positions: logits are [positions, vocab]. */
  readonly logitsSliced: boolean;
}

/** One forward pass worth of requests; see native/core/packed_batch.h for the layout. */
export interface PackedBatch {
  readonly tokens: Int32Array;
  readonly rowOffsets: Int32Array;
  readonly requestRows: Int32Array;
  readonly targets: Int32Array;
  readonly targetOffsets: Int32Array;
  /** Per request, the position after its last scored one; absent: every request scores its row's tail. */
  readonly requestEnds?: Int32Array;
}

export interface BatchScores {
  readonly logliks: Float64Array;
  readonly greedy: Uint8Array;
  /** rows × padded length: the tokens the forward pass computed, padding included. */
  readonly paddedTokens: number;
  /** Rows of logits the model produced: scored positions when sliced, else rows × padded length. */
  readonly logitRows: number;
}

/** A prefix whose KV the native session holds (see NativeSession.computePrefix). */
export type PrefixId = number & { readonly __brand: 'PrefixId' };

/** Where a session's forward pass runs: ONNX Runtime's CPU or CUDA execution provider. */
export type ExecutionProvider = 'cpu' | 'cuda';

export interface NativeSessionOptions {
  /** 'cuda' rejects with MlrbError CUDA_UNAVAILABLE, naming the provider library, when it cannot be used. */
  readonly provider?: ExecutionProvider;
  readonly intraOpThreads?: number;
  readonly numKeyValueHeads?: number;
  readonly headDim?: number;
  readonly padTokenId?: number;
  /** Load-time graph rewrites to turn off (or on); each runs when the graph allows it unless set false. */
  readonly rewrites?: RewriteSwitches;
  /**
   * A folder above the model's that its external data may resolve into through symlinks (a hub snapshot's
   * repository folder: src/io/hub-snapshot.ts); without it, only the model's own folder.
   */
  readonly readRoot?: string;
  /**
   * Initializers replaced in the graph ORT loads, by name (the DRAM measurement's rebuilt rotary caches): the model
   * is then loaded from memory. BAD_MODEL when a name is no initializer of the graph.
   */
  readonly initializerOverrides?: readonly InitializerOverride[];
}

/** One initializer's replacement: a float tensor, its raw little-endian bytes. */
export interface InitializerOverride {
  readonly name: string;
  /** ONNX TensorProto.DataType: 1 float32, 10 float16, 16 bfloat16. */
  readonly elementType: number;
  readonly dims: readonly number[];
  readonly data: Uint8Array;
}

/**
 * The load-time graph rewrites by name, in the order they run. The addon's list (native/graph/rewrite_passes.cc,
 * exported as `rewritePasses`) is the source: this copy exists only so the names are a static type, and
 * loadBinding() refuses an addon whose list differs from it, so any addon that runs has exactly these names and
 * option schemas can take them from here without loading it.
 * - cpuFusion: CPU graph fusion (CPU provider only): decomposed attention blocks run as one fused kernel each,
 *   rounding as ORT's own kernels do.
 * - sliceLmHead: the LM head runs only at scored positions.
 * - pruneLastBlock: with both above applied, the last block runs only on the scored positions too.
 * - decodeCache: with cpuFusion applied to a graph without past inputs, the fused attention keeps a KV cache while
 *   generating.
 */
export const REWRITE_NAMES = ['cpuFusion', 'sliceLmHead', 'pruneLastBlock', 'decodeCache'] as const;

export type RewriteName = (typeof REWRITE_NAMES)[number];

/** Each rewrite runs when the graph allows it unless set false here. The addon refuses a name it does not know. */
export type RewriteSwitches = { readonly [name in RewriteName]?: boolean | undefined };

/** What one load-time rewrite did: applied, with what it rewrote, or not, with why. */
export interface RewriteOutcome {
  readonly name: RewriteName;
  readonly applied: boolean;
  readonly reason: string;
}

/** What startGeneration() decodes: prompts as concatenated ids, see native/ort/generation_session.h. */
export interface NativeGenerationRequest {
  readonly tokens: Int32Array;
  /** prompts + 1 entries; prompt p is tokens[promptOffsets[p], promptOffsets[p + 1]). */
  readonly promptOffsets: Int32Array;
  /** Per prompt, its random stream: the same stream and seed give the same samples, whatever the batch. */
  readonly streams: Int32Array;
  readonly maxNewTokens: number;
  readonly eosTokenIds: Int32Array;
  /** Absent: greedy. topK 0: the whole vocabulary. */
  readonly sampling?: { readonly temperature: number; readonly topK: number; readonly seed: number };
}

/** Native finish codes (native/ort/generation_session.h FinishReason). */
export const NATIVE_FINISH = { running: 0, eos: 1, maxNewTokens: 2, stopped: 3 } as const;

/** The new ids of one step(n) call, for the prompts still running when it began (ascending prompt index). */
export interface NativeStepOutput {
  readonly prompts: Int32Array;
  /** prompts.length + 1 entries into tokens. */
  readonly tokenOffsets: Int32Array;
  readonly tokens: Int32Array;
  /** NATIVE_FINISH code per prompt after the call. */
  readonly finish: Uint8Array;
}

/** One generation in progress; its KV cache stays native. */
export interface NativeGeneration {
  /** Runs up to `steps` forward passes. Rejects nothing for a finished run: it returns no prompts. */
  step(steps: number): Promise<NativeStepOutput>;
  /** Prompts whose text hit a stop string; they leave the batch before the next pass. Throws BUSY during step(). */
  stop(prompts: Int32Array): void;
  /** Frees the KV cache; throws BUSY during step(). Later calls throw DISPOSED. */
  dispose(): void;
  /** The graph's KV cache is used (else each pass recomputes every row's whole sequence). */
  readonly usesKvCache: boolean;
  /** Every prompt has ended (EOS, its limit, or stop()); also true once disposed. */
  readonly finished: boolean;
}

export interface NativeSession {
  signature(): GraphSignature;
  /** Throws MlrbError BAD_DATA (naming the prompt) for requests the graph cannot run. */
  startGeneration(request: NativeGenerationRequest): NativeGeneration;
  /** With a prefix, every row of the batch continues the prefix's tokens. */
  score(batch: PackedBatch, prefix?: PrefixId): Promise<BatchScores>;
  /** Runs the tokens once (batch 1) and keeps their KV; rejects BAD_MODEL without KV-cache inputs. */
  computePrefix(tokens: Int32Array): Promise<PrefixId>;
  releasePrefix(prefix: PrefixId): void;
  /** Every load-time rewrite, in the order they ran: what it did, or why it did nothing. */
  readonly rewrites: readonly RewriteOutcome[];
  /** Attention blocks run as fused kernels (no [rows, heads, T, T] score tensors are materialized). */
  readonly attentionFused: boolean;
  /** On CUDA: the device, and whether logits are reduced on it or on the host. '' on CPU. */
  readonly providerNote: string;
  /** The graph has KV-cache inputs with matching present outputs. */
  readonly supportsPrefix: boolean;
  /** Throws MlrbError BUSY while score() calls are in flight. */
  dispose(): void;
  readonly activeRuns: number;
}

/** The graphs of an encoder-decoder export (src/model/seq2seq-files.ts). */
export interface NativeSeq2SeqFiles {
  readonly encoder: string;
  /** decoder_model.onnx, or decoder_model_merged.onnx. */
  readonly decoder: string;
  readonly decoderWithPast?: string;
}

export interface NativeSeq2SeqOptions {
  readonly provider?: ExecutionProvider;
  readonly intraOpThreads?: number;
  readonly readRoot?: string;
  readonly decoderStartTokenId?: number;
  readonly padTokenId?: number;
  /** config.json's head count and head size, for KV dimensions the graphs leave symbolic. */
  readonly numHeads?: number;
  readonly headDim?: number;
}

export interface NativeSeq2SeqFacts {
  /** The files in use, e.g. 'encoder_model.onnx + decoder_model.onnx + decoder_with_past_model.onnx'. */
  readonly description: string;
  /** Generation keeps the decoder's KV cache between steps (with-past and merged layouts). */
  readonly usesKvCache: boolean;
  /** Decoder layers, from the past inputs or present outputs; 0 for a decoder with neither. */
  readonly layers: number;
  readonly logitsType: string;
  readonly vocabSize: number | null;
}

/**
 * An encoder-decoder model's sessions (native/ort/seq2seq_session.h). score() takes the same PackedBatch as
 * NativeSession, read another way: rows are encoder inputs, each request reads one (the choices of a document
 * share their context's encoder pass) and scores its whole continuation after decoder_start_token_id.
 */
export interface NativeSeq2SeqSession {
  score(batch: PackedBatch): Promise<BatchScores>;
  /** Prompts are encoder inputs; generated ids exclude decoder_start_token_id. */
  startGeneration(request: NativeGenerationRequest): NativeGeneration;
  facts(): NativeSeq2SeqFacts;
  /** Throws MlrbError BUSY while runs are in flight. */
  dispose(): void;
  readonly activeRuns: number;
}

export interface RuntimeInfo {
  readonly libraryPath: string;
  readonly version: string;
  readonly apiVersion: number;
}

/**
 * Which MLAS kernel family ONNX Runtime runs on this CPU, and whose rounding the fused CPU attention follows
 * (native/core/cpu_features.h): 'avx512' (AVX-512F), 'avx2' (FMA3 + AVX2) or 'baseline' (neither).
 */
export type KernelPath = 'avx512' | 'avx2' | 'baseline';

export interface CpuInfo {
  /** CPUID brand string ('' where there is none). */
  readonly model: string;
  /** The SIMD features that decide the kernel path, spelled as /proc/cpuinfo spells them ('avx2', 'fma', 'avx512f' …). */
  readonly features: readonly string[];
  /** The rounding the fused attention follows in this process. */
  readonly kernelPath: KernelPath;
  /** The kernels MLAS runs on this CPU: fused and unfused graphs agree bit for bit where kernelPath equals it (and is not 'baseline'). */
  readonly mlasPath: KernelPath;
  /** kernelPath was set by MLRB_CPU_PATH rather than read from the CPU. */
  readonly forced: boolean;
}

export interface BuildInfo {
  readonly ortHeaderApiVersion: number;
  readonly cudaKernels: boolean;
  readonly runtime: RuntimeInfo | null;
  /** Throws RangeError (from buildInfo()) where MLRB_CPU_PATH holds an unknown path. */
  readonly cpu: CpuInfo;
}

/** One head of the fused CPU attention, outside any graph (row-major operands). */
export interface AttentionKernelRequest {
  /** [queries, keyDim] */
  readonly query: Float32Array;
  /** [keys, keyDim] */
  readonly key: Float32Array;
  /** [keys, valueDim] */
  readonly value: Float32Array;
  /** [queries, keys]: 1 where the query attends to the key; excluded scores become `fill` before the softmax. */
  readonly keep: Uint8Array;
  readonly fill: number;
  readonly scale: number;
  readonly queries: number;
  readonly keys: number;
  readonly keyDim: number;
  readonly valueDim: number;
  /** Whose rounding to follow, whatever this CPU's own path. */
  readonly kernelPath: KernelPath;
}

/** A CUDA device as the CUDA runtime this addon was built with sees it. */
export interface CudaDeviceInfo {
  readonly index: number;
  readonly name: string;
  /** e.g. '9.0' for an H100 */
  readonly computeCapability: string;
  readonly totalBytes: number;
  /** Free memory on the whole device, every process counted. */
  readonly freeBytes: number;
}

/** A tensor as the native ONNX reader sees it: its payload stays on disk at (file, offset, length). */
export interface NativeTensorInfo {
  readonly name: string;
  /** TensorProto.DataType code. */
  readonly dataType: number;
  readonly dims: readonly number[];
  /** raw / external payloads are plain little-endian bytes on disk; typed ones are protobuf-encoded. */
  readonly location: 'raw' | 'external' | 'typed' | 'none';
  readonly source: 'initializer' | 'sparse_initializer' | 'constant_node';
  /** '' for the main graph, else the subgraph or function holding it. */
  readonly graph: string;
  readonly file: string;
  /**
   * `file` with its links resolved, as the reader opened it (held to the model's folder or read root then);
   * reopen this one, refusing links, so a link swapped in since cannot redirect the read. Absent in synthetic
   * models built in tests and for payloads in no file.
   */
  readonly realFile?: string;
  readonly offset: number;
  /** Payload bytes (the dense size for typed and sparse payloads). */
  readonly length: number;
  readonly elementCount: number;
}

export interface NativeNodeInfo {
  readonly opType: string;
  readonly domain: string;
  readonly name: string;
  readonly graph: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** INT attributes only (transB, axis …). */
  readonly intAttributes: Readonly<Record<string, number>>;
}

export interface NativeValueInfo {
  readonly name: string;
  readonly elemType: number;
  /** null when the graph states no shape; a null dim is unknown. */
  readonly shape: readonly (number | string | null)[] | null;
}

export interface NativeModelInfo {
  readonly path: string;
  readonly fileSize: number;
  readonly irVersion: number;
  readonly producerName: string;
  readonly producerVersion: string;
  readonly graphName: string;
  readonly opsets: readonly { readonly domain: string; readonly version: number }[];
  readonly inputs: readonly NativeValueInfo[];
  readonly outputs: readonly NativeValueInfo[];
  readonly tensors: readonly NativeTensorInfo[];
  readonly nodes: readonly NativeNodeInfo[];
  readonly externalFiles: readonly { readonly path: string; readonly size: number }[];
}

/** A tensor payload viewed as [rows, cols]. */
export interface NativeZeroScanRequest {
  /** The tensor's name, for errors. */
  readonly tensor?: string;
  readonly file: string;
  readonly offset: number;
  readonly rows: number;
  readonly cols: number;
  readonly elementBytes: 1 | 2 | 4 | 8;
  /** Floating point: -0.0 counts as zero. */
  readonly ignoreSign: boolean;
}

export interface NativeZeroScanResult {
  readonly zeroCount: number;
  /** 1 where the whole row is zero. */
  readonly zeroRows: Uint8Array;
  /** 1 where the whole column is zero. */
  readonly zeroColumns: Uint8Array;
}

export interface BindingModule {
  setErrorClass(errorClass: new (code: string, message: string) => Error): void;
  /** The load-time rewrites' names in the order they run (frozen); loadBinding() refuses an addon where they are not REWRITE_NAMES. */
  readonly rewritePasses: readonly RewriteName[];
  initRuntime(libraryPath: string): RuntimeInfo;
  buildInfo(): BuildInfo;
  loadSession(modelPath: string, options: NativeSessionOptions): Promise<NativeSession>;
  /** Rejects BAD_MODEL naming the file for graphs it cannot feed or that do not make one model. */
  loadSeq2SeqSession(files: NativeSeq2SeqFiles, options: NativeSeq2SeqOptions): Promise<NativeSeq2SeqSession>;
  /**
   * The device (default 0), or null without CUDA kernels in this build, a driver or that device. Free memory
   * read before a model loads and after it scored bounds its peak device footprint: ORT's CUDA arena keeps
   * what it reserved.
   */
  cudaDevice(index?: number): CudaDeviceInfo | null;
  /**
   * Reads the model's metadata from a memory mapping; weight bytes are stepped over, never read. External data
   * may resolve under `readRoot` (as NativeSessionOptions.readRoot), else only inside the model's folder.
   */
  readOnnxModel(modelPath: string, readRoot?: string): Promise<NativeModelInfo>;
  /**
   * softmax(scale · Q Kᵀ, masked) V for one head, [queries, valueDim], computed as the fused op computes it with
   * the named path's rounding. Synchronous, for small checks of that rounding (not for scoring).
   */
  attentionKernel(request: AttentionKernelRequest): Float32Array;
  /** Zero scan over tensor payloads on disk, threaded (threads 0 = one per core). */
  scanZeros(requests: readonly NativeZeroScanRequest[], options?: { readonly threads?: number }): Promise<NativeZeroScanResult[]>;
  /**
   * Makes this process a child subreaper (Linux prctl PR_SET_CHILD_SUBREAPER): descendants orphaned by a child's
   * exit are reparented to it, not to init. False where the OS has no such call. The Lean box's reaper uses it.
   */
  becomeChildSubreaper(): boolean;
}

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const requireFromHere = createRequire(import.meta.url);

/**
 * scripts/install/addon-location.cjs, typed: where the addon and the ORT library it loads live. The source build
 * and the prebuild script read the same file (CommonJS, so they run before any TypeScript is built).
 */
export interface AddonLocation {
  /** A local build, then the prebuilt: the order the loader tries them in. */
  addonCandidates(): string[];
  prebuiltPath(): string;
  /** The ORT library beside an addon, where `npm pack` puts it next to the prebuilt. */
  ortLibraryBeside(addonPath: string): string;
  /** onnxruntime-node's ORT library for this machine, or null where it is not installed. */
  onnxruntimeNodeLibrary(): string | null;
}

export const addonLocation = requireFromHere(path.join(packageRoot, 'scripts', 'install', 'addon-location.cjs')) as AddonLocation;

/** How to build the addon where no prebuilt loads; a local build is loaded in preference to the prebuilt. */
const BUILD_HINT =
  `build it from source with \`node ${path.join(packageRoot, 'scripts', 'install', 'build-from-source.cjs')}\` ` +
  '(in a checkout: `npm run build:native`; README "Use as a library")';

interface LoadedAddon {
  readonly binding: BindingModule;
  readonly path: string;
}

let loaded: LoadedAddon | undefined;

/**
 * Loads the addon once and registers MlrbError with it: a local build (build/Release) if there is one, else the
 * prebuilt the package ships.
 */
export function loadBinding(): BindingModule {
  return loadAddon().binding;
}

/** The file the addon was loaded from (loading it first): what the score cache hashes as the scorer's build. */
export function loadedAddonPath(): string {
  return loadAddon().path;
}

function loadAddon(): LoadedAddon {
  if (loaded) return loaded;
  const candidates = addonLocation.addonCandidates();
  const addonPath = candidates.find((candidate) => existsSync(candidate));
  if (addonPath === undefined) {
    throw new MlrbError('ORT_LOAD', `the native addon is missing (looked for ${candidates.join(' and ')}); ${BUILD_HINT}`, {
      addonPath: candidates[0],
    });
  }
  let binding: BindingModule;
  try {
    binding = requireFromHere(addonPath) as BindingModule;
  } catch (cause) {
    // An older glibc or libstdc++ than the prebuilt's build machine fails here, with the loader's reason.
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new MlrbError('ORT_LOAD', `the native addon ${addonPath} does not load here: ${reason}; ${BUILD_HINT}`, { addonPath }, { cause });
  }
  requireKnownRewritePasses(binding.rewritePasses, addonPath);
  binding.setErrorClass(MlrbError as unknown as new (code: string, message: string) => Error);
  loaded = { binding, path: addonPath };
  return loaded;
}

/**
 * Refuses an addon whose rewrite passes are not REWRITE_NAMES, in order (an addon built from other sources than
 * this TS): options would otherwise be checked against names the addon does not run.
 */
export function requireKnownRewritePasses(addonPasses: unknown, addonPath: string): void {
  const matches =
    Array.isArray(addonPasses) && addonPasses.length === REWRITE_NAMES.length && REWRITE_NAMES.every((name, index) => addonPasses[index] === name);
  if (matches) return;
  const listed = Array.isArray(addonPasses) ? `runs the rewrite passes ${addonPasses.map(String).join(', ')}` : 'exports no list of rewrite passes';
  throw new MlrbError(
    'ORT_LOAD',
    `the native addon ${addonPath} ${listed}, but this mlrb-eval expects ${REWRITE_NAMES.join(', ')}: ` +
      `the addon was built from other sources; ${BUILD_HINT}`,
    { addonPath },
  );
}
