/**
 * The real English text the DRAM probes feed a model: Wikipedia paragraphs as excerpted in BoolQ, under CC BY-SA 3.0
 * (src/inspect/dram-text/SOURCE.md names the articles; scripts/edge/build_dram_text.py built the file). It ships
 * with the package (package.json "files"), since nothing is fetched at run time. The probes tokenize it with the
 * model's own tokenizer from a paragraph drawn at random for each measurement, wrapping around the end, so the
 * input is real text but not one fixed sequence of ids a graph could recognise.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MlrbError } from '../../errors.js';
import type { TextTokenizer } from '../../model/tokenizer.js';

/** src/inspect/dram-text/ from src/inspect/dram (tsx, tests) and from dist/inspect/dram alike: both sit three levels down. */
export const DRAM_TEXT_PATH: string = fileURLToPath(new URL('../../../src/inspect/dram-text/wikipedia-paragraphs.txt', import.meta.url));

/** What the report says about the text it measured on. */
export const DRAM_TEXT_SOURCE = {
  file: 'src/inspect/dram-text/wikipedia-paragraphs.txt',
  source: 'English Wikipedia paragraphs as excerpted in BoolQ (Clark et al., 2019), validation split',
  licence: 'CC BY-SA 3.0 (attribution: src/inspect/dram-text/SOURCE.md)',
} as const;

let paragraphs: readonly string[] | null = null;

/** The text's paragraphs, one per line, read once. */
export function dramTextParagraphs(): readonly string[] {
  paragraphs ??= readFileSync(DRAM_TEXT_PATH, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  return paragraphs;
}

/**
 * `count` token ids of the text, tokenized by `tokenizer` without special tokens, starting at paragraph
 * `firstParagraph` and wrapping around (again, for a tokenizer whose tokens are long enough to need it).
 */
export function dramTextIds(tokenizer: TextTokenizer, count: number, firstParagraph: number): number[] {
  const all = dramTextParagraphs();
  if (!Number.isInteger(firstParagraph) || firstParagraph < 0 || firstParagraph >= all.length) {
    throw new RangeError(`firstParagraph must be an integer in [0, ${all.length}), got ${firstParagraph}`);
  }
  const text = [...all.slice(firstParagraph), ...all.slice(0, firstParagraph)].join('\n');
  const ids: number[] = [];
  while (ids.length < count) {
    const round = tokenizer.encode(ids.length === 0 ? text : `\n${text}`);
    if (round.length === 0) {
      throw new MlrbError('BAD_TOKENIZER', `${tokenizer.path} turns the DRAM probe's text into no tokens`, { file: tokenizer.path });
    }
    ids.push(...round);
  }
  return ids.slice(0, count);
}
