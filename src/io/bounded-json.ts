/**
 * The one JSON parser for text from outside (files, data rows, cache entries): JSON.parse with a nesting limit
 * and a content-free error. V8's JSON.parse itself copes with any depth, but everything that walks the value
 * afterwards recurses (zod, JSON.stringify, structuredClone): a 200,000-deep array from a 1 MB file ends in
 * "Maximum call stack size exceeded" there, with no file named. The text is scanned for its depth before it is
 * parsed, in one linear pass, so such a value is refused before it exists. Sizes are bounded by whoever holds
 * the text (file-policy.ts caps each kind of file, data rows are capped per line).
 *
 * Errors name the caller's context, never the text: V8's JSON.parse messages embed the text they failed on
 * ("Unexpected token 'r', "root:x:0:0"… is not valid JSON"), which would print a foreign file's bytes into a log.
 */

/**
 * Nesting levels a value may have. Real inputs stay far below: an MLRB run record (lm-eval results with task
 * configs, the track check) about 10, a tokenizer.json about 8, a SuperGLUE row 4.
 */
export const JSON_DEPTH_LIMIT = 64;

export type JsonProblem = { readonly kind: 'too-deep'; readonly limit: number } | { readonly kind: 'syntax'; readonly description: string };

/** Parses `text`, or throws what `fail` makes of the problem (the caller names the file, row or entry). */
export function parseBoundedJson(text: string, fail: (problem: JsonProblem, cause?: unknown) => Error, maxDepth = JSON_DEPTH_LIMIT): unknown {
  if (nestingDepthExceeds(text, maxDepth)) throw fail({ kind: 'too-deep', limit: maxDepth });
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw fail({ kind: 'syntax', description: describeJsonSyntaxError(cause, text.length) }, cause);
  }
}

/** The problem in words, for messages: "nests deeper than 64 levels" / "is not valid JSON (…)". */
export function describeJsonProblem(problem: JsonProblem): string {
  return problem.kind === 'too-deep' ? `nests deeper than ${problem.limit} levels (no real file does)` : `is not valid JSON (${problem.description})`;
}

/** True when brackets outside strings nest deeper than `limit`. Malformed text is left to JSON.parse. */
function nestingDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // a backslash escapes the next character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth -= 1;
    }
  }
  return false;
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
