/**
 * JSON Lines files checked row by row with a zod schema: a malformed line or a row that does not fit is a
 * BAD_DATA MlrbError naming the file, the line and the field, so a user can find the bad row.
 */
import type { z } from 'zod';
import { MlrbError } from '../errors.js';
import { limitedCount } from './data-files.js';
import { DATA_ROW_CAP_CHARS } from '../io/file-policy.js';
import { describeJsonProblem, parseBoundedJson } from '../io/bounded-json.js';
import { inRowOrder } from './row-order.js';

export interface NumberedRow<T> {
  readonly row: T;
  /** 1-based line in the file. */
  readonly line: number;
}

/** Parses every non-blank line. */
export function parseJsonLines<Schema extends z.ZodType>(content: string, file: string, schema: Schema): NumberedRow<z.output<Schema>>[] {
  return parseLeadingJsonLines(content, file, schema, undefined).rows;
}

export interface LeadingJsonLines<T> {
  /** The rows --limit takes, in file order. */
  readonly rows: NumberedRow<T>[];
  /** Non-blank lines in the whole file. */
  readonly total: number;
}

/**
 * Parses the non-blank lines lm-eval's --limit takes (all without one). Every line is size-checked and counted,
 * but lines past the limit are not parsed, so a --limit run does not pay for the whole file.
 */
export function parseLeadingJsonLines<Schema extends z.ZodType>(
  content: string,
  file: string,
  schema: Schema,
  limit: number | undefined,
): LeadingJsonLines<z.output<Schema>> {
  const lines = nonBlankLines(content, file);
  const rows = lines
    .slice(0, limitedCount(lines.length, limit))
    .map(({ start, end, line }) => ({ row: parseRow(content.slice(start, end), file, line, schema), line }));
  return { rows, total: lines.length };
}

interface LineSpan {
  readonly start: number;
  readonly end: number;
  /** 1-based. */
  readonly line: number;
}

/**
 * Where the non-blank lines are (split at "\n", dropping a "\r" before it), each size-checked. A line is only
 * copied out (to test whether it is all whitespace) when its first character does not settle that: a data
 * file's lines start with "{", so the scan copies nothing.
 */
function nonBlankLines(content: string, file: string): LineSpan[] {
  const lines: LineSpan[] = [];
  let line = 0;
  for (let start = 0; start <= content.length; ) {
    const newline = content.indexOf('\n', start);
    const next = newline < 0 ? content.length : newline;
    const end = newline >= 0 && next > start && content.charCodeAt(next - 1) === CARRIAGE_RETURN ? next - 1 : next;
    line += 1;
    if (!isBlank(content, start, end)) {
      checkRowLength(end - start, file, line);
      lines.push({ start, end, line });
    }
    start = next + 1;
  }
  return lines;
}

const CARRIAGE_RETURN = 13;
const SPACE = 32;
const DELETE = 127;

/** String.prototype.trim()'s notion of blank, without a copy when the first character is visible ASCII. */
function isBlank(content: string, start: number, end: number): boolean {
  if (start === end) return true;
  const first = content.charCodeAt(start);
  if (first > SPACE && first < DELETE) return false;
  return content.slice(start, end).trim() === '';
}

function parseRow<Schema extends z.ZodType>(text: string, file: string, line: number, schema: Schema): z.output<Schema> {
  // The reason is described, never quoted: V8's message would echo the line's bytes.
  const value = parseBoundedJson(
    text,
    (problem, cause) =>
      new MlrbError(
        'BAD_DATA',
        `${file} line ${line}: ${problem.kind === 'syntax' ? `not valid JSON (${problem.description})` : describeJsonProblem(problem)}`,
        { file, line },
        cause === undefined ? undefined : { cause },
      ),
  );
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `field "${issue.path.join('.')}"` : 'record';
    throw new MlrbError('BAD_DATA', `${file} line ${line}: ${where}: ${issue?.message ?? 'invalid'}`, { file, line });
  }
  return inRowOrder(parsed.data, value);
}

/** A row that parsed but breaks a rule the schema cannot state (a span outside its text …). */
export function badRow(file: string, line: number, what: string): never {
  throw new MlrbError('BAD_DATA', `${file} line ${line}: ${what}`, { file, line });
}

/** One row above DATA_ROW_CAP_CHARS is refused before it is parsed or copied into prompts. */
export function checkRowLength(characters: number, file: string, line: number): void {
  if (characters > DATA_ROW_CAP_CHARS) {
    throw new MlrbError('BAD_DATA', `${file} line ${line}: the row has ${characters} characters, over the limit of ${DATA_ROW_CAP_CHARS} for one data row`, {
      file,
      line,
    });
  }
}
