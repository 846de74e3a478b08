/**
 * A tokenizer.json that @huggingface/tokenizers cannot use is refused with a BAD_TOKENIZER error that names the
 * file and what is wrong with it, never with the library's bare "Error", and never quoting arbitrary text from
 * the file. Tokenizers that work (the test fixtures, ../shared's GPT-2 and stories260K) still load.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTokenizer } from '../../src/model/tokenizer.js';
import { describeTokenizerLibraryRefusal } from '../../src/model/tokenizer-json-problems.js';
import { thrownMlrbError } from '../support/expect-mlrb-error.js';
import { buildTinyTokenizerFiles } from '../support/model-builders/tiny-tokenizer.js';
import { hasShared, repoRoot, sharedPaths } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';

const SECRET = 'root:x:0:0:SECRET-CONTENT';
const root = makeTempDir('tokenizer-json');
const valid = buildTinyTokenizerFiles().tokenizerJson;
const validModel = valid['model'] as Record<string, unknown>;

/** tokenizer.json with `text` in a folder of its own; returns its path. */
function tokenizerFile(name: string, text: string): string {
  const file = path.join(root, `${name}.json`);
  writeFileSync(file, text);
  return file;
}

/** The valid tiny tokenizer with top-level `changes` (undefined removes the key). */
function withTop(changes: Record<string, unknown>): string {
  return JSON.stringify({ ...valid, ...changes });
}

/** The valid tiny tokenizer with `changes` to its model. */
function withModel(changes: Record<string, unknown>): string {
  return withTop({ model: { ...validModel, ...changes } });
}

const malformed: readonly (readonly [string, string, RegExp])[] = [
  ['an empty object', '{}', /: it has no `model` section$/],
  ['model is a string', withTop({ model: SECRET }), /: `model` is not an object$/],
  ['an unknown model.type', withModel({ type: 'Foo' }), /: model\.type "Foo" is not one of BPE\/WordPiece\/WordLevel\/Unigram$/],
  ['a model.type that is not a plain name', withModel({ type: SECRET }), /: model\.type is not one of BPE\/WordPiece\/WordLevel\/Unigram$/],
  ['a BPE vocab that is a list', withModel({ vocab: [['a', 0]] }), /: model\.vocab is not an object of token → id \(as BPE needs\)$/],
  [
    'a Unigram vocab that is an object',
    withModel({ type: 'Unigram', vocab: { a: 0 } }),
    /: model\.vocab is not a list of \[token, score\] \(as Unigram needs\)$/,
  ],
  ['BPE without merges', withModel({ merges: undefined }), /: model\.merges is not a list$/],
  ['a merge that is a number', withModel({ merges: ['▁ t', 5] }), /: model\.merges\[1\] is neither "left right" nor \["left", "right"\]$/],
  ['a merge without its right part', withModel({ merges: [['▁', 't'], ['▁t']] }), /: model\.merges\[1\] is neither/],
  ['no added_tokens', withTop({ added_tokens: undefined }), /: it has no `added_tokens` list$/],
  [
    'no decoder entry',
    withTop({ decoder: undefined }),
    /: it has no `decoder` entry \(@huggingface\/tokenizers needs every top-level section, null where unused\)$/,
  ],
  ['an unknown pre-tokenizer', withTop({ pre_tokenizer: { type: 'Nope' } }), /: its PreTokenizer type "Nope" is unknown to @huggingface\/tokenizers$/],
  ['an unknown normalizer named by arbitrary text', withTop({ normalizer: { type: SECRET } }), /: its Normalizer type is unknown to @huggingface\/tokenizers$/],
  [
    'an invalid split pattern',
    withTop({ pre_tokenizer: { type: 'Split', pattern: { Regex: `${SECRET}(` }, behavior: 'Isolated', invert: false } }),
    /: one of its regular expressions is invalid \(Unterminated group\)$/,
  ],
  ['truncated JSON', withTop({}).slice(0, 100), /is not a valid tokenizer JSON file \(it ends too early\)$/],
];

describe('a malformed tokenizer.json', () => {
  it.each(malformed)('is refused, naming the file and the problem: %s', (name, text, problem) => {
    const file = tokenizerFile(name.replaceAll(/\W+/g, '-'), text);
    const error = thrownMlrbError(() => loadTokenizer(file));
    expect(error.code).toBe('BAD_TOKENIZER');
    expect(error.message).toContain(file);
    expect(error.message).toMatch(problem);
    expect(error.message).not.toMatch(/SECRET|root:x/);
    expect(error.details).toMatchObject({ file });
  });
});

describe("the library's refusal, described", () => {
  it('says when the library threw without a message, whatever it threw', () => {
    expect(describeTokenizerLibraryRefusal(new Error(''))).toBe('@huggingface/tokenizers refused it without a reason (Error with an empty message)');
    expect(describeTokenizerLibraryRefusal('')).toBe('@huggingface/tokenizers refused it without a reason (it threw an empty string)');
    expect(describeTokenizerLibraryRefusal(undefined)).toBe('@huggingface/tokenizers refused it without a reason (it threw a value of type undefined)');
    expect(describeTokenizerLibraryRefusal({ code: 7 })).toBe('@huggingface/tokenizers refused it without a reason (it threw a value of type object)');
  });

  it('passes on a thrown string when it is one of the fixed messages, and withholds other text', () => {
    expect(describeTokenizerLibraryRefusal('Config must be a valid object')).toBe('@huggingface/tokenizers refused it: Config must be a valid object');
    const quoting = new TypeError(`Cannot use 'in' operator to search for 'type' in ${SECRET}`);
    expect(describeTokenizerLibraryRefusal(quoting)).toBe(
      '@huggingface/tokenizers refused it with a TypeError (its message is withheld: it may quote the file)',
    );
  });
});

describe('a valid tokenizer.json still loads', () => {
  const fixtures = [path.join(repoRoot, 'test/fixtures/generate/tokenizer.json'), path.join(repoRoot, 'test/fixtures/model-metrics/tiny-llama/tokenizer.json')];
  it.each(fixtures)('%s', (file) => {
    const tokenizer = loadTokenizer(file);
    expect(tokenizer.encode('the cat sat').length).toBeGreaterThan(0);
  });

  it('the tiny test tokenizer, round-tripping a sentence', () => {
    const tokenizer = loadTokenizer(tokenizerFile('tiny-valid', JSON.stringify(valid)));
    expect(tokenizer.decode(tokenizer.encode('the cat sat on the mat'))).toBe('the cat sat on the mat');
  });

  it.skipIf(!hasShared).each([
    ['GPT-2 (../shared)', path.join(path.dirname(sharedPaths.gpt2Past), 'tokenizer.json')],
    ['stories260K (../shared)', path.join(path.dirname(sharedPaths.stories), 'tokenizer.json')],
  ])('%s, round-tripping a sentence', (_name, file) => {
    const tokenizer = loadTokenizer(file);
    const ids = tokenizer.encode('Once upon a time');
    expect(ids.length).toBeGreaterThan(1);
    expect(tokenizer.decode(ids)).toBe('Once upon a time');
  });
});
