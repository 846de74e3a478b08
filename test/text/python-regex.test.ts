/**
 * Python `re` patterns run with Python's meaning: every case is one where Python's re and JS's RegExp disagree
 * (or used to in lm-eval's gsm8k patterns), with re.findall / re.sub's results as CPython gave them
 * (test/fixtures/lm-eval/gsm8k-expectations.json, `regex`; scripts/lm_eval/record_gsm8k_expectations.py).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pythonFindall, pythonSub, translatePythonRegex } from '../../src/text/python-regex.js';
import { repoRoot } from '../support/shared-data.js';

interface RegexCase {
  readonly pattern: string;
  readonly input: string;
  readonly findall: readonly (string | readonly string[])[];
  readonly sub: string;
}

const recorded = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/lm-eval/gsm8k-expectations.json'), 'utf8')) as {
  readonly regex: readonly RegexCase[];
  readonly pythonSpaces: readonly number[];
};
const cases = recorded.regex;
/** Constructs translated only approximately are refused instead (\w needs Python's str.isalnum table). */
const REFUSED = new Set(['(?i)answer: (\\w)']);

describe('Python regex semantics in JS', () => {
  it.each(cases.filter((item) => !REFUSED.has(item.pattern)).map((item) => [item.pattern, JSON.stringify(item.input), item] as const))(
    '%s on %s: findall and sub as CPython',
    (_pattern, _input, item) => {
      const regex = translatePythonRegex(item.pattern);
      expect(pythonFindall(regex, item.input)).toEqual(item.findall);
      expect(pythonSub(regex, '<>', item.input)).toBe(item.sub);
    },
  );

  it("\\s and \\S match exactly the code points CPython's \\s does, in and out of a class", () => {
    const spaces = new Set(recorded.pythonSpaces);
    const [space, nonSpace, inClass, negatedClass] = ['\\s', '\\S', '[\\s]', '[^\\s]'].map((pattern) => {
      const regex = translatePythonRegex(pattern);
      return new RegExp(`^(?:${regex.source})$`, regex.flags);
    });
    for (let point = 0; point <= 0x10ffff; point += point < 0x3100 ? 1 : 0x101) {
      const char = String.fromCodePoint(point);
      const expected = spaces.has(point);
      if (space?.test(char) !== expected || nonSpace?.test(char) === expected || inClass?.test(char) !== expected || negatedClass?.test(char) === expected) {
        throw new Error(`U+${point.toString(16)}: Python's \\s says ${String(expected)}`);
      }
    }
    expect(recorded.pythonSpaces).toContain(0x1c);
    expect(recorded.pythonSpaces).not.toContain(0xfeff);
  });

  it('EXPECTED FAILURE – refuses constructs it cannot give Python meaning, naming the pattern', () => {
    for (const pattern of [...REFUSED, '\\bword', '(?x)a b', '(?i:a)b', '(?(1)a|b)', 'a\\']) {
      expect(() => translatePythonRegex(pattern), pattern).toThrow(RangeError);
    }
    expect(() => translatePythonRegex('\\w+')).toThrow(/"\\\\w\+".*\\w/);
  });
});
