/**
 * Typed reads of one config.json field at a time, for the parameter formulas. transformers tells an absent
 * field (the config class's default) from an explicit null (often "derive it", e.g. num_key_value_heads),
 * and the two can differ (Mistral: absent means 8 KV heads, null means one per head), so both are spelled
 * out by the caller. Every failure names the file and the field.
 */
import { MlrbError } from '../errors.js';

/** A key or its aliases, first present wins (GPT-2 writes n_embd where others write hidden_size). */
export type FieldKeys = string | readonly string[];

export class ConfigFields {
  constructor(readonly raw: Readonly<Record<string, unknown>>, readonly file: string) {}

  private find(keys: FieldKeys): { key: string; value: unknown } | null {
    for (const key of typeof keys === 'string' ? [keys] : keys) {
      if (Object.hasOwn(this.raw, key)) return { key, value: this.raw[key] };
    }
    return null;
  }

  private fail(keys: FieldKeys, problem: string): MlrbError {
    const field = typeof keys === 'string' ? keys : keys.join(' / ');
    return new MlrbError('BAD_DATA', `${this.file}: ${field} ${problem}`, { file: this.file, field });
  }

  private positiveInteger(key: string, value: unknown): number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw this.fail(key, `must be a positive integer, got ${JSON.stringify(value)}`);
    }
    return value;
  }

  /** A size the formula cannot do without: the class defaults (Llama's 4096 hidden …) are never meant for a real model. */
  size(keys: FieldKeys): number {
    const found = this.find(keys);
    if (found === null || found.value === null) throw this.fail(keys, 'is not stated, and the parameter count needs it');
    return this.positiveInteger(found.key, found.value);
  }

  /** A size with the config class's fallbacks: `ifAbsent` when the key is missing, `ifNull` when it is null. */
  sizeOr(keys: FieldKeys, ifAbsent: number, ifNull: number = ifAbsent): number {
    const found = this.find(keys);
    if (found === null) return ifAbsent;
    if (found.value === null) return ifNull;
    return this.positiveInteger(found.key, found.value);
  }

  /** A switch such as tie_word_embeddings or attention_bias; absent or null means the config class's default. */
  flag(key: string, ifAbsent: boolean): boolean {
    const found = this.find(key);
    if (found === null || found.value === null) return ifAbsent;
    if (typeof found.value !== 'boolean') throw this.fail(key, `must be true or false, got ${JSON.stringify(found.value)}`);
    return found.value;
  }
}
