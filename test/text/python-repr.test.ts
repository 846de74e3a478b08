/**
 * Python's str() of floats and booleans (src/text/python-repr.ts) against CPython's own, recorded by
 * scripts/lm_eval/record_float_repr.py: the spelling lm-eval's sanitize_list gives the responses in a samples file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pythonFloatRepr, sanitizeList } from '../../src/text/python-repr.js';
import { repoRoot } from '../support/shared-data.js';

type Case = { readonly hex: string; readonly str: string } | { readonly bool: boolean; readonly str: string };
const { cases } = JSON.parse(readFileSync(path.join(repoRoot, 'test', 'fixtures', 'lm-eval', 'python-float-repr.json'), 'utf8')) as { cases: Case[] };

/** float.fromhex for float.hex()'s spelling (`-0x1.8000000000000p+3`), and Python's str of the non-finite ones. */
function fromHex(text: string): number {
  if (text === 'inf') return Infinity;
  if (text === '-inf') return -Infinity;
  if (text === 'nan') return Number.NaN;
  const match = /^(-?)0x([01])\.([0-9a-f]+)p([+-]\d+)$/.exec(text);
  if (match === null) throw new Error(`not a float.hex() spelling: ${text}`);
  const [, sign = '', whole = '0', fraction = '', exponent = '0'] = match;
  const magnitude = Number(BigInt(`0x${whole}${fraction}`)) * 2 ** (Number(exponent) - 4 * fraction.length);
  return sign === '-' ? -magnitude : magnitude;
}

describe('pythonFloatRepr', () => {
  it.each(cases.filter((item): item is Extract<Case, { hex: string }> => 'hex' in item))('$hex is $str', ({ hex, str }) => {
    expect(pythonFloatRepr(fromHex(hex))).toBe(str);
  });
});

describe('sanitizeList', () => {
  it("spells booleans as Python's str does and keeps the nesting of lists", () => {
    const spelled = Object.fromEntries(
      cases.filter((item): item is Extract<Case, { bool: boolean }> => 'bool' in item).map((item) => [String(item.bool), item.str]),
    );
    expect(sanitizeList([[-1.5, true]])).toEqual([['-1.5', spelled['true']]]);
    expect(sanitizeList([[[-2, false]], [['text']]])).toEqual([[['-2.0', spelled['false']]], [['text']]]);
  });

  it('BAD CALL – refuses a value Python would not print the same way (an object)', () => {
    expect(() => sanitizeList([{}])).toThrow(TypeError);
  });
});
