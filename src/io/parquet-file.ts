/**
 * Parquet files (the Hugging Face hub's format) under the same policy as every other data file: the whole file
 * is read into memory by readRegularFile (regular file, inside its folder, size-capped), then decoded in JS by
 * hyparquet. Decoding a hostile file has dangers of its own, guarded here:
 *   - a page header may claim any uncompressed size, so every decompression is capped per page and per file
 *     (a 256 MB file must not inflate into tens of GB);
 *   - text must be valid UTF-8, as for JSONL and CSV (hyparquet's default decoder would substitute U+FFFD);
 *   - whatever hyparquet throws on a truncated or malformed file becomes BAD_DATA naming the file.
 * Messages name the file and the rule; hyparquet's own reason is kept only as printable ASCII (it describes
 * structure: lengths, codecs, page types), never the file's text.
 */
import { parquetMetadata, parquetReadObjects, parquetSchema, type FileMetaData } from 'hyparquet';
import { compressors as allCodecs } from 'hyparquet-compressors';
import { MlrbError } from '../errors.js';
import { FILE_SIZE_CAPS, KIND_ERROR_CODES, formatBytes, type FilePolicy } from './file-policy.js';
import { GIT_LFS_POINTER_REASON, isGitLfsPointer } from './git-lfs-pointer.js';
import { readRegularFile } from './regular-file.js';

/** Bytes one page may decompress to; real hub pages are about 1 MB. */
const PAGE_DECODED_CAP = FILE_SIZE_CAPS.data;
/** Bytes all pages of one file may decompress to: text compresses 3-5x, so 4x the file cap is generous. */
const FILE_DECODED_CAP = 4 * FILE_SIZE_CAPS.data;
/** Rows one file may declare; MMLU's whole test split is 14,042 and ReCoRD's train split 100,730. */
const ROW_CAP = 10_000_000;

/** The parsed footer of a file already read: its top-level column names and row count. */
export interface ParquetTable {
  readonly columns: readonly string[];
  readonly rowCount: number;
  /** Reads the named columns (each must be in `columns`) as one object per row, in file order, up to `rowEnd`. */
  readonly readRows: (columns: readonly string[], rowEnd?: number) => Promise<Record<string, unknown>[]>;
}

/** Reads the file under the policy and parses its footer; BAD_DATA (the policy kind's code) when it is not parquet. */
export function openParquetFile(file: string, policy: FilePolicy): ParquetTable {
  const bytes = readRegularFile(file, policy);
  // A Buffer may be a view into a shared pool; hyparquet wants an ArrayBuffer that is exactly the file.
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const fail = (reason: string, cause?: unknown): MlrbError =>
    new MlrbError(KIND_ERROR_CODES[policy.kind], `${policy.what} ${reason}: ${file}`, { file }, cause === undefined ? undefined : { cause });
  let metadata: FileMetaData;
  try {
    metadata = parquetMetadata(buffer, { parsers: { stringFromBytes: strictUtf8 } });
  } catch (cause) {
    if (isGitLfsPointer(bytes)) throw fail(GIT_LFS_POINTER_REASON, cause);
    throw fail(`is not a readable parquet file (${describeDecodeError(cause)})`, cause);
  }
  checkDeclaredSizes(metadata, fail);
  const columns = parquetSchema(metadata).children.map((child) => child.element.name);
  return {
    columns,
    rowCount: Number(metadata.num_rows),
    readRows: async (wanted, rowEnd) => {
      try {
        return await parquetReadObjects({
          file: buffer,
          metadata,
          columns: [...wanted],
          ...(rowEnd !== undefined ? { rowEnd } : {}),
          compressors: cappedCodecs(),
          parsers: { stringFromBytes: strictUtf8 },
        });
      } catch (cause) {
        throw fail(`cannot be decoded (${describeDecodeError(cause)})`, cause);
      }
    },
  };
}

/** The footer's own claims, checked before any page is decoded. */
function checkDeclaredSizes(metadata: FileMetaData, fail: (reason: string) => MlrbError): void {
  if (metadata.num_rows < 0n || metadata.num_rows > BigInt(ROW_CAP)) {
    throw fail(`declares ${metadata.num_rows} rows, over the limit of ${ROW_CAP} for one data file`);
  }
  let declared = 0n;
  for (const group of metadata.row_groups) for (const chunk of group.columns) declared += chunk.meta_data?.total_uncompressed_size ?? 0n;
  if (declared > BigInt(FILE_DECODED_CAP)) {
    throw fail(`declares ${formatBytes(Number(declared))} of decompressed data, over the ${formatBytes(FILE_DECODED_CAP)} limit for one data file`);
  }
}

/**
 * Every codec hyparquet-compressors knows (snappy, the hub's; zstd, gzip, brotli, lz4), each refusing an output
 * over the page cap or past the file's running total, before it allocates. One set per read: the total is per file.
 */
function cappedCodecs(): typeof allCodecs {
  let total = 0;
  const capped: Record<string, (input: Uint8Array, outputLength: number) => Uint8Array> = {};
  for (const [codec, decompress] of Object.entries(allCodecs)) {
    if (decompress === undefined) continue;
    capped[codec] = (input, outputLength) => {
      total += outputLength;
      if (outputLength > PAGE_DECODED_CAP || total > FILE_DECODED_CAP) throw new DecodeLimitError(outputLength, total);
      return decompress(input, outputLength);
    };
  }
  return capped;
}

class DecodeLimitError extends Error {
  constructor(page: number, total: number) {
    super(
      `a page claims ${formatBytes(page)} decompressed (${formatBytes(total)} so far), over the ${formatBytes(PAGE_DECODED_CAP)} page / ${formatBytes(FILE_DECODED_CAP)} file limits`,
    );
  }
}

class InvalidUtf8Error extends Error {
  constructor() {
    super('a text value is not valid UTF-8');
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function strictUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new InvalidUtf8Error();
  }
}

/** hyparquet's reason, reduced to printable ASCII and a bounded length so no file content can pass through. */
function describeDecodeError(error: unknown): string {
  const message = error instanceof Error ? error.message : 'unknown error';
  const printable = message.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 160 ? `${printable.slice(0, 157)}...` : printable;
}
