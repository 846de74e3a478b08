/**
 * What every model the scorer and the generator run is, whatever its graphs: the LanguageModel interface and the
 * options that load one. A causal LM (one graph, src/model/onnx-model.ts) and an encoder-decoder (an optimum
 * export of several graphs, src/model/seq2seq-model.ts) both implement it; `backend` tells them apart, with
 * lm-eval's names for its HF backends. A leaf: types only.
 */
import type {
  BatchScores,
  ExecutionProvider,
  GraphSignature,
  InitializerOverride,
  NativeGeneration,
  NativeGenerationRequest,
  PackedBatch,
  PrefixId,
  RewriteOutcome,
  RewriteSwitches,
  RuntimeInfo,
} from '../native/binding.js';
import type { ProviderChoice } from './execution-provider.js';
import type { ModelMetadata } from './model-metadata.js';
import type { TextTokenizer } from './tokenizer.js';

/** lm-eval's HFLM backends: a decoder-only model, or an encoder-decoder (its `backend=seq2seq`). */
export type ModelBackend = 'causal' | 'seq2seq';

export interface LoadModelOptions {
  /**
   * Path to model.onnx (external-data files beside it are found by ONNX Runtime), or the folder holding it
   * (src/model/model-path.ts), or a folder holding an encoder-decoder export (src/model/seq2seq-files.ts).
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
   * the file itself is never changed. A causal graph only: an encoder-decoder has no rotary cache to rebuild.
   */
  readonly initializerOverrides?: readonly InitializerOverride[] | undefined;
  /** Receives what loading decided (LM-head slicing, prefix reuse, the device), for verbose output. */
  readonly onLog?: ((message: string) => void) | undefined;
  /** Receives warnings (the 'auto' provider falling back to the CPU); default onLog, else stderr. */
  readonly onWarning?: ((message: string) => void) | undefined;
}

export interface LanguageModel {
  /** 'seq2seq' for an encoder-decoder export: requests are encoded and scored by lm-eval's seq2seq rules. */
  readonly backend: ModelBackend;
  /** The ONNX file; for an encoder-decoder, the folder holding its graphs (what lm-eval's pretrained= names). */
  readonly modelPath: string;
  /** Every ONNX graph the model runs, in load order: one for a causal model; encoder, decoder(s) otherwise. */
  readonly graphFiles: readonly string[];
  readonly metadata: ModelMetadata;
  /**
   * The causal graph's inputs and logits. An encoder-decoder lists no inputs here (its graphs are fed by name,
   * native/ort/seq2seq_signature.h), only its decoder's logits.
   */
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
  /**
   * With a prefix, every row continues the prefix's tokens (see computePrefix). For an encoder-decoder the rows
   * are encoder inputs and each request scores its whole continuation (NativeSeq2SeqSession.score).
   */
  scoreBatch(batch: PackedBatch, prefix?: PrefixId): Promise<BatchScores>;
  /** The graph has KV-cache inputs, so a shared prefix can be computed once and reused (never for an encoder-decoder). */
  readonly supportsPrefix: boolean;
  /** Generation keeps a KV cache between steps; else each step reruns the whole (decoder) sequence. */
  readonly decodesWithKvCache: boolean;
  /** An encoder-decoder's first decoder input (config.json's decoder_start_token_id); null for a causal model. */
  readonly decoderStartTokenId: number | null;
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
