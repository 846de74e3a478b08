/**
 * Text → token ids through @huggingface/tokenizers. `encode` never adds special tokens (lm-eval ≤ 0.4.8's HFLM
 * encodes that way for causal models); `encodeWithSpecialTokens` runs the tokenizer's post-processor as well
 * (a Llama-style template adds BOS), as lm-eval 0.4.13 lets it (src/eval/request-encoding.ts).
 * tokenizer.json and tokenizer_config.json are read once, under the side-file policy (src/io/file-policy.ts):
 * regular files inside the tokenizer's folder, size-capped. Their hash is taken from those same bytes, so the
 * token cache is keyed by exactly what was loaded.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { MlrbError } from '../errors.js';
import type { FileKind } from '../io/file-policy.js';
import { GIT_LFS_POINTER_REASON, isGitLfsPointer } from '../io/git-lfs-pointer.js';
import { hubSnapshotReadRoot } from '../io/hub-snapshot.js';
import { pathEntryExists, readRegularFile } from '../io/regular-file.js';
import { describeJsonProblem, parseBoundedJson } from '../io/bounded-json.js';
import { withBpeWordSplit } from './bpe-word-split.js';
import { describeTokenizerLibraryRefusal, tokenizerJsonProblem } from './tokenizer-json-problems.js';

export interface TextTokenizer {
  readonly path: string;
  /** sha256 over the tokenizer files' bytes as loaded (tokenizer.json, then tokenizer_config.json if any). */
  readonly sha256: string;
  encode(text: string): number[];
  encodeWithSpecialTokens(text: string): number[];
  /** decode([id]) with special tokens kept: what lm-eval 0.4.13 compares a text's start with. */
  tokenText(id: number): string;
  tokenToId(token: string): number | undefined;
  /**
   * Token ids back to text (generated continuations). skipSpecialTokens (default true) leaves out tokens the
   * tokenizer marks special (BOS, EOS, padding), as transformers' decode(skip_special_tokens=True) does.
   */
  decode(ids: readonly number[], options?: DecodeOptions): string;
}

export interface DecodeOptions {
  readonly skipSpecialTokens?: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

interface JsonObjectFile {
  readonly bytes: Buffer;
  readonly value: Record<string, unknown>;
}

/**
 * A JSON object from a tokenizer file. Failures never quote the file: one that only claims to be a tokenizer
 * (a link to /etc/passwd, say) must not have its bytes printed.
 */
function readJsonObject(file: string, root: string, kind: FileKind): JsonObjectFile {
  const bytes = readRegularFile(file, { kind, root, what: path.basename(file) });
  const invalid = (reason: string, cause?: unknown): MlrbError =>
    new MlrbError(
      'BAD_TOKENIZER',
      isGitLfsPointer(bytes) ? `${file} ${GIT_LFS_POINTER_REASON}` : `${file} is not a valid tokenizer JSON file (${reason})`,
      { file },
      cause === undefined ? undefined : { cause },
    );
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (cause) {
    throw invalid('it is not UTF-8', cause);
  }
  const value = parseBoundedJson(text, (problem, cause) => invalid(problem.kind === 'syntax' ? problem.description : describeJsonProblem(problem), cause));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MlrbError('BAD_TOKENIZER', `${file} is not a valid tokenizer JSON file (not a JSON object)`, { file });
  }
  return { bytes, value: value as Record<string, unknown> };
}

/**
 * Loads tokenizer.json, with tokenizer_config.json from the same folder when it exists; both must lie inside it
 * (inside its hub-cache repository, for a snapshot's symlinks into blobs/).
 */
export function loadTokenizer(tokenizerPath: string): TextTokenizer {
  const file = path.resolve(tokenizerPath);
  const folder = path.dirname(file);
  const root = hubSnapshotReadRoot(folder, 'model');
  if (!pathEntryExists(file)) {
    throw new MlrbError('BAD_TOKENIZER', `no tokenizer at ${file}; put tokenizer.json beside the model or pass --tokenizer`, { file });
  }
  const configPath = path.join(folder, 'tokenizer_config.json');
  const config = pathEntryExists(configPath) ? readJsonObject(configPath, root, 'config') : undefined;
  const json = readJsonObject(file, root, 'tokenizer');
  const problem = tokenizerJsonProblem(json.value);
  if (problem !== undefined) throw new MlrbError('BAD_TOKENIZER', `cannot build a tokenizer from ${file}: ${problem}`, { file, problem });
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(withBpeWordSplit(json.value), config?.value ?? {});
  } catch (cause) {
    const refusal = describeTokenizerLibraryRefusal(cause);
    throw new MlrbError('BAD_TOKENIZER', `cannot build a tokenizer from ${file}: ${refusal}`, { file, problem: refusal }, { cause });
  }
  const hash = createHash('sha256').update(json.bytes);
  if (config !== undefined) hash.update('\u0000tokenizer_config.json\u0000').update(config.bytes);
  const encode = (text: string, specials: boolean): number[] =>
    withinLimits(file, `encoding a text of ${count(text.length)} characters`, () => tokenizer.encode(text, { add_special_tokens: specials }).ids);
  const decode = (ids: readonly number[], skipSpecials: boolean): string =>
    withinLimits(file, `decoding ${count(ids.length)} ids`, () => tokenizer.decode([...ids], { skip_special_tokens: skipSpecials }));
  return {
    path: file,
    sha256: hash.digest('hex'),
    encode: (text) => encode(text, false),
    encodeWithSpecialTokens: (text) => encode(text, true),
    tokenText: (id) => decode([id], false),
    tokenToId: (token) => tokenizer.token_to_id(token),
    decode: (ids, options) => decode(ids, options?.skipSpecialTokens ?? true),
  };
}

/**
 * Runs the tokenizer library on hostile input: a text or a tokenizer.json can make it build a string past V8's
 * longest (a decoder that expands a token into megabytes) or recurse past the stack (one word of megabytes). Both
 * surface as a RangeError from inside the library, reported here as the data's fault, naming the tokenizer.
 */
function withinLimits<T>(file: string, what: string, run: () => T): T {
  try {
    return run();
  } catch (cause) {
    if (!(cause instanceof RangeError)) throw cause;
    // The library's RangeError (kept as the cause) is V8's: "Invalid string length", "Maximum call stack size exceeded".
    throw new MlrbError(
      'BAD_DATA',
      `the tokenizer ${file} failed ${what}: the text, or the work to build it, is past what a JavaScript string or stack holds`,
      { file },
      { cause },
    );
  }
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
