/**
 * A speed-up for SentencePiece-style BPE tokenizers saved without a pre-tokenizer (llama2.c's, Llama 2's): there the
 * whole normalized text is one "word", so @huggingface/tokenizers runs its BPE over all of it on every encode, and
 * its word cache (words under 256 characters) never helps. A 300-character MMLU prompt then costs milliseconds.
 *
 * When no merge can join across a "▁" (no merge's right part holds "▁", no left part holds it after its first
 * character), no BPE symbol ever spans the start of a "▁"-led piece, and within each piece the merges happen in the
 * same order alone as inside the whole text (lowest rank first, then leftmost). Splitting the text before every "▁"
 * therefore gives the same tokens, piece by piece, and repeated words come from the cache. Anything else about
 * the tokenizer that acts per word (suffixes, dropout, ignore_merges) rules the split out.
 */

/** Where SentencePiece-style normalizers put spaces. */
const METASPACE = '\u2581';

/** A pre-tokenizer that cuts before every "▁": a "▁"-led run, or the run before the first "▁". */
const SPLIT_BEFORE_METASPACE = {
  type: 'Split',
  pattern: { Regex: `${METASPACE}[^${METASPACE}]*|[^${METASPACE}]+` },
  behavior: 'Isolated',
  // @huggingface/tokenizers' sense: the pattern matches the pieces themselves (every character is in one).
  invert: true,
} as const;

type JsonObject = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A merge as [left, right], from either tokenizer.json spelling ("a b" or ["a", "b"]); undefined if neither. */
function mergeParts(merge: unknown): readonly [string, string] | undefined {
  if (typeof merge === 'string') {
    const space = merge.indexOf(' ');
    return space < 0 ? undefined : [merge.slice(0, space), merge.slice(space + 1)];
  }
  if (Array.isArray(merge) && merge.length === 2 && typeof merge[0] === 'string' && typeof merge[1] === 'string') return [merge[0], merge[1]];
  return undefined;
}

function mergesStayInsidePieces(merges: readonly unknown[]): boolean {
  return merges.every((merge) => {
    const parts = mergeParts(merge);
    return parts !== undefined && parts[0].indexOf(METASPACE, 1) < 0 && !parts[1].includes(METASPACE);
  });
}

/**
 * The tokenizer.json to build the tokenizer from: `tokenizerJson` with a split before every "▁" when that is
 * provably the same tokenization (see above), else `tokenizerJson` itself.
 */
export function withBpeWordSplit(tokenizerJson: JsonObject): JsonObject {
  const model = tokenizerJson['model'];
  if ((tokenizerJson['pre_tokenizer'] ?? null) !== null || !isObject(model) || model['type'] !== 'BPE') return tokenizerJson;
  const perWordOptions = ['dropout', 'end_of_word_suffix', 'continuing_subword_suffix', 'ignore_merges'];
  if (perWordOptions.some((option) => model[option] !== undefined && model[option] !== null && model[option] !== false)) return tokenizerJson;
  const merges = model['merges'];
  if (!Array.isArray(merges) || !mergesStayInsidePieces(merges)) return tokenizerJson;
  return { ...tokenizerJson, pre_tokenizer: SPLIT_BEFORE_METASPACE };
}
