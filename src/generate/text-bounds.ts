/**
 * How long a prompt and a generated text may be. Both come from hostile hands: prompts from a file or a data row,
 * generated text from a tokenizer.json whose decoder may expand one token into megabytes. Past these lengths the
 * libraries that handle them fail deep inside (a RangeError at V8's longest string, or the tokenizer's recursion
 * exhausted by one long word) or take minutes, so both are refused first, as the data's fault (BAD_DATA).
 *   - A prompt holds at most as much as one data row (1 MiB characters: some 250,000 tokens of English, more than
 *     the longest context in use).
 *   - A generation's text holds at most 4 MiB characters: 128 per token at 32,768 new tokens, where a real token
 *     decodes to a few.
 */
import { MlrbError } from '../errors.js';
import { DATA_ROW_CAP_CHARS } from '../io/file-policy.js';

export const PROMPT_CAP_CHARS = DATA_ROW_CAP_CHARS;
export const GENERATED_TEXT_CAP_CHARS = 4 * 1024 * 1024;

/** Throws BAD_DATA when `text` is longer than a prompt may be; `where` names it ("prompt 3", "FILE line 7"). */
export function checkPromptLength(text: string, where: string, details: Readonly<Record<string, unknown>>): void {
  if (text.length <= PROMPT_CAP_CHARS) return;
  throw new MlrbError('BAD_DATA', `${where} has ${count(text.length)} characters, over the limit of ${count(PROMPT_CAP_CHARS)} for one prompt`, {
    ...details,
    characters: text.length,
    limit: PROMPT_CAP_CHARS,
  });
}

/** The error for a generation whose decoded text passed GENERATED_TEXT_CAP_CHARS; `where` names the prompt. */
export function generatedTextTooLong(where: string, characters: number): MlrbError {
  return new MlrbError(
    'BAD_DATA',
    `the text generated for ${where} has ${count(characters)} characters after its ids are decoded, over the limit of ` +
      `${count(GENERATED_TEXT_CAP_CHARS)}: the tokenizer's decoder expands tokens far beyond any real vocabulary's`,
    { characters, limit: GENERATED_TEXT_CAP_CHARS },
  );
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
