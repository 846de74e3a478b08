/**
 * GSM8K's loader on the fixture (scripts/data/build_gsm8k_fixtures.py) and on broken copies of it: the layouts it
 * finds, --limit and --num_fewshot, and the BAD_DATA a user meets with the wrong files. What lm-eval builds from
 * the same rows is checked in test/eval/generate-until/gsm8k-lm-eval.test.ts.
 */
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGsm8k } from '../../../src/tasks/gsm8k/load.js';
import { refusedWith } from '../../support/expect-mlrb-error.js';
import { repoRoot } from '../../support/shared-data.js';
import { makeTempDir } from '../../support/temp-dirs.js';

const fixtures = path.join(repoRoot, 'test/fixtures/tasks/gsm8k');

/** A copy of the release fixture under <tmp>/gsm8k, which --data may name by its parent. */
function releaseCopy(): { readonly parent: string; readonly dir: string } {
  const parent = makeTempDir('gsm8k');
  const dir = path.join(parent, 'gsm8k');
  cpSync(path.join(fixtures, 'release'), dir, { recursive: true });
  return { parent, dir };
}

describe('GSM8K loader', () => {
  it('finds the suite folder under --data, reads the train split only for few-shot, and applies --limit', async () => {
    const { parent, dir } = releaseCopy();
    rmSync(path.join(dir, 'train.jsonl'));
    const zeroShot = await loadGsm8k({ dataDir: parent, numFewshot: 0, limit: 0.5 });
    expect(zeroShot.docs.map((doc) => doc.docId)).toEqual([0, 1]);
    expect(zeroShot.totalDocs).toBe(4);
    expect(zeroShot.fewshot).toBeUndefined();
    expect(zeroShot.sourceFiles).toEqual([path.join(dir, 'test.jsonl')]);
    const error = await refusedWith('BAD_DATA', loadGsm8k({ dataDir: parent }));
    expect(error.message).toMatch(/no train split for few-shot examples \(expected train\.jsonl\)/);
  });

  it("defaults to the YAML's 5-shot and reads the hub layout's train shard for it", async () => {
    const task = await loadGsm8k({ dataDir: path.join(fixtures, 'hub') });
    expect(task.numFewshot).toBe(5);
    expect(task.fewshot).toMatchObject({ sampler: 'default', seed: 1234, drawsExtra: false });
    expect(task.fewshot?.docs).toHaveLength(7);
    expect(task.sourceFiles.map((file) => path.basename(file))).toEqual(['test-00000-of-00001.parquet', 'train-00000-of-00001.parquet']);
  });

  it('EXPECTED FAILURE – a row that is not GSM8K is BAD_DATA naming its file and line', async () => {
    const { dir } = releaseCopy();
    const file = path.join(dir, 'test.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ question: 'q?', answer: 'The answer is 4.\n#### 4' })}\n${JSON.stringify({ question: 'q?', answer: 'The answer is 4.' })}\n`,
    );
    const noFinalLine = await refusedWith('BAD_DATA', loadGsm8k({ dataDir: dir, numFewshot: 0 }));
    expect(noFinalLine.message).toBe(`${file} line 2: the answer has no "#### <number>" final line, so it is not a GSM8K row`);
    expect(noFinalLine.details).toEqual({ file, line: 2 });
    writeFileSync(file, `${JSON.stringify({ question: 7, answer: '#### 7' })}\n`);
    const notText = await refusedWith('BAD_DATA', loadGsm8k({ dataDir: dir, numFewshot: 0 }));
    expect(notText.message).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line 1: field "question"`));
  });

  it('EXPECTED FAILURE – a hub shard with a bad row names the shard and row; a folder in neither layout lists both', async () => {
    const shard = path.join(fixtures, 'bad-hub', 'main', 'test-00000-of-00001.parquet');
    const badRow = await refusedWith('BAD_DATA', loadGsm8k({ dataDir: path.join(fixtures, 'bad-hub'), numFewshot: 0 }));
    expect(badRow.message).toMatch(/row 2: the answer has no "#### <number>" final line/);
    expect(badRow.message).toContain(shard);
    const empty = makeTempDir('gsm8k-empty');
    const missing = await refusedWith('BAD_DATA', loadGsm8k({ dataDir: empty }));
    expect(missing.message).toMatch(/Accepted GSM8K layouts: \(1\) the original release's test\.jsonl.*\(2\) the Hugging Face hub's openai\/gsm8k parquet/);
  });

  it('BAD CALL – refuses a negative few-shot count or limit before reading anything', () => {
    expect(() => loadGsm8k({ dataDir: fixtures, numFewshot: -1 })).toThrow(RangeError);
    expect(() => loadGsm8k({ dataDir: fixtures, limit: 0 })).toThrow(RangeError);
  });
});
