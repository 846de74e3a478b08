/**
 * Data files come from the agents being benchmarked. A FIFO, a link to /dev/zero or out of the data folder, a
 * file over the size cap or a row over the row cap must each end in a BAD_DATA error within seconds that names
 * the file (and the line), never printing bytes of a file that is not what it claims to be. Cases that would
 * hang or exhaust the process if a guard regressed run in a child with a time limit (run-hostile.ts).
 */
import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MlrbError } from '../../src/errors.js';
import { loadSuite } from '../../src/tasks/registry.js';
import { writeFullBlimp } from '../support/full-blimp.js';
import { runHostile } from '../support/run-hostile.js';
import { writeSuperGlueFixture } from '../support/superglue-fixtures.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { writeTinyMmlu } from '../support/tiny-datasets.js';
import { refusedWith } from '../support/expect-mlrb-error.js';

const root = makeTempDir('hostile-data');
const SECRET = 'root:x:0:0:SECRET-CONTENT';
const foreign = path.join(root, 'passwd');
writeFileSync(foreign, `${SECRET}\n`);

/** A complete BLiMP folder whose `adjunct_island.jsonl` is replaced by what `replace` makes. */
function blimpWith(name: string, replace: (file: string) => void): { dir: string; file: string } {
  const dir = writeFullBlimp(path.join(root, name));
  const file = path.join(dir, 'adjunct_island.jsonl');
  rmSync(file);
  replace(file);
  return { dir, file };
}

const refusal = (load: Promise<unknown>): Promise<MlrbError> => refusedWith('BAD_DATA', load);

describe('hostile data files', () => {
  it('EXPECTED FAILURE – a FIFO, links to /dev/zero and a 300 MB file fail within seconds, naming the file', async () => {
    const fifo = blimpWith('fifo', (file) => execFileSync('mkfifo', [file]));
    const zero = blimpWith('zero', (file) => symlinkSync('/dev/zero', file));
    const huge = blimpWith('huge', (file) => {
      writeFileSync(file, '');
      truncateSync(file, 300 * 1024 * 1024); // sparse: nothing is written
    });
    const mmlu = writeTinyMmlu(path.join(root, 'mmlu-zero'));
    rmSync(path.join(mmlu, 'test', 'anatomy_test.csv'));
    symlinkSync('/dev/zero', path.join(mmlu, 'test', 'anatomy_test.csv'));
    const superglue = writeSuperGlueFixture();
    rmSync(path.join(superglue, 'CB', 'val.jsonl'));
    execFileSync('mkfifo', [path.join(superglue, 'CB', 'val.jsonl')]);
    const outcomes = await runHostile([
      { op: 'loadSuite', name: 'blimp', options: { dataDir: fifo.dir } },
      { op: 'loadSuite', name: 'blimp', options: { dataDir: zero.dir } },
      { op: 'loadSuite', name: 'blimp', options: { dataDir: huge.dir } },
      { op: 'loadSuite', name: 'mmlu', options: { dataDir: mmlu } },
      { op: 'loadSuite', name: 'superglue', options: { dataDir: superglue } },
      { op: 'evaluate', options: { model: path.join(root, 'unused.onnx'), suite: 'blimp', dataDir: fifo.dir } },
    ]);
    expect(outcomes).toMatchObject([
      { ok: false, code: 'BAD_DATA', message: `BLiMP file for adjunct_island is not a regular file (it is a FIFO): ${fifo.file}` },
      { ok: false, code: 'BAD_DATA', message: expect.stringMatching(/^BLiMP file for adjunct_island resolves outside .*zero.*: .*adjunct_island\.jsonl$/) },
      { ok: false, code: 'BAD_DATA', message: `BLiMP file for adjunct_island is 300 MB, over the 256 MB limit for such a file: ${huge.file}` },
      { ok: false, code: 'BAD_DATA', message: expect.stringMatching(/^MMLU test file for anatomy resolves outside .*anatomy_test\.csv$/) },
      {
        ok: false,
        code: 'BAD_DATA',
        message: expect.stringMatching(/^SuperGLUE cb validation file is not a regular file \(it is a FIFO\): .*CB[/\\]val\.jsonl$/),
      },
      { ok: false, code: 'BAD_DATA', message: expect.stringMatching(/it is a FIFO/) },
    ]);
    for (const outcome of outcomes) expect(outcome.ms).toBeLessThan(3000);
  });

  it('EXPECTED FAILURE – a data file linked to a file outside the folder is refused without printing its bytes', async () => {
    const { dir } = blimpWith('escape', (file) => symlinkSync(foreign, file));
    const error = await refusal(loadSuite('blimp', { dataDir: dir }));
    expect(error.message).toMatch(/adjunct_island\.jsonl$/);
    expect(error.message).not.toMatch(/SECRET|root:x/);
  });

  it("EXPECTED FAILURE – a file inside the folder that is not JSON Lines: the error says where, not the file's text", async () => {
    const { dir } = blimpWith('not-json', (file) => writeFileSync(file, `${SECRET}\n`));
    const error = await refusal(loadSuite('blimp', { dataDir: dir }));
    expect(error.message).toMatch(/adjunct_island\.jsonl line 1: not valid JSON \(a syntax error/);
    expect(error.message).not.toMatch(/SECRET|root:x/);
  });

  it('EXPECTED FAILURE – a valid row over the 1 MB row cap names the file and the line (JSONL and CSV)', async () => {
    const sentence = 'a'.repeat(2 * 1024 * 1024);
    const { dir, file } = blimpWith('long-row', (target) =>
      writeFileSync(
        target,
        [
          { sentence_good: 'x.', sentence_bad: 'y.' },
          { sentence_good: sentence, sentence_bad: 'y.' },
        ]
          .map((row) => JSON.stringify({ ...row, field: 'f', linguistics_term: 't', UID: 'u' }))
          .join('\n'),
      ),
    );
    const blimpError = await refusal(loadSuite('blimp', { dataDir: dir }));
    expect(blimpError.message).toMatch(
      new RegExp(`^${file.replaceAll(/[.*+?^${}()|[\]\\/]/g, '\\$&')} line 2: the row has \\d+ characters, over the limit of 1048576 for one data row$`),
    );
    expect(blimpError.details).toMatchObject({ file, line: 2 });
    const mmlu = writeTinyMmlu(path.join(root, 'mmlu-long'));
    writeFileSync(path.join(mmlu, 'test', 'virology_test.csv'), `q,a,b,c,d,A\n"${sentence}",a,b,c,d,B\n`);
    const mmluError = await refusal(loadSuite('mmlu', { dataDir: mmlu }));
    // The fields hold 2 MiB + 4 one-letter choices + the answer: 2,097,157 characters.
    expect(mmluError.message).toMatch(/virology_test\.csv line 2: the row has 2097157 characters, over the limit/);
  });
});
