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

const cases = (JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/lm-eval/gsm8k-expectations.json'), 'utf8')) as { readonly regex: readonly RegexCase[] }).regex;
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

  it('EXPECTED FAILURE – refuses constructs it cannot give Python meaning, naming the pattern', () => {
    for (const pattern of [...REFUSED, '\\bword', '(?x)a b', '(?i:a)b', '(?(1)a|b)', 'a\\']) {
      expect(() => translatePythonRegex(pattern), pattern).toThrow(RangeError);
    }
    expect(() => translatePythonRegex('\\w+')).toThrow(/"\\\\w\+".*\\w/);
  });
});
