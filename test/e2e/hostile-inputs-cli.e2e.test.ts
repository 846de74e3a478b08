/**
 * Hostile inputs through the CLI, as a benchmark operator meets them: each ends within seconds with exit 1
 * and `error [CODE]` naming the file (exit 2 for an output path that can never be written), and outputs are
 * written whole or not at all. Cases that could hang if a guard regressed run in a child with a time limit.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTinyCausalLm } from '../support/model-builders/tiny-causal-lm.js';
import { writeFullBlimp } from '../support/full-blimp.js';
import { runCli } from '../support/run-cli.js';
import { runHostile } from '../support/run-hostile.js';
import { makeTempDir } from '../support/temp-dirs.js';

const root = makeTempDir('hostile-cli');
const { modelPath } = writeTinyCausalLm(path.join(root, 'model'));
const blimp = writeFullBlimp(path.join(root, 'blimp'));

/** A copy of the tiny model's folder with one side file replaced by what `replace` makes. */
function modelWith(name: string, sideFile: string, replace: (file: string) => void): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  for (const file of readdirSync(path.dirname(modelPath))) writeFileSync(path.join(dir, file), readFileSync(path.join(path.dirname(modelPath), file)));
  rmSync(path.join(dir, sideFile));
  replace(path.join(dir, sideFile));
  return path.join(dir, 'model.onnx');
}

describe('mlrb-eval on hostile inputs', () => {
  it('EXPECTED FAILURE – FIFOs and /dev/zero among data and side files: exit 1, error [CODE] naming the file, within seconds', async () => {
    const fifoData = writeFullBlimp(path.join(root, 'blimp-fifo'));
    rmSync(path.join(fifoData, 'wh_island.jsonl'));
    execFileSync('mkfifo', [path.join(fifoData, 'wh_island.jsonl')]);
    const configFifo = modelWith('config-fifo', 'config.json', (file) => execFileSync('mkfifo', [file]));
    const tokenizerZero = modelWith('tokenizer-zero', 'tokenizer.json', (file) => symlinkSync('/dev/zero', file));
    const outcomes = await runHostile([
      { op: 'cli', args: [modelPath, '--suite', 'blimp', '--data', fifoData, '--no-cache', '--quiet'] },
      { op: 'cli', args: [configFifo, '--suite', 'blimp', '--data', blimp, '--no-cache', '--quiet'] },
      { op: 'cli', args: [tokenizerZero, '--suite', 'blimp', '--data', blimp, '--no-cache', '--quiet'] },
    ]);
    expect(outcomes).toMatchObject([
      {
        exitCode: 1,
        message: expect.stringMatching(
          /^mlrb-eval: error \[BAD_DATA\]: BLiMP file for wh_island is not a regular file \(it is a FIFO\): .*wh_island\.jsonl\n$/,
        ),
      },
      {
        exitCode: 1,
        message: expect.stringMatching(
          /^mlrb-eval: error \[BAD_MODEL\]: config\.json is not a regular file \(it is a FIFO\): .*config-fifo[/\\]config\.json\n$/,
        ),
      },
      {
        exitCode: 1,
        message: expect.stringMatching(/^mlrb-eval: error \[BAD_TOKENIZER\]: tokenizer\.json resolves outside .*tokenizer-zero[/\\]tokenizer\.json\n$/),
      },
    ]);
    for (const outcome of outcomes) expect(outcome.ms).toBeLessThan(5000);
  });

  it('EXPECTED FAILURE – a BLiMP folder with 2 of 67 paradigms: exit 1, listing the missing paradigms', async () => {
    const two = writeFullBlimp(path.join(root, 'blimp-two'), ['adjunct_island', 'wh_island']);
    const run = await runCli([modelPath, '--suite', 'blimp', '--data', two, '--no-cache', '--quiet']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^mlrb-eval: error \[BAD_DATA\]: BLiMP data in .*blimp-two is incomplete: 65 of 67 subtasks are missing \(blimp_anaphor_gender_agreement, /,
    );
    expect(run.stdout).toBe('');
  });

  it('--allow-partial scores the 2 paradigms as blimp_partial, and the results list the 65 missing', async () => {
    const two = writeFullBlimp(path.join(root, 'blimp-two-allowed'), ['adjunct_island', 'wh_island']);
    const output = path.join(root, 'partial.json');
    const run = await runCli([modelPath, '--suite', 'blimp', '--data', two, '--allow-partial', '--output', output, '--no-cache', '--quiet']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/blimp \(partial: 65 of 67 subtasks missing\)/);
    const results = JSON.parse(readFileSync(output, 'utf8')) as { groups: Record<string, unknown>; mlrb: { partial?: { missing: string[] } } };
    expect(Object.keys(results.groups)).toEqual(['blimp_partial']);
    expect(results.mlrb.partial?.missing).toHaveLength(65);
    expect(results.mlrb.partial?.missing).toContain('blimp_anaphor_gender_agreement');
  });

  it('writes --output and --log-samples whole, with nothing else left in their folder', async () => {
    const out = path.join(root, 'out');
    const run = await runCli([
      modelPath,
      '--suite',
      'blimp',
      '--data',
      blimp,
      '--output',
      path.join(out, 'r.json'),
      '--log-samples',
      path.join(out, 's.jsonl'),
      '--no-cache',
      '--quiet',
    ]);
    expect(run.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['r.json', 's.jsonl']);
    const results = JSON.parse(readFileSync(path.join(out, 'r.json'), 'utf8')) as { groups: Record<string, unknown>; mlrb: Record<string, unknown> };
    expect(Object.keys(results.groups)).toEqual(['blimp']);
    expect(results.mlrb.partial).toBeUndefined();
    expect(readFileSync(path.join(out, 's.jsonl'), 'utf8').trim().split('\n')).toHaveLength(67 * 2);
  });

  it('EXPECTED FAILURE – output paths that are a folder, or under a file, are usage errors found before any scoring', async () => {
    mkdirSync(path.join(root, 'taken.json'));
    const folder = await runCli([modelPath, '--suite', 'blimp', '--data', blimp, '--output', path.join(root, 'taken.json'), '--no-cache', '--quiet']);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/--output .*taken\.json is a directory; name a file/);
    expect(folder.stdout).toBe('');
    writeFileSync(path.join(root, 'a-file'), 'x');
    const blocked = await runCli([modelPath, '--suite', 'blimp', '--data', blimp, '--output', path.join(root, 'a-file', 'r.json'), '--no-cache', '--quiet']);
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toMatch(/--output .*a-file[/\\]r\.json cannot be created: .*a-file is not a directory/);
    expect(blocked.stdout).toBe('');
  });

  it('EXPECTED FAILURE – --output and --log-samples naming one file is a usage error, not results overwritten by samples', async () => {
    const results = path.join(root, 'same.json');
    const clash = await runCli([
      modelPath,
      '--suite',
      'blimp',
      '--data',
      blimp,
      '--output',
      results,
      '--log-samples',
      path.join(root, '.', 'same.json'),
      '--no-cache',
      '--quiet',
    ]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain(`eval: --output and --log-samples name the same file (${results}); give the samples a file of their own`);
    expect(clash.stdout).toBe('');
    expect(readdirSync(root)).not.toContain('same.json');
    // A device takes both; it is written into, not replaced.
    const discarded = await runCli([
      modelPath,
      '--suite',
      'blimp',
      '--data',
      blimp,
      '--output',
      '/dev/null',
      '--log-samples',
      '/dev/null',
      '--no-cache',
      '--quiet',
    ]);
    expect(discarded.code).toBe(0);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });
});
