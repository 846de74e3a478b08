/**
 * MMLU as the Hugging Face hub has it (`cais/mmlu`, the rows lm-eval loads): parquet with the columns
 * question, subject, choices (a list of four) and answer (ClassLabel A–D, stored as its index 0–3), either
 *   all/test-00000-of-00001.parquet, all/dev-…            every subject in one file, told apart by `subject`
 *   <subject>/test-00000-of-00001.parquet, <subject>/dev-… one config per subject
 * A subject folder wins over `all` where both exist; `all` is read once and split by subject, in file order.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../../errors.js';
import { sourcePathFor } from '../hub-cache.js';
import { splitShards } from '../hub-layout.js';
import { badParquetRow, parquetInt, readParquetSplit, type SplitRow } from '../parquet-rows.js';
import type { MmluRow } from './rows.js';
import type { MmluSource, MmluSubjectRows } from './sources.js';
import { MMLU_SUBJECTS, isMmluSubject } from './subjects.js';

const ALL = 'all';
type Split = 'test' | 'dev';

const rowShape = {
  question: z.string(),
  subject: z.string(),
  choices: z.array(z.string()).length(4, 'choices must hold exactly 4 options'),
  answer: parquetInt.pipe(z.number().min(0, 'answer must be 0-3').max(3, 'answer must be 0-3')),
};
type HubRow = z.output<z.ZodObject<typeof rowShape>>;

/** Whether `dir` holds the hub layout: an `all` config or any subject's config with a test split. */
export async function hasMmluHubLayout(dir: string): Promise<boolean> {
  for (const config of [ALL, ...MMLU_SUBJECTS]) if ((await splitShards(join(dir, config), 'test')).length > 0) return true;
  return false;
}

interface SplitFiles {
  readonly test: readonly string[];
  readonly dev: readonly string[];
}

export function openMmluHubSource(dir: string, root: string): MmluSource {
  const filesOf = async (config: string): Promise<SplitFiles> => ({ test: await splitShards(join(dir, config), 'test'), dev: await splitShards(join(dir, config), 'dev') });
  const read = (shards: readonly string[], config: string, split: Split): Promise<SplitRow<HubRow>[]> =>
    readParquetSplit(shards, { root, what: `MMLU hub ${split} file for ${config}`, shape: rowShape });
  let all: Promise<Map<string, MmluSubjectRows>> | undefined;
  const allSubjects = (): Promise<Map<string, MmluSubjectRows>> => (all ??= readAll(filesOf(ALL), read, dir, root));
  const own = async (subject: string): Promise<SplitFiles | undefined> => {
    const files = await filesOf(subject);
    return files.test.length > 0 ? files : undefined;
  };
  return {
    dir,
    has: async (subject) => {
      const files = await own(subject);
      if (files !== undefined) return files.dev.length > 0;
      return (await filesOf(ALL)).test.length > 0 && ((await allSubjects()).get(subject)?.dev.length ?? 0) > 0;
    },
    rows: async (subject) => {
      const files = await own(subject);
      if (files === undefined) {
        const rows = (await allSubjects()).get(subject);
        if (rows === undefined) throw missingSplit(join(dir, subject), subject, 'test');
        return rows;
      }
      if (files.dev.length === 0) throw missingSplit(join(dir, subject), subject, 'dev');
      const [test, dev] = await Promise.all([read(files.test, subject, 'test'), read(files.dev, subject, 'dev')]);
      return {
        test: test.map((row) => toMmluRow(row, subject)),
        dev: dev.map((row) => toMmluRow(row, subject)),
        testFile: files.test[0] as string,
        sourceFiles: [...files.test, ...files.dev].map((file) => sourcePathFor(file, root, dir)),
      };
    },
  };
}

/** The `all` config, split by subject; a subject column that names no MMLU subject is a bad row. */
async function readAll(
  filesPromise: Promise<SplitFiles>,
  read: (shards: readonly string[], config: string, split: Split) => Promise<SplitRow<HubRow>[]>,
  dir: string,
  root: string,
): Promise<Map<string, MmluSubjectRows>> {
  const files = await filesPromise;
  if (files.test.length === 0) throw missingSplit(join(dir, ALL), ALL, 'test');
  const [test, dev] = await Promise.all([read(files.test, ALL, 'test'), read(files.dev, ALL, 'dev')]);
  const sourceFiles = [...files.test, ...files.dev].map((file) => sourcePathFor(file, root, dir));
  const bySubject = new Map<string, { test: MmluRow[]; dev: MmluRow[] }>();
  const add = (rows: readonly SplitRow<HubRow>[], split: Split): void => {
    for (const row of rows) {
      const subject = row.row.subject;
      if (!isMmluSubject(subject)) throw badParquetRow(row, 'column "subject": not an MMLU subject');
      const entry = bySubject.get(subject) ?? { test: [], dev: [] };
      bySubject.set(subject, entry);
      entry[split].push(toMmluRow(row, subject));
    }
  };
  add(test, 'test');
  add(dev, 'dev');
  const testFile = files.test[0] as string;
  return new Map([...bySubject].map(([subject, rows]) => [subject, { ...rows, testFile, sourceFiles }]));
}

function toMmluRow(row: SplitRow<HubRow>, subject: string): MmluRow {
  if (row.row.subject !== subject) throw badParquetRow(row, `column "subject": not ${subject}, the config the file is in`);
  const [c0, c1, c2, c3] = row.row.choices as [string, string, string, string];
  return { question: row.row.question, choices: [c0, c1, c2, c3], answer: row.row.answer, line: row.rowNumber };
}

function missingSplit(configDir: string, config: string, split: Split): MlrbError {
  return new MlrbError('BAD_DATA', `MMLU hub data has no ${split} split for ${config}: expected ${split}-00000-of-00001.parquet in ${configDir}`, { file: configDir });
}
