/**
 * lm-eval's wikitext preprocessing (tasks/wikitext/preprocess_wikitext.py): the target scored is the raw page
 * with WikiText's tokenization spaces undone, while the word and byte counts that weight the perplexities are
 * taken from the raw page. The replacements run in lm-eval's order; several overlap, so the order matters.
 */

import { PYTHON_WHITESPACE_CLASS, pythonRegexSplitWhitespaceCount } from '../../text/python-text.js';

/** Python's `\s` (JavaScript's differs at U+001C–U+001F, U+0085 and U+FEFF). */
const S = PYTHON_WHITESPACE_CLASS;

/** Literal replacements and regex rewrites, in the order lm-eval applies them. */
const STEPS: readonly (readonly [string | RegExp, string])[] = [
  // contractions (the second is a regex that, as lm-eval writes it, only matches a literal "/' 5/")
  ["s '", "s'"],
  [/\/' [0-9]\//g, "/'[0-9]/"],
  // number separators
  [' @-@ ', '-'],
  [' @,@ ', ','],
  [' @.@ ', '.'],
  // punctuation
  [' : ', ': '],
  [' ; ', '; '],
  [' . ', '. '],
  [' ! ', '! '],
  [' ? ', '? '],
  [' , ', ', '],
  // spaces inside brackets and quotes (lazy, so nested pairs are handled innermost-first per match)
  [new RegExp(`\\(${S}*([^)]*?)${S}*\\)`, 'g'), '($1)'],
  [new RegExp(`\\[${S}*([^\\]]*?)${S}*\\]`, 'g'), '[$1]'],
  [new RegExp(`\\{${S}*([^}]*?)${S}*\\}`, 'g'), '{$1}'],
  [new RegExp(`"${S}*([^"]*?)${S}*"`, 'g'), '"$1"'],
  [new RegExp(`'${S}*([^']*?)${S}*'`, 'g'), "'$1'"],
  // headings and the rest
  ['= = = =', '===='],
  ['= = =', '==='],
  ['= =', '=='],
  [' \u00b0 ', '\u00b0'],
  [' \n', '\n'],
  ['\n ', '\n'],
  [' N ', ' 1 '],
  [" 's", "'s"],
];

export function wikitextDetokenize(page: string): string {
  let text = page;
  for (const [pattern, replacement] of STEPS) {
    text = typeof pattern === 'string' ? text.replaceAll(pattern, replacement) : text.replace(pattern, replacement);
  }
  return text;
}

/**
 * lm-eval's weights: `len(re.split(r"\s+", page))` words (so leading or trailing whitespace counts one empty
 * word each) and the page's UTF-8 byte length, both of the raw page.
 */
export function wikitextWeights(page: string): { readonly words: number; readonly bytes: number } {
  return { words: pythonRegexSplitWhitespaceCount(page), bytes: Buffer.byteLength(page, 'utf8') };
}
