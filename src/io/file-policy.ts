/**
 * What JS may read, in one place. Models and data come from the agents being benchmarked, so every side file
 * (config.json, tokenizer files, genai_config.json), data file and cache entry is treated as hostile:
 *   - a FIFO, socket or device must not block or stream forever, so only regular files are read;
 *   - a symlink must not reach outside the folder the file belongs to (the model's folder, the suite's data
 *     folder, the cache), or a "data file" could be /etc/passwd or /dev/zero;
 *   - every kind of file has a size cap, so a huge file is an error that names the cap, not a V8 abort.
 * The caps are generous for real files: the largest tokenizer.json in common use (Gemma's) is ~35 MB, MMLU
 * is 6.5 MB in all, a BLiMP paradigm ~0.5 MB, and SuperGLUE's biggest split (ReCoRD train) ~120 MB.
 */
import type { ErrorCode } from '../errors.js';

export type FileKind = 'config' | 'tokenizer' | 'data' | 'cache' | 'shard' | 'record';

const MIB = 1024 * 1024;

/** Bytes a file of each kind may hold. */
export const FILE_SIZE_CAPS: Readonly<Record<FileKind, number>> = {
  /** config.json, genai_config.json, tokenizer_config.json. */
  config: 4 * MIB,
  tokenizer: 64 * MIB,
  /** One data split; below V8's longest string (~512 M characters), since a split is decoded as one string. */
  data: 256 * MIB,
  /** One token-cache entry (5-shot MMLU's is ~160 MB). */
  cache: 1024 * MIB,
  /** One shard's scored documents (a whole 5-shot MMLU run unsharded is ~3 MB). */
  shard: 256 * MIB,
  /** One MLRB run record; it embeds lm-eval's results and configs (full MMLU + BLiMP is well under 2 MB). */
  record: 64 * MIB,
};

/**
 * Characters one data row (a JSONL line, a CSV record) may hold. Real rows are far smaller (a MultiRC
 * paragraph with all its questions is ~10 kB); a 200 MB "sentence" would otherwise be copied into every
 * prompt and exhaust the heap.
 */
export const DATA_ROW_CAP_CHARS = 1 * MIB;

/** The error code a refused file of each kind raises: the caller's input that is at fault. */
export const KIND_ERROR_CODES: Readonly<Record<FileKind, ErrorCode>> = {
  config: 'BAD_MODEL',
  tokenizer: 'BAD_TOKENIZER',
  data: 'BAD_DATA',
  // A broken cache entry is never fatal (it is rebuilt); the code only labels what the reader reports.
  cache: 'BAD_DATA',
  shard: 'BAD_SHARD',
  record: 'BAD_RECORD',
};

export interface FilePolicy {
  readonly kind: FileKind;
  /** The folder the file must resolve inside (symlinks followed). */
  readonly root: string;
  /** The file's role, for messages ("BLiMP file for adjunct_island", "config.json"). */
  readonly what: string;
  /** Overrides the kind's cap (tests, or a caller with a tighter bound). */
  readonly maxBytes?: number;
}

export function capOf(policy: FilePolicy): number {
  return policy.maxBytes ?? FILE_SIZE_CAPS[policy.kind];
}

/** "64 MB" for messages; caps are whole MiB, smaller test caps print in bytes. */
export function formatBytes(bytes: number): string {
  return bytes >= MIB && bytes % MIB === 0 ? `${bytes / MIB} MB` : `${bytes} bytes`;
}
