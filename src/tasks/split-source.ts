/**
 * One split of a task's data, found in either accepted layout and read only when asked for, so a loader can
 * tell which splits are there (and name the file a message is about) before it parses anything:
 *   release  text files under the suite's folder (JSONL, with a labels file beside it for PIQA), parsed by
 *            the task's own reader;
 *   hub      the Hugging Face hub's parquet shards of one config's split.
 * SuperGLUE and the single-task suites (src/tasks/single/) read their splits through it.
 */
import { join } from 'node:path';
import type { z } from 'zod';
import { readTextFile } from './data-files.js';
import { sourcePathFor } from './hub-cache.js';
import type { SuiteData } from './hub-layout.js';
import { badRow, parseJsonLines } from './jsonl.js';
import { badParquetRow, readParquetSplit } from './parquet-rows.js';

export interface SplitSource<Doc> {
  /** The file (or first shard) named in messages about the split as a whole. */
  readonly file: string;
  /** Every file the split is read from, for the results and the data fingerprint. */
  readonly sourceFiles: readonly string[];
  readonly read: () => Promise<Doc[]>;
}

/** Parses a release split's files (in the order given) into documents; a bad row is BAD_DATA naming its line. */
export type ReleaseSplitParser<Doc> = (texts: readonly string[], files: readonly string[]) => Doc[];

/** Reads a hub split's shards into documents; a bad row is BAD_DATA naming its shard and row. */
export type HubSplitParser<Doc> = (shards: readonly string[], root: string, what: string) => Promise<Doc[]>;

/** A release split made of `names` (paths relative to the suite's folder), each read under the data-file policy. */
export function releaseSplit<Doc>(data: SuiteData<string>, names: readonly string[], what: string, parse: ReleaseSplitParser<Doc>): SplitSource<Doc> {
  const files = names.map((name) => join(data.dir, name));
  return {
    file: files[0] ?? data.dir,
    sourceFiles: files,
    read: async () => parse(await Promise.all(files.map((file) => readTextFile(file, what, data.dir))), files),
  };
}

/** A hub split made of its parquet shards (hub-layout.ts's splitShards), non-empty. */
export function hubSplit<Doc>(data: SuiteData<string>, shards: readonly string[], what: string, parse: HubSplitParser<Doc>): SplitSource<Doc> {
  return {
    file: shards[0] ?? data.dir,
    sourceFiles: shards.map((file) => sourcePathFor(file, data.root, data.dir)),
    read: () => parse(shards, data.root, what),
  };
}

/**
 * Turns a row that fits its schema into a document, or says (a string) what lm-eval would fail on in it, which
 * the parser reports as BAD_DATA naming the row.
 */
export type RowToDoc<Row, Doc extends object> = (row: Row) => Doc | string;

/** A release parser for a split that is one JSONL file. */
export function jsonlParser<Schema extends z.ZodType, Doc extends object>(schema: Schema, toDoc: RowToDoc<z.output<Schema>, Doc>): ReleaseSplitParser<Doc> {
  return ([content = ''], [file = '']) =>
    parseJsonLines(content, file, schema).map(({ row, line }) => {
      const doc = toDoc(row);
      return typeof doc === 'string' ? badRow(file, line, doc) : doc;
    });
}

/** A hub parser from the columns it needs (those in `optional` may be absent). */
export function parquetParser<Shape extends z.ZodRawShape, Doc extends object>(
  shape: Shape,
  toDoc: RowToDoc<z.output<z.ZodObject<Shape>>, Doc>,
  optional: readonly (keyof Shape & string)[] = [],
): HubSplitParser<Doc> {
  return async (shards, root, what) =>
    (await readParquetSplit(shards, { root, what, shape, optional })).map((row) => {
      const doc = toDoc(row.row);
      if (typeof doc === 'string') throw badParquetRow(row, doc);
      return doc;
    });
}
