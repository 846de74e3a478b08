/**
 * Every runtime failure the library reports is an MlrbError with a stable code, so callers branch on
 * `error.code` and never on message text. Bad arguments are TypeError / RangeError instead (thrown
 * synchronously, before any work starts).
 */
export type ErrorCode =
  | 'ORT_LOAD' // the ONNX Runtime shared library could not be loaded or is too old
  | 'ORT_RUN' // ONNX Runtime returned a failing status while creating a session or running it
  | 'BAD_MODEL' // the file is not a usable causal LM graph (unreadable, corrupt, no logits output …)
  | 'BAD_DATA' // a data file row, a token id or a request is invalid
  | 'BAD_TOKENIZER' // tokenizer.json is missing or unusable
  | 'NUMERIC' // NaN / Inf in logits
  | 'CUDA_UNAVAILABLE'
  | 'OOM'
  | 'BUSY' // a session was disposed while runs were active
  | 'DISPOSED'
  | 'IO' // an output file could not be written (the results are still printed)
  | 'BAD_SHARD' // shard files that cannot be merged: unreadable, from different runs, duplicated or missing
  | 'BAD_RECORD' // an MLRB run record (`mlrb … --output`) that cannot be read: unreadable, not JSON, or not the schema
  | 'LEAN_RUN' // the Lean executable given for compile checks (`--lean`) could not be started
  | 'INTERNAL';

export class MlrbError extends Error {
  readonly code: ErrorCode;
  /** Structured context (file, line, tensor name …) that the message also spells out. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, details: Readonly<Record<string, unknown>> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MlrbError';
    this.code = code;
    this.details = details;
  }
}

export function isMlrbError(value: unknown): value is MlrbError {
  return value instanceof MlrbError;
}
