/**
 * Text and JSON on top of readRegularFile. Decoding is strict (undecodable bytes are an error, not U+FFFD);
 * JSON goes through the one bounded parser (bounded-json.ts), whose errors never quote the input.
 */
import { MlrbError } from '../errors.js';
import { describeJsonProblem, parseBoundedJson } from './bounded-json.js';
export { describeJsonSyntaxError } from './bounded-json.js';
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

/**
 * The file parsed as JSON through the bounded parser (bounded-json.ts): a syntax error says where, not what, and
 * a value nested deeper than JSON_DEPTH_LIMIT is refused; either is the kind's error code naming the file.
 */
export function readJsonFileUnder(file: string, policy: FilePolicy): unknown {
  const text = readTextFileUnder(file, policy);
  return parseBoundedJson(text, (problem, cause) => {
    const reason = problem.kind === 'syntax' && isGitLfsPointer(Buffer.from(text)) ? GIT_LFS_POINTER_REASON : describeJsonProblem(problem);
    return new MlrbError(KIND_ERROR_CODES[policy.kind], `${policy.what} ${reason}: ${file}`, { file }, cause === undefined ? undefined : { cause });
  });
}
