/**
 * WSC as lm-eval's `wsc` task reads it: the Hugging Face `wsc.fixed` rows (the builder's span-text fix) and
 * lm-eval's default_doc_to_text (the pronoun marked *…* by word position, then general_detokenize).
 */
import { pythonIsLowerChar, pythonLength, pythonRecaseFirst, pythonRstripChars, pythonSlice, pythonSplitWhitespace } from '../../text/python-text.js';

export interface WscDoc {
  readonly [field: string]: unknown;
  readonly text: string;
  readonly span1_index: number;
  readonly span2_index: number;
  readonly span1_text: string;
  readonly span2_text: string;
  readonly idx: number;
  readonly label: number;
}

/** Spans the builder leaves as they are, since no casing fix can make them substrings. */
const UNFIXABLE_SPANS = new Set(['Kamenev and Zinoviev', 'Kamenev, Zinoviev, and Stalin']);

/**
 * The `wsc.fixed` builder's `_fix_wst`: a span text that is not in the passage gets the case of the passage's
 * word at the span index, loses trailing periods and has newlines turned to spaces. One quirk is kept: a span
 * containing "theyscold" moves span2_index to 10 (its text replacement is discarded in the original).
 * Returns an error message where the builder's assertion would fail.
 */
export function fixWscSpans(doc: WscDoc): WscDoc | string {
  let fixed: WscDoc = doc;
  for (const span of ['span1', 'span2'] as const) {
    const text = fixed[`${span}_text`];
    const index = fixed[`${span}_index`];
    if (fixed.text.includes(text) || UNFIXABLE_SPANS.has(text)) continue;
    if (text.includes('theyscold')) fixed = { ...fixed, span2_index: 10 };
    const word = pythonSplitWhitespace(fixed.text)[index];
    if (word === undefined) return `${span}_index ${index} is past the last word of the text`;
    const firstChar = String.fromCodePoint(word.codePointAt(0) ?? 0);
    const recased = pythonRecaseFirst(text, pythonIsLowerChar(firstChar) ? 'lower' : 'upper');
    const spanText = pythonRstripChars(recased, '.').replaceAll('\n', ' ');
    if (!fixed.text.includes(spanText)) return `${span}_text ${JSON.stringify(text)} is not in the text, even as ${JSON.stringify(spanText)}`;
    fixed = { ...fixed, [`${span}_text`]: spanText };
  }
  return fixed;
}

/** lm_eval.utils.general_detokenize. */
export function generalDetokenize(text: string): string {
  return text
    .replaceAll(" n't", "n't")
    .replaceAll(' )', ')')
    .replaceAll('( ', '(')
    .replaceAll('" ', '"')
    .replaceAll(' "', '"')
    .replace(/ (['.,])/g, '$1');
}

/** preprocess_wsc.default_doc_to_text: span indices count words, lengths count code points. */
export function wscDocToText(doc: WscDoc): string {
  const pre = pythonSplitWhitespace(doc.text).slice(0, doc.span2_index).join(' ');
  const post = pythonSlice(doc.text, pythonLength(pre) + pythonLength(doc.span2_text) + 1);
  const passage = generalDetokenize(`${pre} *${doc.span2_text}*${post}`);
  return `Passage: ${passage}\nQuestion: In the passage above, does the pronoun "*${doc.span2_text}*" refer to "*${doc.span1_text}*"?\nAnswer:`;
}
