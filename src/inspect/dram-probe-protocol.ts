/** What the DRAM probe child process (dram-probe.ts) is asked and answers, one marked JSON line each way. */

/** Where the measured forward pass runs. 'auto' is not one: a measurement must say what it measured. */
export const DRAM_PROVIDERS = ['cpu', 'cuda'] as const;
export type DramProvider = (typeof DRAM_PROVIDERS)[number];

export const PROBE_RESULT_MARKER = 'MLRB_DRAM_PROBE_RESULT ';
export const PROBE_ERROR_MARKER = 'MLRB_DRAM_PROBE_ERROR ';
/** A line the child prints once the model is loaded, before the measured pass (for progress). */
export const PROBE_LOADED_MARKER = 'MLRB_DRAM_PROBE_LOADED';

/** How far a measurement has got: its child started (loading the model), the model loaded (the pass runs), done. */
export interface DramProbeProgress {
  readonly stage: 'loading' | 'running' | 'done';
  /** The input length the pass runs. */
  readonly tokens: number;
  /** Since the child was started. */
  readonly elapsedMs: number;
}

export interface ProbeRequest {
  readonly model: string;
  /** Exactly this many tokens are run: the probe never shortens the input. */
  readonly tokens: number;
  readonly threads: number;
  readonly ortLibrary: string | null;
  readonly provider: DramProvider;
}

export interface ProbeResult {
  /** The input length that ran (always the requested one). */
  readonly tokens: number;
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
