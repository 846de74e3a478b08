import { describe, expect, it } from 'vitest';
import { CsvSyntaxError, parseCsv } from '../../src/tasks/csv.js';
import { pythonLength, pythonStrip } from '../../src/text/python-text.js';

const fieldsOf = (text: string): string[][] => parseCsv(text).map((record) => [...record.fields]);

describe('parseCsv', () => {
  it('splits plain records and ignores one trailing line break', () => {
    expect(fieldsOf('a,b,c\n1,2,3\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
    ]);
    expect(fieldsOf('a,b')).toEqual([['a', 'b']]);
  });

  it('keeps commas, doubled quotes and line breaks inside quoted fields', () => {
    const text = '"x, y","say ""hi""","line1\nline2\r\nline3"\n';
    expect(fieldsOf(text)).toEqual([['x, y', 'say "hi"', 'line1\nline2\r\nline3']]);
  });

  it('accepts CRLF, LF and lone CR as record separators', () => {
    expect(fieldsOf('a\r\nb\nc\rd')).toEqual([['a'], ['b'], ['c'], ['d']]);
  });

  it('keeps empty fields, including a trailing one and an empty quoted one', () => {
    expect(fieldsOf(',a,,\n"",b')).toEqual([
      ['', 'a', '', ''],
      ['', 'b'],
    ]);
    expect(fieldsOf('a,')).toEqual([['a', '']]);
  });

  it('reads a blank line as one empty field', () => {
    expect(fieldsOf('a\n\nb\n')).toEqual([['a'], [''], ['b']]);
  });

  it('reports the 1-based line where each record starts, counting quoted line breaks', () => {
    const records = parseCsv('h1,h2\n"multi\nline\r\nfield",x\nlast,row\r\n');
    expect(records.map((record) => record.line)).toEqual([1, 2, 5]);
  });

  it('keeps leading and trailing spaces (only Python-side strip() may remove them)', () => {
    expect(fieldsOf(' a , b ')).toEqual([[' a ', ' b ']]);
  });

  it('EXPECTED FAILURE – an unterminated quote names the line it opened on', () => {
    const parse = (): unknown => parseCsv('ok,row\nbad,"never\nclosed\n');
    expect(parse).toThrow(CsvSyntaxError);
    expect(parse).toThrow(/line 2/);
  });

  it('EXPECTED FAILURE – a stray quote in an unquoted field, or text after a closing quote', () => {
    expect(() => parseCsv('a,b\nc,d"e\n')).toThrow(/line 2.*quote inside an unquoted field/);
    expect(() => parseCsv('"a"b,c')).toThrow(/line 1.*after a closing quote/);
  });
});

describe('Python string semantics', () => {
  it('strip() removes exactly Python whitespace', () => {
    expect(pythonStrip(' \t\n\x1c question \x85\u3000')).toBe('question');
    // U+FEFF is not whitespace to Python, though String#trim removes it.
    expect(pythonStrip('\uFEFFq ')).toBe('\uFEFFq');
    expect(pythonStrip('   ')).toBe('');
  });

  it('len() counts code points, not UTF-16 units', () => {
    expect(pythonLength('abc')).toBe(3);
    expect(pythonLength('😀😀')).toBe(2);
    expect(pythonLength('')).toBe(0);
  });
});
