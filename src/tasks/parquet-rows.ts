/**
 * Parquet data files checked row by row with a zod schema, the parquet counterpart of jsonl.ts: a missing
 * column, or a row that does not fit, is a BAD_DATA MlrbError naming the file, the row (1-based) and the column,
 * never the value. Only the schema's columns are decoded, so a hub file's extra columns cost nothing.
 */
import { z } from 'zod';
import { MlrbError } from '../errors.js';
import { DATA_ROW_CAP_CHARS, FILE_SIZE_CAPS } from '../io/file-policy.js';
import { limitedCount } from './data-files.js';
import { inRowOrder } from './row-order.js';

export interface NumberedParquetRow<T> {
  readonly row: T;
  /** 1-based row in the file. */
  readonly rowNumber: number;
}

export interface ParquetRowsRequest<Shape extends z.ZodRawShape> {
  readonly file: string;
  /** The folder the file must resolve inside (see hub-cache.ts for the hub cache's). */
  readonly root: string;
  /** The file's role, for messages ("BLiMP hub file for adjunct_island"). */
  readonly what: string;
  /** One entry per column read; keys absent from the file are an error unless listed in `optional`. */
  readonly shape: Shape;
  readonly optional?: readonly (keyof Shape & string)[];
}

/** ClassLabel and int columns arrive as number (int32) or bigint (int64); both become a safe integer. */
export const parquetInt = z.union([z.number().int(), z.bigint()]).transform((value, context) => {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) {
    context.addIssue({ code: 'custom', message: 'integer out of range' });
    return z.NEVER;
  }
  return number;
});

export async function readParquetRows<Shape extends z.ZodRawShape>(
  request: ParquetRowsRequest<Shape>,
): Promise<NumberedParquetRow<z.output<z.ZodObject<Shape>>>[]> {
  const table = await openTable(request);
  return table.read(table.rowCount);
}

/** A file whose footer is read and whose columns are checked; `read` decodes and checks its first rows. */
interface CheckedTable<T> {
  readonly rowCount: number;
  readonly read: (rows: number) => Promise<NumberedParquetRow<T>[]>;
}

async function openTable<Shape extends z.ZodRawShape>(request: ParquetRowsRequest<Shape>): Promise<CheckedTable<z.output<z.ZodObject<Shape>>>> {
  const { file, root, what, shape } = request;
  // The parquet reader and its codecs load on first use: a run on JSON Lines or CSV data never pays for them.
  const { openParquetFile } = await import('../io/parquet-file.js');
  const table = openParquetFile(file, { kind: 'data', root, what });
  const optional = new Set<string>(request.optional ?? []);
  const wanted = Object.keys(shape);
  const missing = wanted.filter((column) => !optional.has(column) && !table.columns.includes(column));
  if (missing.length > 0) {
    throw new MlrbError('BAD_DATA', `${what} lacks the column(s) ${missing.join(', ')} (${table.columns.length} columns found): ${file}`, { file, missing });
  }
  const present = wanted.filter((column) => table.columns.includes(column));
  const schema = z.object(shape);
  return {
    rowCount: table.rowCount,
    read: async (rowCount) => checkRows(await table.readRows(present, rowCount), schema, request),
  };
}

function checkRows<Shape extends z.ZodRawShape>(
  rows: readonly Record<string, unknown>[],
  schema: z.ZodObject<Shape>,
  { file, what }: ParquetRowsRequest<Shape>,
): NumberedParquetRow<z.output<z.ZodObject<Shape>>>[] {
  let fileCharacters = 0;
  return rows.map((raw, index) => {
    const rowNumber = index + 1;
    const characters = textLength(raw);
    if (characters > DATA_ROW_CAP_CHARS) {
      throw new MlrbError(
        'BAD_DATA',
        `${file} row ${rowNumber}: the row has ${characters} characters, over the limit of ${DATA_ROW_CAP_CHARS} for one data row`,
        { file, row: rowNumber },
      );
    }
    // Dictionary encoding lets a small file repeat one long string in every row; the text a file decodes to
    // is held to what a JSONL file of the data cap could hold.
    fileCharacters += characters;
    if (fileCharacters > FILE_SIZE_CAPS.data) {
      throw new MlrbError(
        'BAD_DATA',
        `${what} decodes to over ${FILE_SIZE_CAPS.data} characters of text by row ${rowNumber}, over the limit for one data file: ${file}`,
        {
          file,
          row: rowNumber,
        },
      );
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `column "${issue.path.map(String).join('.')}"` : 'row';
      throw new MlrbError('BAD_DATA', `${file} row ${rowNumber}: ${where}: ${issue?.message ?? 'invalid'}`, { file, row: rowNumber });
    }
    return { row: inRowOrder(parsed.data, raw), rowNumber };
  });
}

/** Characters of text in a decoded row (strings in lists and structs included), for the one-row cap. */
function textLength(value: unknown, depth = 0): number {
  if (typeof value === 'string') return value.length;
  if (depth > 8 || value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  let total = 0;
  for (const child of children) total += textLength(child, depth + 1);
  return total;
}

export interface SplitRow<T> extends NumberedParquetRow<T> {
  /** The shard the row came from. */
  readonly file: string;
}

/** Every row of a split's shards, in shard order; `what` names the split in messages. */
export async function readParquetSplit<Shape extends z.ZodRawShape>(
  shards: readonly string[],
  request: Omit<ParquetRowsRequest<Shape>, 'file'>,
): Promise<SplitRow<z.output<z.ZodObject<Shape>>>[]> {
  return (await readLeadingParquetSplit(shards, request, undefined)).rows;
}

/**
 * The rows lm-eval's --limit takes from a split's shards (all without one), and the split's row count: every
 * shard's footer and columns are checked, but only the rows taken are decoded and checked.
 */
export async function readLeadingParquetSplit<Shape extends z.ZodRawShape>(
  shards: readonly string[],
  request: Omit<ParquetRowsRequest<Shape>, 'file'>,
  limit: number | undefined,
): Promise<{ readonly rows: SplitRow<z.output<z.ZodObject<Shape>>>[]; readonly total: number }> {
  const tables = await Promise.all(shards.map(async (file) => ({ file, table: await openTable({ ...request, file }) })));
  const total = tables.reduce((sum, { table }) => sum + table.rowCount, 0);
  let left = limitedCount(total, limit);
  const taken = tables.map(({ table }) => {
    const rows = Math.min(left, table.rowCount);
    left -= rows;
    return rows;
  });
  const perShard = await Promise.all(
    tables.map(async ({ file, table }, index) => {
      const rows = taken[index] ?? 0;
      return rows === 0 ? [] : (await table.read(rows)).map((row) => ({ ...row, file }));
    }),
  );
  return { rows: perShard.flat(), total };
}

/** A row that parsed but breaks a rule the schema cannot state: BAD_DATA naming the shard and row. */
export function badParquetRow(row: SplitRow<unknown>, what: string): MlrbError {
  return new MlrbError('BAD_DATA', `${row.file} row ${row.rowNumber}: ${what}`, { file: row.file, row: row.rowNumber });
}
