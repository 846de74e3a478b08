/**
 * One split of a task's data, found in either accepted layout and read only when asked for, so a loader can
 * tell which splits are there (and name the file a message is about) before it parses anything:
 *   release  text files under the suite's folder (JSONL, with a labels file beside it for PIQA; MMLU's CSV),
 *            parsed by the task's own reader;
 *   hub      the Hugging Face hub's parquet shards of one config's split.
 * SuperGLUE, MMLU, BLiMP and the single-task suites (src/tasks/single/) read their splits through it. A suite
 * of one split per subject or paradigm makes one SplitSource per file or config; a file that holds every
 * subject (MMLU's hub `all`) is read once as a shared source and split into subsets.
 */
import { join } from 'node:path';
import type { z } from 'zod';
import { MlrbError } from '../errors.js';
import { CsvSyntaxError, parseCsv, type CsvRecord } from './csv.js';
import { applyLimit, readTextFile } from './data-files.js';
import { sourcePathFor } from './hub-cache.js';
import type { SuiteData } from './hub-layout.js';
import { badRow, checkRowLength, parseLeadingJsonLines } from './jsonl.js';
import { badParquetRow, readLeadingParquetSplit } from './parquet-rows.js';

export interface SplitSource<Doc> {
  /** The file (or first shard) named in messages about the split as a whole. */
  readonly file: string;
  /** Every file the split is read from, for the results and the data fingerprint. */
  readonly sourceFiles: readonly string[];
  readonly read: () => Promise<Doc[]>;
  /**
   * The documents lm-eval's --limit takes from the split, and the split's size. Where the parser allows it
   * (JSON Lines, CSV), rows past the limit are counted and size-checked but not parsed.
   */
  readonly readLimited: (limit: number | undefined) => Promise<LimitedDocs<Doc>>;
}

/** The leading documents of a split (all of them without a limit) and how many the whole split has. */
export interface LimitedDocs<Doc> {
  readonly docs: Doc[];
  readonly total: number;
}

/** Parses a release split's files (in the order given) into documents; a bad row is BAD_DATA naming its line. */
export type ReleaseSplitParser<Doc> = ((texts: readonly string[], files: readonly string[]) => Doc[]) & {
  /** Parses only the rows `limit` takes (all without one), counting the rest; absent: parse() then slice. */
  readonly limited?: (texts: readonly string[], files: readonly string[], limit: number | undefined) => LimitedDocs<Doc>;
};

/** Reads a hub split's shards into documents; a bad row is BAD_DATA naming its shard and row. */
export type HubSplitParser<Doc> = ((shards: readonly string[], root: string, what: string) => Promise<Doc[]>) & {
  /** Decodes only the rows `limit` takes (all without one), counting the rest; absent: read all, then slice. */
  readonly limited?: (shards: readonly string[], root: string, what: string, limit: number | undefined) => Promise<LimitedDocs<Doc>>;
};

/** A release split made of `names` (paths relative to the suite's folder), each read under the data-file policy. */
export function releaseSplit<Doc>(data: SuiteData<string>, names: readonly string[], what: string, parse: ReleaseSplitParser<Doc>): SplitSource<Doc> {
  const files = names.map((name) => join(data.dir, name));
  const texts = (): Promise<string[]> => Promise.all(files.map((file) => readTextFile(file, what, data.dir)));
  return {
    file: files[0] ?? data.dir,
    sourceFiles: files,
    read: async () => parse(await texts(), files),
    readLimited: async (limit) => (parse.limited ? parse.limited(await texts(), files, limit) : limitDocs(parse(await texts(), files), limit)),
  };
}

function limitDocs<Doc>(docs: Doc[], limit: number | undefined): LimitedDocs<Doc> {
  return { docs: [...applyLimit(docs, limit)], total: docs.length };
}

/** A hub split made of its parquet shards (hub-layout.ts's splitShards), non-empty. */
export function hubSplit<Doc>(data: SuiteData<string>, shards: readonly string[], what: string, parse: HubSplitParser<Doc>): SplitSource<Doc> {
  return {
    file: shards[0] ?? data.dir,
    sourceFiles: shards.map((file) => sourcePathFor(file, data.root, data.dir)),
    read: () => parse(shards, data.root, what),
    readLimited: async (limit) => (parse.limited ? parse.limited(shards, data.root, what, limit) : limitDocs(await parse(shards, data.root, what), limit)),
  };
}

/**
 * A split read once however many readers share it (MMLU's hub `all` config serves 57 subjects); a failed read
 * fails every reader with the same error.
 */
export function sharedSplit<Doc>(source: SplitSource<Doc>): SplitSource<Doc> {
  let docs: Promise<Doc[]> | undefined;
  const read = (): Promise<Doc[]> => (docs ??= source.read());
  return { ...source, read, readLimited: async (limit) => limitDocs(await read(), limit) };
}

/** The documents of `source` that `keep` accepts, in order; the subset names the same files as the whole. */
export function splitSubset<Doc>(source: SplitSource<Doc>, keep: (doc: Doc) => boolean): SplitSource<Doc> {
  const read = async (): Promise<Doc[]> => (await source.read()).filter(keep);
  return { ...source, read, readLimited: async (limit) => limitDocs(await read(), limit) };
}

/** Where a row is, as messages name it: a line of a text file, or a row of a parquet shard (both 1-based). */
export interface RowPlace {
  readonly file: string;
  readonly unit: 'line' | 'row';
  readonly position: number;
}

/** BAD_DATA about one row, for a rule that spans rows (a paradigm's pairs must agree). */
export function badRowAt(place: RowPlace, what: string): MlrbError {
  return new MlrbError('BAD_DATA', `${place.file} ${place.unit} ${place.position}: ${what}`, { file: place.file, [place.unit]: place.position });
}

/**
 * Turns a row that fits its schema into a document, or says (a string) what lm-eval would fail on in it, which
 * the parser reports as BAD_DATA naming the row.
 */
export type RowToDoc<Row, Doc extends object> = (row: Row, place: RowPlace) => Doc | string;

/** A release parser for a split that is one JSONL file; under a limit, lines past it are counted, not parsed. */
export function jsonlParser<Schema extends z.ZodType, Doc extends object>(schema: Schema, toDoc: RowToDoc<z.output<Schema>, Doc>): ReleaseSplitParser<Doc> {
  const limited = ([content = '']: readonly string[], [file = '']: readonly string[], limit: number | undefined): LimitedDocs<Doc> => {
    const { rows, total } = parseLeadingJsonLines(content, file, schema, limit);
    const docs = rows.map(({ row, line }) => {
      const doc = toDoc(row, { file, unit: 'line', position: line });
      return typeof doc === 'string' ? badRow(file, line, doc) : doc;
    });
    return { docs, total };
  };
  return Object.assign((texts: readonly string[], files: readonly string[]) => limited(texts, files, undefined).docs, { limited });
}

/** A hub parser from the columns it needs (those in `optional` may be absent); under a limit, rows past it are counted, not decoded. */
export function parquetParser<Shape extends z.ZodRawShape, Doc extends object>(
  shape: Shape,
  toDoc: RowToDoc<z.output<z.ZodObject<Shape>>, Doc>,
  optional: readonly (keyof Shape & string)[] = [],
): HubSplitParser<Doc> {
  const limited = async (shards: readonly string[], root: string, what: string, limit: number | undefined): Promise<LimitedDocs<Doc>> => {
    const { rows, total } = await readLeadingParquetSplit(shards, { root, what, shape, optional }, limit);
    const docs = rows.map((row) => {
      const doc = toDoc(row.row, { file: row.file, unit: 'row', position: row.rowNumber });
      if (typeof doc === 'string') throw badParquetRow(row, doc);
      return doc;
    });
    return { docs, total };
  };
  return Object.assign(async (shards: readonly string[], root: string, what: string) => (await limited(shards, root, what, undefined)).docs, { limited });
}

/**
 * A release parser for a split that is one CSV file. `toDocs` gets its records (blank lines dropped, a header
 * row kept: the format decides what its first row means) and the --limit, and converts the data rows the limit
 * takes; malformed CSV, or a row over the one-row cap, is BAD_DATA naming the line (every row is checked for
 * those: the split's size needs every record).
 */
export function csvParser<Doc>(toDocs: (records: readonly CsvRecord[], file: string, limit: number | undefined) => LimitedDocs<Doc>): ReleaseSplitParser<Doc> {
  const limited = ([content = '']: readonly string[], [file = '']: readonly string[], limit: number | undefined): LimitedDocs<Doc> =>
    toDocs(csvRecords(content, file), file, limit);
  return Object.assign((texts: readonly string[], files: readonly string[]) => limited(texts, files, undefined).docs, { limited });
}

function csvRecords(content: string, file: string): CsvRecord[] {
  let records: CsvRecord[];
  try {
    records = parseCsv(content);
  } catch (error: unknown) {
    if (error instanceof CsvSyntaxError) {
      throw new MlrbError('BAD_DATA', `${file} line ${error.line}: malformed CSV: ${error.message}`, { file, line: error.line }, { cause: error });
    }
    throw error;
  }
  // A blank line parses as one empty field; it carries no row (Python's csv reader skips it too).
  const rows = records.filter((record) => !(record.fields.length === 1 && record.fields[0] === ''));
  for (const { fields, line } of rows)
    checkRowLength(
      fields.reduce((sum, field) => sum + field.length, 0),
      file,
      line,
    );
  return rows;
}
