/**
 * The incremental text of a generation (IncrementalDetokenizer, GeneratedText) against brute force on real
 * tokenizers (GPT-2's, stories260K's): after every push the text equals decoding the whole id list, a stop string
 * is found where a search of the whole decoded text finds it, and the ids end at the shortest prefix whose whole
 * decode holds a stop string.
 * Id sequences mix encoded text with multi-byte characters (accents, CJK, emoji: split across byte-level BPE
 * tokens, or byte-fallback <0x..> tokens in a 512-id SentencePiece vocabulary) with uniformly random ids, special
 * tokens included. A model of the Rust tokenizers' decoder, whose byte-fallback runs decode all or nothing (a
 * later byte can turn settled characters into U+FFFDs), covers the re-decode the JS tokenizer never needs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GeneratedText } from '../../src/generate/generated-text.js';
import { IncrementalDetokenizer } from '../../src/generate/incremental-detokenizer.js';
import { loadTokenizer, type TextTokenizer } from '../../src/model/tokenizer.js';
import { GENERATE_FIXTURES } from '../support/generation-fixtures.js';
import { seededRandom } from '../support/random-requests.js';
import { hasShared, sharedDir } from '../support/shared-data.js';

const TEXTS = [
  'Once upon a time, there was a little girl named Lily. She didn\'t like the rain; "why?" she asked.',
  'Café naïve — résumé… 3.14 ≠ π; ½ + ¼ = ¾.',
  '日本語のテキストと中文字符，混在する文章。한국어도 있습니다.',
  'Emoji: 😀🎉👩‍👩‍👧 and flags 🇫🇷🇯🇵, then text again.',
  "Question: what is 12 * 7?\nAnswer: 84\n\nQuestion: and  double  spaces , or ' quotes .",
];

interface TokenizerCase {
  readonly name: string;
  readonly file: string;
  readonly shared: boolean;
}

const TOKENIZERS: TokenizerCase[] = [
  // stories260K's, copied into the fixtures: SentencePiece-style "▁" spaces, byte fallback, 512 ids.
  { name: 'the Llama tokenizer of stories260K', file: path.join(GENERATE_FIXTURES, 'tokenizer.json'), shared: false },
  { name: 'tiny-random-gpt2 (byte-level BPE, clean-up on)', file: path.join(sharedDir, 'models', 'tiny-random-gpt2-past', 'tokenizer.json'), shared: true },
];

/** Ids the tokenizer file defines: its model's vocabulary and its added tokens. */
function vocabSize(file: string): number {
  const json = JSON.parse(readFileSync(file, 'utf8')) as { model: { vocab: Record<string, number> }; added_tokens: { id: number }[] };
  return Math.max(...Object.values(json.model.vocab), ...json.added_tokens.map((token) => token.id)) + 1;
}

/** Id sequences: texts encoded, random ids, and spliced mixes of both, deterministic per seed. */
function idSequences(tokenizer: TextTokenizer, size: number, seed: number): number[][] {
  const random = seededRandom(seed);
  const randomIds = (count: number): number[] => Array.from({ length: count }, () => Math.floor(random() * size));
  const encoded = TEXTS.map((text) => tokenizer.encode(text));
  const sequences = [...encoded, encoded.flat(), randomIds(300)];
  for (let index = 0; index < 12; index += 1) {
    const mixed: number[] = [];
    while (mixed.length < 200) {
      const source = encoded[Math.floor(random() * encoded.length)]!;
      const start = Math.floor(random() * source.length);
      mixed.push(...source.slice(start, start + 1 + Math.floor(random() * 12)), ...randomIds(Math.floor(random() * 4)));
    }
    sequences.push(mixed);
  }
  return sequences;
}

/** Chunk lengths 1–8, as native calls of up to 8 passes hand ids over. */
function chunks(ids: readonly number[], random: () => number): number[][] {
  const out: number[][] = [];
  for (let at = 0; at < ids.length; ) {
    const length = 1 + Math.floor(random() * 8);
    out.push(ids.slice(at, at + length));
    at += length;
  }
  return out;
}

for (const { name, file, shared } of TOKENIZERS) {
  describe.skipIf(shared && !hasShared)(`generation text on ${name}`, () => {
    const tokenizer = shared && !hasShared ? undefined : loadTokenizer(file);
    const size = shared && !hasShared ? 0 : vocabSize(file);
    const decode = (ids: readonly number[]): string => (ids.length === 0 ? '' : tokenizer!.decode(ids, { skipSpecialTokens: true }));

    it("decodes incrementally to exactly the whole list's decode after every push", () => {
      const random = seededRandom(11);
      for (const ids of idSequences(tokenizer!, size, 5)) {
        const detokenizer = new IncrementalDetokenizer(decode);
        let before = '';
        for (const chunk of chunks(ids, random)) {
          const changedFrom = detokenizer.push(chunk);
          const text = decode(detokenizer.ids);
          expect(detokenizer.text).toBe(text);
          expect(text.slice(0, changedFrom)).toBe(before.slice(0, changedFrom));
          const start = Math.floor(random() * (text.length + 2));
          expect(detokenizer.textFrom(start)).toBe(text.slice(start));
          before = text;
        }
        expect(detokenizer.ids).toEqual(ids);
      }
    });

    it('decodes a long natural generation in linear work', () => {
      const ids = tokenizer!.encode(TEXTS.join(' ').repeat(20));
      expect(ids.length).toBeGreaterThan(1500);
      let decodedIds = 0;
      const detokenizer = new IncrementalDetokenizer((window) => {
        decodedIds += window.length;
        return decode(window);
      });
      for (const id of ids) detokenizer.push([id]);
      expect(detokenizer.text).toBe(decode(ids));
      // Whole-list decodes would cost ids.length² / 2 (over a million here).
      expect(decodedIds).toBeLessThan(30 * ids.length);
    });

    it('ends at the token that completes the first stop string and cuts the text before the earliest', () => {
      const random = seededRandom(23);
      let stopped = 0;
      for (const ids of idSequences(tokenizer!, size, 7)) {
        const whole = decode(ids);
        // Stops cut from the text itself (so most are met, some across chunks), plus one that never occurs.
        const pick = (length: number): string => {
          const start = Math.floor(random() * Math.max(1, whole.length - length));
          return whole.slice(start, start + length);
        };
        const stopStrings = [pick(1 + Math.floor(random() * 6)), pick(2), '', '\u0000never\u0000'];
        // Brute force: the shortest prefix whose whole decode holds a stop string; that text cut at the earliest.
        const holdsStop = (text: string): boolean => stopStrings.some((stop) => stop !== '' && text.includes(stop));
        const ends = ids.findIndex((_, k) => holdsStop(decode(ids.slice(0, k + 1))));
        const expectedIds = ends < 0 ? ids : ids.slice(0, ends + 1);
        const expectedText = decode(expectedIds);
        const occurrences = stopStrings.filter((stop) => stop !== '').map((stop) => expectedText.indexOf(stop));
        const cut = Math.min(expectedText.length, ...occurrences.filter((at) => at >= 0));

        const generated = new GeneratedText(decode, stopStrings);
        let taken = 0;
        for (const chunk of chunks(ids, random)) taken += generated.append(chunk);
        expect([...generated.ids]).toEqual(expectedIds);
        expect(taken).toBe(expectedIds.length);
        expect(generated.stopped).toBe(ends >= 0);
        expect(generated.text).toBe(expectedText.slice(0, cut));
        if (ends >= 0) stopped += 1;
      }
      expect(stopped).toBeGreaterThan(5);
    });
  });
}

/**
 * Rust tokenizers' SentencePiece decoding: "▁" is a space, runs of <0xNN> tokens decode as a whole (one U+FFFD per
 * byte token when the run is not valid UTF-8), the first leading space is stripped.
 */
function allOrNothingDecode(vocabulary: readonly string[]): (ids: readonly number[]) => string {
  const strict = new TextDecoder('utf-8', { fatal: true });
  return (ids) => {
    let text = '';
    let run: number[] = [];
    const flush = (): void => {
      if (run.length === 0) return;
      try {
        text += strict.decode(Uint8Array.from(run));
      } catch {
        text += '\uFFFD'.repeat(run.length);
      }
      run = [];
    };
    for (const id of ids) {
      const token = vocabulary[id]!;
      const byte = /^<0x([0-9A-F]{2})>$/.exec(token);
      if (byte !== null) {
        run.push(Number.parseInt(byte[1]!, 16));
        continue;
      }
      flush();
      text += token.replaceAll('\u2581', ' ');
    }
    flush();
    return text.startsWith(' ') ? text.slice(1) : text;
  };
}

describe('generation text on a decoder whose byte runs decode all or nothing', () => {
  const words = ['\u2581the', '\u2581a', 'b', 'é', '\u2581', '\u2581Question:', '\n', '€'];
  const vocabulary = [...words, ...Array.from({ length: 256 }, (_, byte) => `<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`)];
  const decode = allOrNothingDecode(vocabulary);
  const utf8Bytes = (text: string): number[] => [...new TextEncoder().encode(text)].map((byte) => words.length + byte);

  it("decodes incrementally to exactly the whole list's decode after every push", () => {
    const random = seededRandom(31);
    for (let sequence = 0; sequence < 40; sequence += 1) {
      const ids: number[] = [];
      while (ids.length < 120) {
        const pick = random();
        // Words, valid characters as byte runs, and stray bytes that invalidate a run already settled.
        if (pick < 0.4) ids.push(Math.floor(random() * words.length));
        else if (pick < 0.8) ids.push(...utf8Bytes(['A', 'é', '€', '😀', '日本'][Math.floor(random() * 5)]!));
        else ids.push(words.length + Math.floor(random() * 256));
      }
      const detokenizer = new IncrementalDetokenizer(decode);
      for (const chunk of chunks(ids, random)) {
        detokenizer.push(chunk);
        expect(detokenizer.text).toBe(decode(detokenizer.ids));
      }
    }
  });
});
