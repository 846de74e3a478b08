/**
 * Why a tokenizer.json cannot be built, in words a user can act on. @huggingface/tokenizers checks little itself:
 * it guesses a model for an unknown model.type, and a malformed vocab or merges list surfaces as a TypeError from
 * deep inside it. So the few top-level facts every tokenizer.json holds are checked here first, and what the
 * library throws otherwise is passed on only where its text cannot quote the file (the side-file policy, see
 * src/io/file-policy.ts: a foreign file's bytes never reach a log).
 */

type JsonObject = Readonly<Record<string, unknown>>;

/** The model types the `tokenizers` library serializes, with the vocab shape each one uses. */
const VOCAB_SHAPES = { BPE: 'object', WordPiece: 'object', WordLevel: 'object', Unigram: 'array' } as const;
type ModelType = keyof typeof VOCAB_SHAPES;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isModelType(value: unknown): value is ModelType {
  return typeof value === 'string' && Object.hasOwn(VOCAB_SHAPES, value);
}

/** A value from the file, quoted only when it is a short plain name (a type, a key), never arbitrary text. */
function quotedIfPlainName(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z][\w.-]{0,39}$/.test(value) ? JSON.stringify(value) : undefined;
}

/** The index of the first merge that is neither "left right" nor ["left", "right"], or -1. */
function firstMalformedMerge(merges: readonly unknown[]): number {
  return merges.findIndex((merge) => {
    if (typeof merge === 'string') return !merge.includes(' ');
    return !(Array.isArray(merge) && merge.length === 2 && merge.every((part) => typeof part === 'string'));
  });
}

function modelProblem(model: unknown): string | undefined {
  if (model === undefined) return 'it has no `model` section';
  if (!isObject(model)) return '`model` is not an object';
  const type = model['type'];
  // An untyped model is left to the library, which tells the kinds apart by their fields (older exports omit it).
  if (type === undefined) return undefined;
  if (!isModelType(type)) {
    const named = quotedIfPlainName(type);
    return `model.type ${named === undefined ? '' : `${named} `}is not one of ${Object.keys(VOCAB_SHAPES).join('/')}`;
  }
  const vocab = model['vocab'];
  if (VOCAB_SHAPES[type] === 'object' && !isObject(vocab)) return `model.vocab is not an object of token → id (as ${type} needs)`;
  if (VOCAB_SHAPES[type] === 'array' && !Array.isArray(vocab)) return `model.vocab is not a list of [token, score] (as ${type} needs)`;
  if (type !== 'BPE') return undefined;
  const merges = model['merges'];
  if (!Array.isArray(merges)) return 'model.merges is not a list';
  const malformed = firstMalformedMerge(merges);
  return malformed < 0 ? undefined : `model.merges[${malformed}] is neither "left right" nor ["left", "right"]`;
}

/** What is wrong with a parsed tokenizer.json at the top level (a clause), or undefined when nothing checked is. */
export function tokenizerJsonProblem(json: JsonObject): string | undefined {
  const problem = modelProblem(json['model']);
  if (problem !== undefined) return problem;
  if (!Array.isArray(json['added_tokens'])) return 'it has no `added_tokens` list';
  return undefined;
}

/** How the library refused, when it gave no message to pass on. */
function describeSilentRefusal(thrown: unknown): string {
  if (thrown instanceof Error) return `@huggingface/tokenizers refused it without a reason (${thrown.name} with an empty message)`;
  return `@huggingface/tokenizers refused it without a reason (it threw ${typeof thrown === 'string' ? 'an empty string' : `a value of type ${typeof thrown}`})`;
}

/**
 * What @huggingface/tokenizers' refusal says, without quoting the file. Its fixed messages pass through;
 * "Unknown X type: Y" names Y only when Y is a plain name; a regular-expression error keeps V8's reason but not
 * the pattern; any other message (a TypeError's may quote a value: "… in <string>") is withheld.
 */
export function describeTokenizerLibraryRefusal(thrown: unknown): string {
  const message = thrown instanceof Error ? thrown.message : typeof thrown === 'string' ? thrown : '';
  if (message === '') return describeSilentRefusal(thrown);
  const missingSection = /^Tokenizer must contain a "(\w+)" property$/.exec(message);
  if (missingSection !== null) return `it has no \`${missingSection[1]}\` entry (@huggingface/tokenizers needs every top-level section, null where unused)`;
  if (/^\w+ must (contain a "\w+" property|be a valid object|not be empty)$/.test(message)) return `@huggingface/tokenizers refused it: ${message}`;
  const unknownType = /^Unknown (\w+) type: (.*)$/s.exec(message);
  if (unknownType !== null) {
    const named = quotedIfPlainName(unknownType[2]);
    return `its ${unknownType[1]} type ${named === undefined ? '' : `${named} `}is unknown to @huggingface/tokenizers`;
  }
  const badRegex = /^Invalid regular expression: .*: ([^:]*)$/s.exec(message);
  if (badRegex !== null) return `one of its regular expressions is invalid (${badRegex[1]})`;
  const kind = thrown instanceof Error ? thrown.name : 'string';
  return `@huggingface/tokenizers refused it with a ${kind} (its message is withheld: it may quote the file)`;
}
