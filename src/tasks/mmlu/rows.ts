/**
 * MMLU's rows as lm-eval logs them (cais/mmlu's columns), read from either layout's files:
 *   release CSV  with the header `question,choice0,choice1,choice2,choice3,answer` and answers 0–3 (an export of
 *                the hub rows lm-eval loads), or the original Hendrycks release: no header, answers A–D; decided
 *                per file;
 *   hub parquet  question, subject, choices (a list of four), answer (ClassLabel A–D, stored as its index 0–3).
 * Both yield the same documents, so prompts and scores cannot depend on which copy a user has.
 */
import { z } from 'zod';
import type { CsvRecord } from '../csv.js';
import { limitedCount } from '../data-files.js';
import { badRow } from '../jsonl.js';
import { parquetInt } from '../parquet-rows.js';
import { csvParser, parquetParser, type HubSplitParser, type ReleaseSplitParser } from '../split-source.js';

export interface MmluDoc {
  readonly [column: string]: unknown;
  readonly question: string;
  readonly subject: string;
  readonly choices: readonly string[];
  /** Index of the correct choice, 0–3. */
  readonly answer: number;
}

const COLUMNS = ['question', 'choice0', 'choice1', 'choice2', 'choice3', 'answer'] as const;
const text = z.string();
const headeredRow = z.tuple([text, text, text, text, text, z.enum(['0', '1', '2', '3'])]);
const hendrycksRow = z.tuple([text, text, text, text, text, z.enum(['A', 'B', 'C', 'D'])]);
const ANSWER_INDEX = { '0': 0, '1': 1, '2': 2, '3': 3, A: 0, B: 1, C: 2, D: 3 } as const;

/** A subject's release CSV (`test/<subject>_test.csv`, `dev/<subject>_dev.csv`). */
export function mmluCsvParser(subject: string): ReleaseSplitParser<MmluDoc> {
  return csvParser((records, file, limit) => {
    const [first] = records;
    // Only the file's first line can be the header; after a blank line a header-like row is data.
    const hasHeader = first?.line === 1 && first.fields.length === COLUMNS.length && first.fields.every((field, index) => field === COLUMNS[index]);
    const schema = hasHeader ? headeredRow : hendrycksRow;
    const layout = hasHeader ? 'this file has a header row, so answers are indices 0-3' : 'this file has no header row, so answers are letters A-D';
    const rows = hasHeader ? records.slice(1) : records;
    // Rows past the limit are counted, not converted (their CSV syntax and size were checked with the rest).
    const docs = rows.slice(0, limitedCount(rows.length, limit)).map((record) => toDoc(record, schema, file, layout, subject));
    return { docs, total: rows.length };
  });
}

function toDoc(record: CsvRecord, schema: typeof headeredRow | typeof hendrycksRow, file: string, layout: string, subject: string): MmluDoc {
  const { fields, line } = record;
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
  return { question, subject, choices: [choice0, choice1, choice2, choice3], answer: ANSWER_INDEX[answer] };
}

const hubShape = {
  question: z.string(),
  subject: z.string(),
  choices: z.array(z.string()).length(4, 'choices must hold exactly 4 options'),
  answer: parquetInt.pipe(z.number().min(0, 'answer must be 0-3').max(3, 'answer must be 0-3')),
};

/**
 * A hub config's parquet; `subjectOk` says (a string) why a row's subject column does not belong in the
 * config: a subject's own config holds only that subject, `all` only MMLU subjects.
 */
export function mmluParquetParser(subjectOk: (subject: string) => string | undefined): HubSplitParser<MmluDoc> {
  return parquetParser(hubShape, (row) => {
    const problem = subjectOk(row.subject);
    if (problem !== undefined) return `column "subject": ${problem}`;
    return { question: row.question, subject: row.subject, choices: [...row.choices], answer: row.answer };
  });
}
