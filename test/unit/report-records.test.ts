/** Reading the run records a report is made of: each run counts once however the files are named. */
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MlrbError } from '../../src/errors.js';
import { readRunRecords } from '../../src/report/report-run.js';
import { writeReport } from '../../src/report/write-report.js';
import { asVersion1Json, syntheticRunRecord, type SyntheticRun } from '../support/run-records.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mlrb-report-records-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RUN: SyntheticRun = { task: 'llm_merging', agent: 'agent-alpha', score: 0.41, eligibility: 'unchecked', parameters: 7e9, startMinute: 0 };

function writeJson(name: string, value: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

/** The error a report over `files` is refused with; the refusal comes before anything is written. */
let reports = 0;
async function refusal(files: readonly string[]): Promise<MlrbError> {
  const outDir = path.join(dir, `report-${(reports += 1)}`);
  try {
    await writeReport({ recordFiles: files, outDir });
  } catch (error) {
    expect(existsSync(outDir)).toBe(false);
    if (error instanceof MlrbError) return error;
    throw error;
  }
  throw new Error(`expected ${files.join(', ')} to be refused`);
}

describe('reading the run records of a report', () => {
  const first = writeJson('first.json', syntheticRunRecord(RUN));
  const second = writeJson('second.json', syntheticRunRecord({ ...RUN, score: 0.43, startMinute: 5 }));

  it('reads two runs of one model by one agent as two runs', () => {
    expect(readRunRecords([first, second]).map(({ file, record }) => [file, record.headline.value])).toEqual([[first, 0.41], [second, 0.43]]);
  });

  it('refuses one file named twice, naming it', async () => {
    const error = await refusal([first, second, first]);
    expect(error.code).toBe('BAD_RECORD');
    expect(error.message).toBe(`${first}: the same run as ${first} (the file given twice, or a copy of it); each run counts once`);
  });

  it('refuses a copy of a record under another name, even reformatted, naming both files', async () => {
    const copy = path.join(dir, 'copy.json');
    copyFileSync(first, copy);
    expect((await refusal([first, copy])).message).toMatch(new RegExp(`^${copy}: the same run as ${first} `));
    const compact = path.join(dir, 'compact.json');
    writeFileSync(compact, JSON.stringify(syntheticRunRecord(RUN)));
    expect((await refusal([second, first, compact])).message).toMatch(new RegExp(`^${compact}: the same run as ${first} `));
  });

  it('reads a version 1 record beside a version 2 one', () => {
    const older = writeJson('older.json', asVersion1Json(syntheticRunRecord({ ...RUN, startMinute: 9 })));
    expect(readRunRecords([first, older]).map(({ record }) => record.schema_version)).toEqual([2, 1]);
  });
});
