/**
 * scoreMathReasoning's Lean compile checks, with a fake `lean` (test/support/fake-lean.mjs: compiles iff the file
 * has no sorry) run as a process of its own for every problem; the scoring itself is score.test.ts's.
 */
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scoreMathReasoning } from '../../src/math-reasoning/score.js';
import { refusedWith } from '../support/expect-mlrb-error.js';
import { codePointEncoder, ScriptedGenerator } from '../support/fake-text-generator.js';
import { mathFolder, writeMathProblems } from '../support/math-problems.js';

const FAKE_LEAN = fileURLToPath(new URL('../support/fake-lean.mjs', import.meta.url));

describe('Lean compile checks (a fake lean: compiles iff the file has no sorry)', () => {
  const rows = [
    { name: 'ok', informal_statement: 'ok', informal_proof: '', formal_proof: 'theorem t : true := trivial' },
    { name: 'sorry', informal_statement: 'sorry', informal_proof: '', formal_proof: 'theorem t : true := trivial' },
    { name: 'hang', informal_statement: 'hang', informal_proof: '', formal_proof: 'theorem t : true := trivial' },
    { name: 'flood', informal_statement: 'flood', informal_proof: '', formal_proof: 'theorem t : true := trivial' },
  ];
  const outputs: Record<string, string> = {
    ok: 'theorem t : true := trivial -- $(touch PWNED) `touch PWNED` ; touch PWNED',
    sorry: 'theorem t : true := sorry',
    hang: 'SLEEP_FOREVER',
    flood: 'FLOOD',
  };
  const generatorFor = (): ScriptedGenerator => new ScriptedGenerator((prompt) => outputs[/Problem: (\w+)/u.exec(prompt)?.[1] ?? ''] ?? '');

  it('reports compiled, failed with the first error line, and timed out; never through a shell', async () => {
    const work = mathFolder();
    const log = path.join(work, 'fake-lean.log');
    writeFileSync(log, '');
    const report = await scoreMathReasoning({
      data: writeMathProblems(rows),
      generator: generatorFor(),
      encoder: codePointEncoder,
      lean: { executable: FAKE_LEAN, timeoutS: 1, cwd: work },
    });
    expect(report.problems.map((problem) => problem.lean)).toEqual([
      { status: 'compiled' },
      { status: 'failed', first_error: "problem_1.lean:2:4: error: declaration uses 'sorry'" },
      { status: 'timed_out' },
      { status: 'failed', first_error: 'noise' },
    ]);
    expect(report.metrics.lean).toEqual({ compiled: 1, failed: 2, timed_out: 1, compile_rate: 0.25 });
    expect(report.settings.lean_timeout_s).toBe(1);
    const runs = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { args: string[]; cwd: string });
    // One argv entry per run: a file named by the problem's position, in a private folder that is gone afterwards.
    expect(runs.map((run) => run.args.map((arg) => path.basename(arg)))).toEqual([
      ['problem_0.lean'],
      ['problem_1.lean'],
      ['problem_2.lean'],
      ['problem_3.lean'],
    ]);
    expect(runs.every((run) => run.cwd === work)).toBe(true);
    expect(existsSync(path.dirname(runs[0]!.args[0]!))).toBe(false);
    expect(existsSync(path.join(work, 'PWNED'))).toBe(false);
  }, 20_000);

  it('runs a lake executable as `lake env lean FILE`', async () => {
    const work = mathFolder();
    const lake = path.join(work, 'lake');
    symlinkSync(FAKE_LEAN, lake);
    writeFileSync(path.join(work, 'fake-lean.log'), '');
    const report = await scoreMathReasoning({
      data: writeMathProblems(rows.slice(0, 1)),
      generator: generatorFor(),
      encoder: codePointEncoder,
      lean: { executable: lake, cwd: work },
    });
    expect(report.metrics.lean?.compile_rate).toBe(1);
    const run = JSON.parse(readFileSync(path.join(work, 'fake-lean.log'), 'utf8').trim()) as { args: string[] };
    expect(run.args.slice(0, 2)).toEqual(['env', 'lean']);
    expect(path.basename(run.args[2] ?? '')).toBe('problem_0.lean');
  });

  it('EXPECTED FAILURE – a missing Lean executable is LEAN_RUN before anything is generated', async () => {
    const generator = generatorFor();
    const error = await refusedWith(
      'LEAN_RUN',
      scoreMathReasoning({ data: writeMathProblems(rows), generator, encoder: codePointEncoder, lean: { executable: path.join(mathFolder(), 'no-lean') } }),
    );
    expect(error.message).toMatch(/no-lean cannot be run/u);
    expect(generator.calls).toHaveLength(0);
  });
});
