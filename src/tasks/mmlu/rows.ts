/**
 * Reads one MMLU CSV file in either of the two layouts found in the wild, decided per file:
 *   - with the header `question,choice0,choice1,choice2,choice3,answer` and answers 0–3 (an export of the
 *     Hugging Face `cais/mmlu` rows that lm-eval loads);
 *   - the original Hendrycks release: no header, answers A–D.
 * Both yield the same rows, so prompts and scores cannot depend on which copy a user has.
 */
import { z } from 'zod';
import { MlrbError } from '../../errors.js';
import { CsvSyntaxError, parseCsv, type CsvRecord } from '../csv.js';
import { checkRowLength } from '../jsonl.js';

export interface MmluRow {
  readonly question: string;
  readonly choices: readonly [string, string, string, string];
  /** Index of the correct choice, 0–3. */
  readonly answer: number;
  /** 1-based line where the row starts in its file. */
  readonly line: number;
}

const COLUMNS = ['question', 'choice0', 'choice1', 'choice2', 'choice3', 'answer'] as const;
const text = z.string();
const headeredRow = z.tuple([text, text, text, text, text, z.enum(['0', '1', '2', '3'])]);
const hendrycksRow = z.tuple([text, text, text, text, text, z.enum(['A', 'B', 'C', 'D'])]);
const ANSWER_INDEX = { '0': 0, '1': 1, '2': 2, '3': 3, A: 0, B: 1, C: 2, D: 3 } as const;

export function parseMmluRows(content: string, file: string): MmluRow[] {
  let records: CsvRecord[];
  try {
    records = parseCsv(content);
  } catch (error: unknown) {
    if (error instanceof CsvSyntaxError) {
      throw new MlrbError('BAD_DATA', `${file} line ${error.line}: malformed CSV: ${error.message}`, { file, line: error.line }, { cause: error });
    }
    throw error;
  }
  const [first] = records;
  const hasHeader = first !== undefined && first.fields.length === COLUMNS.length && first.fields.every((field, index) => field === COLUMNS[index]);
  const schema = hasHeader ? headeredRow : hendrycksRow;
  const layout = hasHeader ? 'this file has a header row, so answers are indices 0-3' : 'this file has no header row, so answers are letters A-D';
  const rows: MmluRow[] = [];
  for (const record of hasHeader ? records.slice(1) : records) {
    // A blank line parses as one empty field; it carries no row (Python's csv reader skips it too).
    if (record.fields.length === 1 && record.fields[0] === '') continue;
    rows.push(toRow(record, schema, file, layout));
  }
  return rows;
}

function toRow(record: CsvRecord, schema: typeof headeredRow | typeof hendrycksRow, file: string, layout: string): MmluRow {
  const { fields, line } = record;
  checkRowLength(fields.reduce((sum, field) => sum + field.length, 0), file, line);
  if (fields.length !== COLUMNS.length) {
    badRow(file, line, `expected ${COLUMNS.length} fields (${COLUMNS.join(', ')}), found ${fields.length}`);
  }
  const parsed = schema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const index = issue?.path[0];
    const column = typeof index === 'number' ? COLUMNS[index] : undefined;
    // The bad value is not quoted: a file that only claims to be MMLU must not have its bytes printed.
    badRow(file, line, `column "${column ?? '?'}": ${issue?.message ?? 'invalid value'} (${layout})`);
  }
  const [question, choice0, choice1, choice2, choice3, answer] = parsed.data;
  return { question, choices: [choice0, choice1, choice2, choice3], answer: ANSWER_INDEX[answer], line };
}

function badRow(file: string, line: number, what: string): never {
  throw new MlrbError('BAD_DATA', `${file} line ${line}: ${what}`, { file, line });
}
