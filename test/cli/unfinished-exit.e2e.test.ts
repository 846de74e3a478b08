/**
 * The CLI never ends without a word: an exit that comes before the command's own (node's exit once nothing is
 * left to wait for, a library's process.exit()) writes one line to stderr (src/cli/unfinished-exit.ts).
 * Each case is a child node running the guard around a command that does not finish.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/unfinished-exit.ts')).href;

function runGuarded(command: string) {
  return spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { warnOnUnfinishedExit } from ${JSON.stringify(MODULE)};
     const finished = warnOnUnfinishedExit(process.stderr);
     ${command}
     finished();`,
    ],
    { encoding: 'utf8' },
  );
}

describe('warnOnUnfinishedExit', () => {
  it('a command awaiting a promise nothing will settle: the CLI says so, and the exit is a failure', () => {
    const child = runGuarded('await new Promise(() => {});');
    expect(child.status).toBe(70);
    expect(child.stderr).toContain('mlrb-eval: internal error: the process is exiting before the command finished');
  });

  it('a command cut short by process.exit(N): the code is kept, and the CLI says so', () => {
    const child = runGuarded('process.exit(3);');
    expect(child.status).toBe(3);
    expect(child.stderr).toContain('mlrb-eval: internal error: the process is exiting before the command finished');
  });

  it('a command cut short by process.exit(0) does not read as success', () => {
    const child = runGuarded('process.exit(0);');
    expect(child.status).toBe(70);
    expect(child.stderr).toContain('or something called process.exit()');
  });

  it('a command that finishes: nothing is written', () => {
    const child = runGuarded('await new Promise((resolve) => setTimeout(resolve, 10)); process.exitCode = 4;');
    expect(child.status).toBe(4);
    expect(child.stderr).toBe('');
  });
});
