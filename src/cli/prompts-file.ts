/**
 * Prompts for `mlrb-eval generate --prompts-file`: a .txt file holds one prompt per line (blank lines skipped);
 * a .jsonl file one JSON value per line (read by the bounded parser), a string or an object with a string `prompt`.
 * A line that is neither, or longer than a prompt may be (text-bounds.ts), is BAD_DATA naming the file and line,
 * without quoting it.
 */
import path from 'node:path';
import { MlrbError } from '../errors.js';
import { checkPromptLength } from '../generate/text-bounds.js';
import { describeJsonProblem, parseBoundedJson } from '../io/bounded-json.js';
import { readTextFileUnder } from '../io/text-file.js';

function promptFromJsonLine(line: string, file: string, lineNumber: number): string {
  const value = parseBoundedJson(
    line,
    (problem, cause) =>
      new MlrbError(
        'BAD_DATA',
        `${file} line ${lineNumber} ${describeJsonProblem(problem)}`,
        { file, line: lineNumber },
        cause === undefined ? undefined : { cause },
      ),
  );
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'prompt' in value && typeof value.prompt === 'string') return value.prompt;
  throw new MlrbError('BAD_DATA', `${file} line ${lineNumber} is neither a JSON string nor an object with a string "prompt"`, { file, line: lineNumber });
}

export function readPromptsFile(file: string): string[] {
  const resolved = path.resolve(file);
  const text = readTextFileUnder(resolved, { kind: 'data', root: path.dirname(resolved), what: 'the prompts file' });
  const lines = text.split(/\r\n|\n|\r/);
  const jsonLines = resolved.endsWith('.jsonl');
  const prompts: string[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    // Before JSON.parse and the tokenizer see it: a line of megabytes is refused for its length alone.
    checkPromptLength(line, `${resolved} line ${index + 1}`, { file: resolved, line: index + 1 });
    prompts.push(jsonLines ? promptFromJsonLine(line, resolved, index + 1) : line);
  });
  if (prompts.length === 0) throw new MlrbError('BAD_DATA', `${resolved} holds no prompts`, { file: resolved });
  return prompts;
}
