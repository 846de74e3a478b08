/**
 * The split before "▁" (src/model/bpe-word-split.ts) must never change a token id. The reference is
 * @huggingface/tokenizers itself on the unmodified tokenizer.json, running its BPE over the whole text.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { withBpeWordSplit } from '../../src/model/bpe-word-split.js';

type Json = Record<string, unknown>;

const tinyLlama = JSON.parse(readFileSync(fileURLToPath(new URL('../fixtures/generate/tokenizer.json', import.meta.url)), 'utf8')) as Json;

const TEXTS = [
  'The cat sat on the mat.',
  '  two leading spaces, two  inside and two trailing  ',
  'Question: what is 2+2?\nA. 3\nB. 4\nC. 5\nD. 22\nAnswer:',
  'a literal \u2581 metaspace, and \u2581\u2581 two of them',
  'bytes the vocabulary lacks: ünïcödé 日本語 🙂',
  '<s> a special token, then more text </s>',
  '',
  ' ',
  'supercalifragilisticexpialidocious '.repeat(12),
];

function ids(json: Json, text: string, addSpecialTokens: boolean): number[] {
  return new Tokenizer(json, {}).encode(text, { add_special_tokens: addSpecialTokens }).ids;
}

function withModel(json: Json, changes: Json): Json {
  return { ...json, model: { ...(json['model'] as Json), ...changes } };
}

describe('withBpeWordSplit', () => {
  it('splits a SentencePiece-style BPE tokenizer without a pre-tokenizer', () => {
    expect(tinyLlama['pre_tokenizer'] ?? null).toBeNull();
    expect(withBpeWordSplit(tinyLlama)['pre_tokenizer']).toMatchObject({ type: 'Split' });
  });

  it.each(TEXTS)('gives the same ids as the whole-text BPE: %j', (text) => {
    const split = withBpeWordSplit(tinyLlama);
    for (const addSpecialTokens of [false, true]) {
      expect(ids(split, text, addSpecialTokens)).toEqual(ids(tinyLlama, text, addSpecialTokens));
    }
  });

  it('leaves a tokenizer alone when a merge joins across "▁", where splitting would change the tokens', () => {
    const vocab = { '\u2581': 0, a: 1, b: 2, 'a\u2581': 3, '\u2581b': 4 };
    const crossing: Json = {
      version: '1.0',
      added_tokens: [],
      normalizer: { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' },
      pre_tokenizer: null,
      post_processor: null,
      decoder: null,
      model: { type: 'BPE', vocab, merges: ['a \u2581', '\u2581 b'], byte_fallback: false, fuse_unk: false, ignore_merges: false },
    };
    expect(withBpeWordSplit(crossing)).toBe(crossing);
    // The whole text merges "a▁" first; pieces split before "▁" could only give "▁b".
    expect(ids(crossing, 'a b', false)).toEqual([3, 2]);
    expect(ids({ ...crossing, pre_tokenizer: withBpeWordSplit(tinyLlama)['pre_tokenizer'] }, 'a b', false)).toEqual([1, 4]);
  });

  it('leaves a tokenizer alone when it has a pre-tokenizer or per-word BPE options', () => {
    const withPreTokenizer = { ...tinyLlama, pre_tokenizer: { type: 'Whitespace' } };
    expect(withBpeWordSplit(withPreTokenizer)).toBe(withPreTokenizer);
    for (const option of [{ ignore_merges: true }, { dropout: 0.1 }, { end_of_word_suffix: '</w>' }, { continuing_subword_suffix: '##' }]) {
      const json = withModel(tinyLlama, option);
      expect(withBpeWordSplit(json)).toBe(json);
    }
  });
});
