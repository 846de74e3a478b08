/**
 * Text and JSON on top of readRegularFile. Decoding is strict (undecodable bytes are an error, not U+FFFD)
 * and parse errors are described without quoting the input: V8's JSON.parse messages embed the text they
 * failed on ("Unexpected token 'r', "root:x:0:0"… is not valid JSON"), which would print a foreign file's
 * bytes into a log.
 */
import { MlrbError } from '../errors.js';
import { KIND_ERROR_CODES, type FilePolicy } from './file-policy.js';
import { GIT_LFS_POINTER_REASON, isGitLfsPointer } from './git-lfs-pointer.js';
import { readRegularFile } from './regular-file.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The file as UTF-8 text, without a leading BOM. */
export function readTextFileUnder(file: string, policy: FilePolicy): string {
  const bytes = readRegularFile(file, policy);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (cause) {
    throw new MlrbError(KIND_ERROR_CODES[policy.kind], `${policy.what} is not valid UTF-8: ${file}`, { file }, { cause });
  }
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/** The file parsed as JSON; a syntax error says where, not what. */
export function readJsonFileUnder(file: string, policy: FilePolicy): unknown {
  const text = readTextFileUnder(file, policy);
  try {
    return JSON.parse(text);
  } catch (cause) {
    const reason = isGitLfsPointer(Buffer.from(text)) ? GIT_LFS_POINTER_REASON : `is not valid JSON (${describeJsonSyntaxError(cause, text.length)})`;
    throw new MlrbError(KIND_ERROR_CODES[policy.kind], `${policy.what} ${reason}: ${file}`, { file }, { cause });
  }
}

/**
 * A content-free account of a JSON.parse failure: its position when V8 gives one. A failure at the text's end
 * (V8 words it several ways: "Unexpected end", "Unterminated string", "Expected ',' … at position <end>") is a
 * truncated file, said so when `textLength` is known.
 */
export function describeJsonSyntaxError(error: unknown, textLength?: number): string {
  const message = error instanceof Error ? error.message : '';
  if (/unexpected end/i.test(message)) return 'it ends too early';
  const position = /position (\d+)/.exec(message)?.[1];
  if (position === undefined) return 'a syntax error';
  return textLength !== undefined && Number(position) >= textLength ? 'it ends too early' : `a syntax error at character ${position}`;
}
