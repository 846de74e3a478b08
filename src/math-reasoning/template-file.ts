/** A prompt template from a file (`--template FILE`): UTF-8 text under the data policy, at most 1 MiB. */
import path from 'node:path';
import { readTextFileUnder } from '../io/text-file.js';

const MAX_TEMPLATE_BYTES = 1024 * 1024;

export function readPromptTemplateFile(file: string): string {
  const resolved = path.resolve(file);
  return readTextFileUnder(resolved, { kind: 'data', root: path.dirname(resolved), what: 'prompt template', maxBytes: MAX_TEMPLATE_BYTES });
}
