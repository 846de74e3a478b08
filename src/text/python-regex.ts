/**
 * Python `re` patterns, as lm-eval's task YAMLs write them, run with Python's meaning in JavaScript.
 *
 * The two dialects share most syntax but not its meaning at the edges, and every difference can change a
 * filtered answer or an exact_match score:
 *   - inline global flags (`(?s)`, `(?i)`, `(?m)` at the start) are not JS syntax; they become JS flags or are
 *     folded into the translation below;
 *   - `$` without MULTILINE matches at the end and before a final "\n" in Python, only at the end in JS;
 *     with MULTILINE, Python's `^`/`$` see only "\n" as a line break, JS's also "\r", U+2028 and U+2029;
 *   - `.` excludes only "\n" in Python, also "\r", U+2028 and U+2029 in JS;
 *   - `\d` and `\s` are Unicode-aware in Python's str patterns (`\d` = category Nd; `\s` = str.isspace), ASCII
 *     or a different set in JS (`\d` then follows the JS engine's Unicode version, newer than CPython 3.11's 14.0,
 *     so digits of scripts added since match here and not there);
 *   - `\Z` and `\A`, `(?P<name>…)` and `(?P=name)` are spelled differently; `{` that starts no quantifier is a
 *     literal in Python and an error under JS's `u` flag; `[]…]` is a class holding "]" in Python, the empty
 *     class in JS;
 *   - identity escapes of punctuation (`\-`, `\,`) are fine in Python and errors under the `u` flag.
 * Patterns run with the `u` flag so positions advance by code point, as Python's do. A construct whose meaning
 * is not translated here (`\w`, `\b`, scoped flags, conditionals, the VERBOSE flag …) is refused with a
 * RangeError rather than run with JS's meaning.
 *
 * findall and sub also follow Python's rule for empty matches (3.7+): an empty match may follow a non-empty one
 * directly, and after an empty match the search resumes at the same place with empty matches excluded, where
 * JS's global iteration steps one position forward instead.
 */

/** A translated pattern: the JS source and flags, and how many capturing groups it has. */
export interface PythonRegex {
  /** The Python pattern as given (for messages). */
  readonly pattern: string;
  readonly source: string;
  readonly flags: string;
  readonly groupCount: number;
}

/** One match as Python's re.Match gives it: the whole match, its groups (undefined when a group did not take part), and where. */
export interface PythonMatch {
  readonly text: string;
  readonly groups: readonly (string | undefined)[];
  readonly index: number;
}

const SUPPORTED_FLAGS = new Set(['i', 'm', 's', 'u']);
/** Characters JS accepts after a backslash under the `u` flag, outside a class (its SyntaxCharacter set plus "/"). */
const JS_SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);
/** Python's str.isspace() set, as a class body (checked against Python in the tests). */
const PYTHON_SPACE_CLASS = '\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PYTHON_NON_SPACE = `[^${PYTHON_SPACE_CLASS}]`;
const END = '(?![\\s\\S])';
const START = '(?<![\\s\\S])';
const LETTER_ESCAPES: Readonly<Record<string, string>> = { n: '\\n', t: '\\t', r: '\\r', f: '\\f', v: '\\v', a: '\\x07' };

/** Translates a Python pattern; a construct it does not translate is a RangeError naming it. */
export function translatePythonRegex(pattern: string): PythonRegex {
  const { flags, rest } = leadingFlags(pattern);
  const translator = new Translator(pattern, rest, flags);
  const source = translator.translate();
  const jsFlags = `u${flags.has('i') ? 'i' : ''}`;
  // Compiling here turns a pattern JS cannot take into a RangeError naming the Python pattern.
  try {
    new RegExp(source, jsFlags);
  } catch (error: unknown) {
    throw new RangeError(`the Python pattern ${JSON.stringify(pattern)} has no JS translation (${error instanceof Error ? error.message : String(error)})`, {
      cause: error,
    });
  }
  return { pattern, source, flags: jsFlags, groupCount: translator.groupCount };
}

/** Python's re.finditer: every match, left to right, with Python's empty-match rule. */
export function pythonFinditer(regex: PythonRegex, text: string): PythonMatch[] {
  const any = new RegExp(regex.source, `${regex.flags}g`);
  const matches: PythonMatch[] = [];
  let position = 0;
  let previousWasEmpty = false;
  while (position <= text.length) {
    const match: PythonMatch | undefined = previousWasEmpty
      ? (nonEmptyMatchAt(regex, text, position) ?? searchFrom(any, text, nextCodePoint(text, position)))
      : searchFrom(any, text, position);
    if (match === undefined) break;
    matches.push(match);
    previousWasEmpty = match.text.length === 0;
    position = match.index + match.text.length;
  }
  return matches;
}

/**
 * Python's re.findall: each match's text when the pattern has no group, its group when it has one, a tuple of
 * its groups when it has several (a group that did not take part is "").
 */
export function pythonFindall(regex: PythonRegex, text: string): (string | string[])[] {
  return pythonFinditer(regex, text).map((match) => {
    if (regex.groupCount === 0) return match.text;
    const groups = match.groups.map((group) => group ?? '');
    return regex.groupCount === 1 ? (groups[0] ?? '') : groups;
  });
}

/** Python's re.sub(pattern, replacement, text) with a literal replacement (no group references). */
export function pythonSub(regex: PythonRegex, replacement: string, text: string): string {
  let result = '';
  let last = 0;
  for (const match of pythonFinditer(regex, text)) {
    result += text.slice(last, match.index) + replacement;
    last = match.index + match.text.length;
  }
  return result + text.slice(last);
}

function searchFrom(regex: RegExp, text: string, position: number): PythonMatch | undefined {
  if (position > text.length) return undefined;
  regex.lastIndex = position;
  const found = regex.exec(text);
  return found === null ? undefined : toMatch(found);
}

/**
 * A non-empty match starting exactly at `position`: the pattern, anchored there, must end past it, which the
 * lookbehind states as "more code points than `position` lie before the end" (`u` counts code points).
 */
function nonEmptyMatchAt(regex: PythonRegex, text: string, position: number): PythonMatch | undefined {
  const before = [...text.slice(0, position)].length;
  const anchored = new RegExp(`(?:${regex.source})(?<=[\\s\\S]{${before + 1}})`, `${regex.flags}y`);
  anchored.lastIndex = position;
  const found = anchored.exec(text);
  return found === null ? undefined : toMatch(found);
}

function toMatch(found: RegExpExecArray): PythonMatch {
  return { text: found[0], groups: found.slice(1), index: found.index };
}

function nextCodePoint(text: string, position: number): number {
  const code = text.codePointAt(position);
  return position + (code !== undefined && code > 0xffff ? 2 : 1);
}

function leadingFlags(pattern: string): { flags: Set<string>; rest: string } {
  const flags = new Set<string>();
  let rest = pattern;
  for (let found = /^\(\?([a-zA-Z]+)\)/.exec(rest); found !== null; found = /^\(\?([a-zA-Z]+)\)/.exec(rest)) {
    for (const flag of found[1] ?? '') {
      if (!SUPPORTED_FLAGS.has(flag)) throw new RangeError(`the Python pattern ${JSON.stringify(pattern)} sets the flag "${flag}", which is not supported`);
      flags.add(flag);
    }
    rest = rest.slice(found[0].length);
  }
  return { flags, rest };
}

class Translator {
  groupCount = 0;
  private position = 0;
  private output = '';

  constructor(
    private readonly pattern: string,
    private readonly body: string,
    private readonly flags: ReadonlySet<string>,
  ) {}

  translate(): string {
    while (this.position < this.body.length) this.step();
    return this.output;
  }

  private step(): void {
    const char = this.body[this.position] ?? '';
    this.position += 1;
    switch (char) {
      case '\\':
        this.output += this.escape(false);
        return;
      case '[':
        this.output += this.characterClass();
        return;
      case '(':
        this.output += this.groupOpening();
        return;
      case '.':
        this.output += this.flags.has('s') ? '[\\s\\S]' : '[^\\n]';
        return;
      case '^':
        this.output += this.flags.has('m') ? `(?:${START}|(?<=\\n))` : START;
        return;
      case '$':
        this.output += this.flags.has('m') ? `(?=\\n|${END})` : `(?=\\n?${END})`;
        return;
      case '{':
        this.output += this.brace();
        return;
      case '}':
      case ']':
        this.output += `\\${char}`;
        return;
      default:
        this.output += char;
    }
  }

  /** After "\\": the escape's JS form, inside a class when `inClass`. */
  private escape(inClass: boolean): string {
    const char = this.body[this.position] ?? '';
    if (char === '') this.refuse('a trailing backslash');
    this.position += 1;
    if (char === 'd') return '\\p{Nd}';
    if (char === 'D') return inClass ? this.refuse('\\D inside a class') : '\\P{Nd}';
    if (char === 's') return inClass ? PYTHON_SPACE_CLASS : `[${PYTHON_SPACE_CLASS}]`;
    if (char === 'S') return inClass ? this.refuse('\\S inside a class') : PYTHON_NON_SPACE;
    if (!inClass && char === 'A') return START;
    if (!inClass && char === 'Z') return END;
    const letter = LETTER_ESCAPES[char];
    if (letter !== undefined) return letter;
    if (char === 'x') return `\\x${this.take(/^[0-9a-fA-F]{2}/, '\\x')}`;
    if (char === 'u') return `\\u${this.take(/^[0-9a-fA-F]{4}/, '\\u')}`;
    if (/[1-9]/.test(char) && !inClass) return `\\${char}${this.take(/^[0-9]?/, 'a group reference')}`;
    if (/[a-zA-Z0-9]/.test(char)) return this.refuse(`the escape \\${char}`);
    // Punctuation (and anything else non-alphanumeric) stands for itself in Python.
    if (JS_SYNTAX.has(char) || (inClass && char === '-')) return `\\${char}`;
    return char;
  }

  /** After "[": a class with Python's reading of a leading "]" and of its escapes. */
  private characterClass(): string {
    let output = '[';
    if (this.body[this.position] === '^') {
      output += '^';
      this.position += 1;
    }
    let first = true;
    for (;;) {
      const char = this.body[this.position];
      if (char === undefined) return this.refuse('an unterminated character class');
      this.position += 1;
      if (char === ']' && !first) return `${output}]`;
      first = false;
      if (char === '\\') output += this.escape(true);
      else if (char === ']' || char === '[') output += `\\${char}`;
      else output += char;
    }
  }

  /** After "(": the JS opening of the group, counting capturing groups. */
  private groupOpening(): string {
    if (this.body[this.position] !== '?') {
      this.groupCount += 1;
      return '(';
    }
    const rest = this.body.slice(this.position + 1);
    for (const kept of [':', '=', '!', '<=', '<!']) {
      if (rest.startsWith(kept)) {
        this.position += 1 + kept.length;
        return `(?${kept}`;
      }
    }
    const named = /^P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
    if (named !== null) {
      this.position += 1 + named[0].length;
      this.groupCount += 1;
      return `(?<${named[1] ?? ''}>`;
    }
    const reference = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
    if (reference !== null) {
      this.position += 1 + reference[0].length;
      return `\\k<${reference[1] ?? ''}>`;
    }
    const comment = /^#[^)]*\)/.exec(rest);
    if (comment !== null) {
      this.position += 1 + comment[0].length;
      return '';
    }
    return this.refuse(`the group "(?${rest.slice(0, 3)}"`);
  }

  /** After "{": a quantifier when Python reads one (`{m}`, `{m,}`, `{,n}`, `{m,n}`), else a literal brace. */
  private brace(): string {
    const quantifier = /^(\d*)(,?)(\d*)\}/.exec(this.body.slice(this.position));
    if (quantifier === null || (quantifier[1] === '' && quantifier[3] === '')) return '\\{';
    this.position += quantifier[0].length;
    const [, low = '', comma = '', high = ''] = quantifier;
    return `{${low === '' ? '0' : low}${comma}${high}}`;
  }

  private take(shape: RegExp, what: string): string {
    const found = shape.exec(this.body.slice(this.position));
    if (found === null) return this.refuse(`a malformed ${what} escape`);
    this.position += found[0].length;
    return found[0];
  }

  private refuse(what: string): never {
    throw new RangeError(`the Python pattern ${JSON.stringify(this.pattern)} uses ${what}, which has no exact JS translation here`);
  }
}
