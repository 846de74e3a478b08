/**
 * The two Python string operations whose exact semantics reach lm-eval's numbers. JavaScript's nearest
 * equivalents differ at the edges: `trim()` strips U+FEFF but not U+001C–U+001F or U+0085, and `.length`
 * counts UTF-16 code units where Python's `len` counts code points.
 */

/** The characters for which Python's `str.isspace()` is true. */
const PYTHON_WHITESPACE = new Set([
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  '\x1c',
  '\x1d',
  '\x1e',
  '\x1f',
  ' ',
  '\x85',
  '\xa0',
  '\u1680',
  '\u2000',
  '\u2001',
  '\u2002',
  '\u2003',
  '\u2004',
  '\u2005',
  '\u2006',
  '\u2007',
  '\u2008',
  '\u2009',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
]);

/** The number of UTF-16 units of trailing Python whitespace (lm-eval's `context.rstrip()`); all of it is in the BMP. */
export function trailingWhitespaceLength(text: string): number {
  let end = text.length;
  while (end > 0 && PYTHON_WHITESPACE.has(text[end - 1] ?? '')) end -= 1;
  return text.length - end;
}

/** Python's `str.strip()` with no arguments (used by MMLU's `{{question.strip()}}`). */
export function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PYTHON_WHITESPACE.has(text[start] ?? '')) start += 1;
  while (end > start && PYTHON_WHITESPACE.has(text[end - 1] ?? '')) end -= 1;
  return text.slice(start, end);
}

/** Python's `len(str)`: the number of code points (lm-eval's acc_norm divides by it). */
export function pythonLength(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    count += 1;
  }
  return count;
}

/** Python's `str.split()` with no arguments: split on runs of Python whitespace, no empty strings. */
export function pythonSplitWhitespace(text: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let index = 0; index <= text.length; index += 1) {
    const isSpace = index === text.length || PYTHON_WHITESPACE.has(text[index] ?? '');
    if (isSpace && start !== -1) {
      words.push(text.slice(start, index));
      start = -1;
    } else if (!isSpace && start === -1) {
      start = index;
    }
  }
  return words;
}

/** Python's `s[start:end]` on a str: indices count code points; negative ones count from the end. */
export function pythonSlice(text: string, start: number, end?: number): string {
  const codePoints = Array.from(text);
  return codePoints.slice(start, end).join('');
}

/** Python's `s.rstrip(chars)`: drops trailing characters that are in `chars` (each a single BMP character). */
export function pythonRstripChars(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1] ?? '')) end -= 1;
  return text.slice(0, end);
}

/** `s[0].lower() + s[1:]` (or `.upper()`): Python cases the first code point with the full Unicode mapping, as JS does. */
export function pythonRecaseFirst(text: string, to: 'lower' | 'upper'): string {
  if (text.length === 0) return text;
  const first = String.fromCodePoint(text.codePointAt(0) ?? 0);
  return (to === 'lower' ? first.toLowerCase() : first.toUpperCase()) + text.slice(first.length);
}

/** Python's `c.islower()` for one character: it is cased and lowercase (Unicode property Lowercase). */
export function pythonIsLowerChar(char: string): boolean {
  return /^\p{Lowercase}$/u.test(char);
}

/** Python's `str` ordering (`sorted`): by code point, where JS's default sort compares UTF-16 units. */
export function comparePythonStrings(a: string, b: string): number {
  const left = Array.from(a);
  const right = Array.from(b);
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const difference = (left[index]?.codePointAt(0) ?? 0) - (right[index]?.codePointAt(0) ?? 0);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

/**
 * Python's `s.capitalize()`: the first code point title-cased, the rest lower-cased (Python 3.8+). Title case
 * is upper case except for the characters Unicode gives a title form of their own: the Latin digraphs (ǆ → ǅ),
 * Georgian Mkhedruli (unchanged), Greek with iota subscript (ᾳ → ᾼ), and expansions whose later letters stay
 * lower (ß → Ss, ﬁ → Fi).
 */
export function pythonCapitalize(text: string): string {
  if (text.length === 0) return text;
  const first = String.fromCodePoint(text.codePointAt(0) ?? 0);
  return titlecaseCharacter(first) + text.slice(first.length).toLowerCase();
}

/** Latin digraphs: each of the three forms title-cases to the mixed one. */
const DIGRAPH_TITLECASE: Readonly<Record<number, number>> = {
  0x1c4: 0x1c5,
  0x1c5: 0x1c5,
  0x1c6: 0x1c5,
  0x1c7: 0x1c8,
  0x1c8: 0x1c8,
  0x1c9: 0x1c8,
  0x1ca: 0x1cb,
  0x1cb: 0x1cb,
  0x1cc: 0x1cb,
  0x1f1: 0x1f2,
  0x1f2: 0x1f2,
  0x1f3: 0x1f2,
};
const GREEK_CAPITAL_IOTA = 'Ι';
const COMBINING_YPOGEGRAMMENI = '\u0345';

function titlecaseCharacter(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const digraph = DIGRAPH_TITLECASE[code];
  if (digraph !== undefined) return String.fromCodePoint(digraph);
  // Georgian Mkhedruli letters are their own title case (upper case is Mtavruli).
  if (code >= 0x10d0 && code <= 0x10ff && code !== 0x10fb && code !== 0x10fc) return char;
  // Greek with iota subscript: the prosgegrammeni form (ᾀ → ᾈ, ᾳ → ᾼ), or the subscript kept as a combining mark.
  if (code >= 0x1f80 && code <= 0x1faf) return String.fromCodePoint(code | 0x8);
  if (code === 0x1fb3 || code === 0x1fc3 || code === 0x1ff3) return String.fromCodePoint(code + 9);
  if (code === 0x1fbc || code === 0x1fcc || code === 0x1ffc) return char;
  const upper = Array.from(char.toUpperCase());
  if (upper.length === 1) return upper[0] ?? char;
  if (code >= 0x1fb0 && code <= 0x1fff && upper[upper.length - 1] === GREEK_CAPITAL_IOTA) return upper.slice(0, -1).join('') + COMBINING_YPOGEGRAMMENI;
  // An expansion whose first letter is upper and the rest lower (ß → Ss, ﬃ → Ffi, և → Եւ), but ŉ → ʼN.
  if (code === 0x149) return upper.join('');
  return (upper[0] ?? '') + upper.slice(1).join('').toLowerCase();
}

/** A regex character class for Python's `\s` on str patterns (its `str.isspace()` set), unlike JavaScript's `\s`. */
export const PYTHON_WHITESPACE_CLASS = `[${[...PYTHON_WHITESPACE].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}]`;

/** `len(re.split(r"\s+", text))`: one more than the runs of Python whitespace, empty pieces at the ends included. */
export function pythonRegexSplitWhitespaceCount(text: string): number {
  let runs = 0;
  for (let index = 0; index < text.length; index += 1) {
    if (PYTHON_WHITESPACE.has(text[index] ?? '') && (index === 0 || !PYTHON_WHITESPACE.has(text[index - 1] ?? ''))) runs += 1;
  }
  return runs + 1;
}
