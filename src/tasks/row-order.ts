/**
 * A parsed row with the keys in the order the data has them. zod's object schemas put the keys they name first
 * and the rest after, while lm-eval's document is the row as `datasets` read it (the file's or the parquet
 * schema's column order), and a logged sample's doc_hash is taken over that document's JSON, key order included.
 */
export function inRowOrder<Parsed>(parsed: Parsed, raw: unknown): Parsed {
  if (!isPlainObject(parsed) || !isPlainObject(raw)) return parsed;
  const ordered: Record<string, unknown> = {};
  // defineProperty, not assignment: a data row may name a key `__proto__`, which assignment would take as the prototype.
  const put = (key: string): void => void Object.defineProperty(ordered, key, { value: parsed[key], enumerable: true, writable: true, configurable: true });
  for (const key of Object.keys(raw)) if (Object.hasOwn(parsed, key)) put(key);
  for (const key of Object.keys(parsed)) if (!Object.hasOwn(ordered, key)) put(key);
  return ordered as Parsed;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}
