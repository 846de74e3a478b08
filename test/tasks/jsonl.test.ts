/**
 * parseJsonLines finds lines by scanning; the reference is the plain definition it must match: split at /\r?\n/,
 * skip lines that trim() to nothing, number lines from 1.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { parseJsonLines, parseLeadingJsonLines } from '../../src/tasks/jsonl.js';

const schema = z.object({ n: z.number() });

function reference(content: string): { row: { n: number }; line: number }[] {
  return content
    .split(/\r?\n/)
    .map((text, index) => ({ text, line: index + 1 }))
    .filter(({ text }) => text.trim() !== '')
    .map(({ text, line }) => ({ row: schema.parse(JSON.parse(text)), line }));
}

const CONTENTS = [
  '{"n":1}\n{"n":2}\n',
  '{"n":1}\r\n\r\n{"n":2}\r\n',
  '\n\n  \n\t\n{"n":1}\n \u00a0\u2028\n{"n":2}',
  '{"n":1}\r',
  ' {"n":1}\n\t{"n":2} \r\n{"n":3}\n',
  '',
  '\r\n',
];

describe('parseJsonLines', () => {
  it.each(CONTENTS)('finds the same rows on the same lines as split and trim: %j', (content) => {
    expect(parseJsonLines(content, 'f.jsonl', schema)).toEqual(reference(content));
  });

  it('counts every non-blank line but parses only those a limit takes', () => {
    const content = '{"n":1}\n\n{"n":2}\nnot json\n{"n":4}\n';
    expect(parseLeadingJsonLines(content, 'f.jsonl', schema, 2)).toEqual({
      rows: [
        { row: { n: 1 }, line: 1 },
        { row: { n: 2 }, line: 3 },
      ],
      total: 4,
    });
    expect(() => parseLeadingJsonLines(content, 'f.jsonl', schema, 3)).toThrow(/f\.jsonl line 4: not valid JSON/);
  });
});
