/**
 * Reading the run records a report is made of: each run counts once however the files are named, and a file
 * that is not a run record is refused saying what it is. The foreign files have the shapes the other writers
 * give them (lm-eval's results object, a `--shard` file, the model-metrics report), reduced to their top-level
 * fields.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MlrbError } from '../../src/errors.js';
import { readRunRecords, toReportRuns } from '../../src/report/report-run.js';
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
    expect(readRunRecords([first, second]).map(({ file, record }) => [file, record.headline.value])).toEqual([
      [first, 0.41],
      [second, 0.43],
    ]);
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
    expect(readRunRecords([first, older]).map(({ record }) => record.schema_version)).toEqual([3, 1]);
  });

  it('says what a file that is not a run record is, naming it', async () => {
    const foreign: [string, unknown, string][] = [
      [
        'lm-eval.json',
        { results: { mmlu: { 'acc,none': 0.3 } }, groups: {}, configs: {}, config: { model: 'hf' }, lm_eval_version: '0.4.8' },
        'it is an lm-eval results file (mlrb-eval MODEL --output); run records are written by mlrb-eval mlrb TASK MODEL --output',
      ],
      ['shard.json', { format: 'mlrb-eval-shard', format_version: 1, shard: { index: 0, count: 3 } }, 'it is a "mlrb-eval-shard" file'],
      ['metrics.json', { schema: 'mlrb-eval/model-metrics', schema_version: 1 }, 'its schema is "mlrb-eval/model-metrics"'],
      ['future.json', { ...syntheticRunRecord(RUN), schema_version: 4 }, 'its schema_version is 4, which this version does not read'],
      ['list.json', [syntheticRunRecord(RUN)], 'it is a JSON array, not an object'],
      ['other.json', { name: 'x' }, 'it has no "schema" field'],
    ];
    for (const [name, value, reason] of foreign) {
      const file = writeJson(name, value);
      const error = await refusal([first, file]);
      expect(error.code, name).toBe('BAD_RECORD');
      expect(error.message, name).toBe(`${file}: not an MLRB run record (schema mlrb-eval/mlrb-run v1, v2, v3): ${reason}`);
    }
  });

  it('names what a damaged record of this schema lacks', async () => {
    const { headline: _lost, ...record } = syntheticRunRecord(RUN);
    const file = writeJson('damaged.json', record);
    expect((await refusal([file])).message).toMatch(new RegExp(`^${file}: not an MLRB run record \\(schema mlrb-eval/mlrb-run v1, v2, v3\\):\\n[^]*headline`));
  });

  it("EXPECTED FAILURE – a headline outside its metric's range (an accuracy of 7.5, −3 or 1.7e308) is refused, naming the file", async () => {
    for (const [name, value] of [
      ['seven', 7.5],
      ['negative', -3],
      ['huge', 1.7e308],
    ] as const) {
      const record = syntheticRunRecord({ ...RUN, startMinute: 20 });
      const file = writeJson(`range-${name}.json`, { ...record, headline: { ...record.headline, value } });
      const error = await refusal([first, file]);
      expect(error.code, name).toBe('BAD_RECORD');
      expect(error.message, name).toMatch(
        new RegExp(`^${file}: not an MLRB run record [^]*the headline acc is ${String(value).replace(/[.+]/g, '\\$&')}, outside its range \\[0, 1\\]`),
      );
    }
    // A version 1 record is held to the same ranges.
    const older = asVersion1Json(syntheticRunRecord({ ...RUN, startMinute: 21 })) as { headline: Record<string, unknown> };
    const olderFile = writeJson('range-v1.json', { ...older, headline: { ...older.headline, value: 42 } });
    expect((await refusal([olderFile])).message).toMatch(/the headline acc is 42, outside its range \[0, 1\]/);
  });

  it('EXPECTED FAILURE – a record nested 200,000 deep is BAD_RECORD naming the file, not a stack overflow', async () => {
    const file = path.join(dir, 'deep.json');
    const record = JSON.stringify(syntheticRunRecord({ ...RUN, startMinute: 30 }));
    writeFileSync(file, record.replace('"agent":', `"extra":${'['.repeat(200_000)}${']'.repeat(200_000)},"agent":`));
    const error = await refusal([first, file]);
    expect(error.code).toBe('BAD_RECORD');
    expect(error.message).toBe(`MLRB run record nests deeper than 64 levels (no real file does): ${file}`);
  });

  it('EXPECTED FAILURE – a --limit run that claims a scored headline counts neither in the mean nor as best', async () => {
    const honest = writeJson('honest.json', syntheticRunRecord({ ...RUN, score: 0.4, startMinute: 40 }));
    const limited = syntheticRunRecord({ ...RUN, score: 0.9, startMinute: 41 });
    const claimed = writeJson('claimed.json', { ...limited, run: { ...limited.run, limit: 5 } });
    const written = await writeReport({ recordFiles: [honest, claimed], outDir: path.join(dir, 'limited-report') });
    expect(written.summaries).toEqual([
      expect.objectContaining({ runs: 2, successful: 1, counted: 1, mean: 0.4, best: expect.objectContaining({ score: 0.4 }) }),
    ]);
  });
});

describe('task labels', () => {
  it("are mlrb-eval's task names, mini_ only before a mini variant (MLRB spells full MiniPile and BabyLM mini_pile and baby_lm)", () => {
    const full = (task: SyntheticRun['task']) => syntheticRunRecord({ ...RUN, task });
    const miniPile = { ...full('minipile'), mini: true, mlrb_task: 'mini_mini_pile' };
    const runs = toReportRuns([
      { file: 'a.json', record: full('minipile') },
      { file: 'b.json', record: full('babylm') },
      { file: 'c.json', record: miniPile },
      { file: 'd.json', record: full('llm_merging') },
    ]);
    expect(full('minipile').mlrb_task).toBe('mini_pile');
    expect(full('babylm').mlrb_task).toBe('baby_lm');
    expect(Object.fromEntries(runs.map((run) => [run.file, run.task]))).toEqual({
      'a.json': 'minipile',
      'b.json': 'babylm',
      'c.json': 'mini_minipile',
      'd.json': 'llm_merging',
    });
  });
});
