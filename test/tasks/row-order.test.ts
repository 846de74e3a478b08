/**
 * Rows keep the data's key order through their schema (lm-eval's document is the row as `datasets` read it,
 * and a logged sample's doc_hash is over its JSON), and a hostile key cannot reach a prototype.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseJsonLines } from '../../src/tasks/jsonl.js';

const schema = z.looseObject({ Context1: z.string(), Target1: z.string(), label: z.string().transform((value) => Number(value)) });

describe("parsed rows in the data's key order", () => {
  it("keeps the file's order of keys, named by the schema or not, with the schema's values", () => {
    const [parsed] = parseJsonLines('{"Domain": "x", "label": "1", "Context1": "c", "extra": [1], "Target1": "t"}\n', 'rows.jsonl', schema);
    expect(Object.keys(parsed?.row ?? {})).toEqual(['Domain', 'label', 'Context1', 'extra', 'Target1']);
    expect(parsed?.row.label).toBe(1); // the schema's transform, in the file's place
  });

  it('HOSTILE – a "__proto__" key never becomes the prototype (zod drops the field)', () => {
    const [parsed] = parseJsonLines('{"__proto__": {"polluted": true}, "Context1": "c", "Target1": "t", "label": "0"}\n', 'rows.jsonl', schema);
    const row = parsed?.row as Record<string, unknown>;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect((row as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(row)).toBe('{"Context1":"c","Target1":"t","label":0}');
  });
});
