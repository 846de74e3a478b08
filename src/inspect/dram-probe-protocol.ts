/**
 * What the DRAM probe child process (dram-probe.ts) is asked (one JSON request on its stdin: a long input's ids
 * would overflow an argument) and answers (one marked JSON line on its stdout).
 */

/** Where the measured forward pass runs. 'auto' is not one: a measurement must say what it measured. */
export const DRAM_PROVIDERS = ['cpu', 'cuda'] as const;
export type DramProvider = (typeof DRAM_PROVIDERS)[number];

export const PROBE_RESULT_MARKER = 'MLRB_DRAM_PROBE_RESULT ';
export const PROBE_ERROR_MARKER = 'MLRB_DRAM_PROBE_ERROR ';
/** A line the child prints once the model is loaded, before the measured pass (for progress). */
export const PROBE_LOADED_MARKER = 'MLRB_DRAM_PROBE_LOADED';

/**
 * How far a measurement has got, probe by probe (dram-probes.ts): a probe's child started (loading the model), the
 * model loaded (the pass runs), done.
 */
export interface DramProbeProgress {
  readonly stage: 'loading' | 'running' | 'done';
  /** Which probe (dram-probes.ts's DramProbeKind), the 1-based index of it and how many probes run. */
  readonly probe: string;
  readonly index: number;
  readonly count: number;
  /** The input length the pass runs. */
  readonly tokens: number;
  /** Since this probe's child was started. */
  readonly elapsedMs: number;
}

/**
 * What one probe feeds the model: ids the parent chose (real text, tokenized there), or ids the child draws from the
 * session's vocabulary (the logits' width), which only it knows.
 */
export type ProbeInput =
  /** `ids.length - 1` tokens run; the last id is only the last position's target. */
  | { readonly kind: 'ids'; readonly ids: readonly number[] }
  /** Uniformly random ids. */
  | { readonly kind: 'random'; readonly tokens: number }
  /** One id drawn at random, repeated. */
  | { readonly kind: 'repeated'; readonly tokens: number };

export interface ProbeRequest {
  readonly model: string;
  /** Exactly the input's tokens are run: the probe never shortens it. */
  readonly input: ProbeInput;
  readonly threads: number;
  readonly ortLibrary: string | null;
  readonly provider: DramProvider;
  /** Initializers replaced in the measurement's copy of the graph (rebuilt rotary caches), their bytes in base64. */
  readonly initializerOverrides: readonly ProbeInitializer[];
}

export interface ProbeInitializer {
  readonly name: string;
  readonly elementType: number;
  readonly dims: readonly number[];
  readonly base64: string;
}

export interface ProbeResult {
  /** The input length that ran (always the requested one). */
  readonly tokens: number;
  /** Distinct ids in the input that ran: 1 for a repeated id, near the length for random ids. */
  readonly distinctIds: number;
  /**
   * Rows of logits the forward pass produced: every position (tokens), since the graph runs as submitted,
   * without mlrb-eval's LM-head slicing.
   */
  readonly logitRows: number;
  /** The logits' last dimension (the vocabulary), as the session reports it; null when symbolic. */
  readonly vocabSize: number | null;
  /** The logits' element type as ONNX Runtime names it ('float32', 'float16' …). */
  readonly logitsType: string;
  readonly baselineRssBytes: number;
  readonly afterLoadRssBytes: number;
  readonly peakRssBytes: number;
  readonly loadMs: number;
  readonly forwardMs: number;
  readonly peakResetSupported: boolean;
  readonly provider: DramProvider;
  /** On 'cuda': the device (cudaDevice() before the model loaded); null on 'cpu'. */
  readonly deviceName: string | null;
  /** On 'cuda': the device's free memory before the model loaded; null on 'cpu'. */
  readonly deviceBaselineFreeBytes: number | null;
  /**
   * On 'cuda': free memory before loading minus free memory after scoring. ORT's CUDA arena grows only by
   * what is requested and never shrinks, so this is the peak device footprint. null on 'cpu'.
   */
  readonly devicePeakBytes: number | null;
}
