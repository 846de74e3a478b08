/**
 * Lean in a box, with the fake `lean` (test/support/fake-lean.mjs), in each box this host can make: the compiler's
 * whole process tree ends with every compile (a child that called setsid() too, after a successful compile as after
 * the time limit), it sees a minimal environment and a private TMPDIR, the namespaces box has no network, and output
 * that would run code while Lean elaborates is refused before any compiler starts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectLeanSandbox, LEAN_SANDBOXES, minimalEnvironment, type LeanSandbox } from '../../src/math-reasoning/lean-box.js';
import { LeanWorkspace } from '../../src/math-reasoning/lean-check.js';
import { leanSourceRefusal } from '../../src/math-reasoning/lean-source-check.js';
import { makeTempDir } from '../support/temp-dirs.js';

const FAKE_LEAN = fileURLToPath(new URL('../support/fake-lean.mjs', import.meta.url));

interface SeenRun {
  readonly args: string[];
  readonly env: string[];
  readonly tmpdir: string | null;
  readonly interfaces: string[];
}

/**
 * The fake's children append a heartbeat every 50 ms; none may arrive once the check has returned (their pids are
 * of no use here: in the namespaces box they are the namespace's own numbers).
 */
async function heartbeatsAfter(work: string): Promise<number> {
  const file = path.join(work, 'fake-lean-heartbeats');
  const before = readFileSync(file, 'utf8').length;
  await new Promise((resolve) => setTimeout(resolve, 400));
  return readFileSync(file, 'utf8').length - before;
}

/** A project folder with the fake's log, and the workspace compiling in it. */
function project(
  sandbox: LeanSandbox,
  timeoutMs = 5000,
): { readonly work: string; readonly workspace: LeanWorkspace; readonly runs: () => SeenRun[]; readonly children: () => string[] } {
  const work = makeTempDir(`lean-box-${sandbox}`);
  writeFileSync(path.join(work, 'fake-lean.log'), '');
  writeFileSync(path.join(work, 'fake-lean-children'), '');
  const workspace = new LeanWorkspace({ executable: FAKE_LEAN, timeoutMs, cwd: work, sandbox });
  const lines = (file: string): string[] =>
    readFileSync(path.join(work, file), 'utf8')
      .split('\n')
      .filter((line) => line !== '');
  return {
    work,
    workspace,
    runs: () => lines('fake-lean.log').map((line) => JSON.parse(line) as SeenRun),
    children: () => lines('fake-lean-children'),
  };
}

const detected = process.platform === 'linux' ? detectLeanSandbox() : 'process-group';
// The boxes that end every descendant: the one detected here, and the subreaper fallback wherever Linux runs.
const treeBoxes = LEAN_SANDBOXES.filter(
  (sandbox) => sandbox !== 'process-group' && (sandbox === detected || (sandbox === 'subreaper' && process.platform === 'linux')),
);

describe('Lean in a box', () => {
  it('this Linux host allows a box that ends the whole tree', () => {
    if (process.platform !== 'linux') return;
    expect(['namespaces', 'subreaper']).toContain(detected);
  });

  describe.each(treeBoxes)('the %s box', (sandbox) => {
    it('EXPECTED FAILURE – children left running after a successful compile, one of them setsid(), are gone when the check returns', {
      timeout: 30_000,
    }, async () => {
      const { work, workspace, children } = project(sandbox);
      try {
        expect(await workspace.check(0, 'theorem t : true := trivial -- LEAVE_CHILDREN')).toEqual({ status: 'compiled' });
        expect(children()).toHaveLength(2);
        expect(await heartbeatsAfter(work)).toBe(0);
      } finally {
        workspace.close();
      }
    });

    it('EXPECTED FAILURE – at the time limit the compiler and its setsid() child are both ended', { timeout: 30_000 }, async () => {
      const { work, workspace, children } = project(sandbox, 4000);
      try {
        expect(await workspace.check(0, 'LEAVE_CHILDREN SLEEP_FOREVER')).toEqual({ status: 'timed_out' });
        expect(children()).toHaveLength(2);
        expect(await heartbeatsAfter(work)).toBe(0);
      } finally {
        workspace.close();
      }
    });
  });

  it('the compiler sees a minimal environment (no caller secrets) and the private folder as TMPDIR', async () => {
    const { workspace, runs } = project(detected);
    process.env.MLRB_TEST_SECRET_TOKEN = 'do-not-pass';
    try {
      expect(await workspace.check(3, 'theorem t : true := trivial')).toEqual({ status: 'compiled' });
    } finally {
      delete process.env.MLRB_TEST_SECRET_TOKEN;
      workspace.close();
    }
    const [run] = runs();
    expect(run?.env).not.toContain('MLRB_TEST_SECRET_TOKEN');
    expect(run?.env.every((name) => Object.keys(minimalEnvironment(process.env, '/x')).includes(name))).toBe(true);
    expect(run?.tmpdir).toBe(path.dirname(run?.args.at(-1) ?? ''));
  });

  it.runIf(detected === 'namespaces')('the namespaces box has no network: the compiler sees the loopback device at most', async () => {
    const { workspace, runs } = project('namespaces');
    try {
      await workspace.check(0, 'theorem t : true := trivial');
    } finally {
      workspace.close();
    }
    expect(runs()[0]?.interfaces.filter((name) => name !== 'lo')).toEqual([]);
  });

  it.each([
    ['#eval', 'theorem t : true := trivial\n#eval io.cmd {cmd := "sh", args := ["-c", "touch PWNED"]}', /command #eval/],
    ['run_cmd', 'run_cmd tactic.trace "hi"', /`run_cmd`, which runs code while Lean elaborates/],
    ['IO in a tactic block', 'theorem t : true := by tactic.unsafe_run_io (io.put_str "x") >> tactic.triv', /`unsafe_run_io`|`io`/],
    ['Lean 4 IO', 'def main : IO Unit := IO.Process.exit 0', /`IO`, which reaches files, processes or the network/],
    ['meta code', 'meta def f : tactic unit := tactic.skip', /`meta`/],
  ])('EXPECTED FAILURE – %s in the output is refused before any compiler starts', async (_name, source, reason) => {
    const { workspace, runs } = project(detected);
    try {
      const outcome = await workspace.check(0, source);
      expect(outcome.status).toBe('failed');
      expect(outcome).toMatchObject({ first_error: expect.stringMatching(reason) });
    } finally {
      workspace.close();
    }
    expect(runs()).toEqual([]);
  });
});

describe('the source check', () => {
  it('lets ordinary proofs through: tactic blocks, #check and #print, names that merely contain a refused word', () => {
    const proofs = [
      'theorem foo (a b : ℕ) (h_io : a = b) : b = a :=\nbegin\n  rw h_io,\nend\n#check foo\n#print axioms foo',
      'lemma ratio_pos (x : ℝ) (hx : 0 < x) : 0 < x / 2 := by linarith -- the ratio is positive',
      'open real\ntheorem t : (2 : ℝ) ≤ 3 := by norm_num\n#reduce 2 + 2',
      'theorem card_le (α : Type*) [fintype α] : fintype.card α ≤ fintype.card α := le_refl _ -- #α in mathlib notation',
    ];
    for (const proof of proofs) expect(leanSourceRefusal(proof), proof).toBeNull();
  });

  it('refuses what runs code or reaches outside, wherever it is written (a comment or string included)', () => {
    expect(leanSourceRefusal('theorem t : true := trivial\n#exit\nbad')).toMatch(/#exit/);
    expect(leanSourceRefusal('#eval! IO.println "x"')).toMatch(/#eval!/);
    expect(leanSourceRefusal('-- run_cmd is only mentioned here')).toMatch(/`run_cmd`/);
    expect(leanSourceRefusal('def f := name.mk_string "cmd" (name.mk_string "io" name.anonymous)')).toMatch(/`io`/);
    expect(leanSourceRefusal('@[implemented_by g] def f : nat := 0')).toMatch(/`implemented_by`/);
    expect(leanSourceRefusal('theorem t : true := by native_decide')).toMatch(/`native_decide`/);
  });
});
