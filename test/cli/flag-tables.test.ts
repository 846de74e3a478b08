/**
 * What declaring each flag once buys (src/cli/flag-table.ts): a command's --help lists exactly the flags its
 * parser accepts, with the syntax its parser reads. The expectation is the usage text a person reads, taken
 * apart here by its layout (`  --flag PLACEHOLDER  help`), not the tables: every listed flag is accepted (a
 * value after `--flag PLACEHOLDER`, none after a switch), and every flag another command lists but this one
 * does not is refused as unknown. All through main(); a probe flag after the one under test stops every line
 * at the parser, so nothing runs.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

interface CommandRow {
  readonly command: string;
  /** A well-formed start of the command line: the command and its positionals. */
  readonly line: readonly string[];
}

const COMMANDS: readonly CommandRow[] = [
  { command: 'eval', line: ['eval', 'model.onnx'] },
  { command: 'inspect', line: ['inspect', 'model.onnx'] },
  { command: 'check-pruning', line: ['check-pruning', 'model.onnx'] },
  { command: 'check-track', line: ['check-track', 'edge-training', 'model.onnx'] },
  { command: 'cache', line: ['cache', 'info'] },
  { command: 'mlrb', line: ['mlrb', 'blimp', 'model.onnx'] },
  { command: 'math-reasoning', line: ['math-reasoning', 'model.onnx'] },
  { command: 'merge', line: ['merge', 'shard-0.json'] },
  { command: 'report', line: ['report', 'run.json'] },
  { command: 'model-metrics', line: ['model-metrics', 'model.onnx'] },
  { command: 'generate', line: ['generate', 'model.onnx'] },
];

const PROBE = '--mlrb-flag-probe';

interface ListedFlag {
  readonly flag: string;
  readonly takesValue: boolean;
}

/** The flags an options section lists: a line `  --name` or `  --name PLACEHOLDER`, then two spaces and help. */
function listedFlags(usage: string): ListedFlag[] {
  return [...usage.matchAll(/^ {2}(--[a-z][a-z0-9-]*)( \S+)? {2,}\S/gm)].map((match) => ({ flag: match[1] ?? '', takesValue: match[2] !== undefined }));
}

const usages = new Map<string, ListedFlag[]>();
for (const { command } of COMMANDS) {
  const help = await runCli([command, '--help']);
  usages.set(command, listedFlags(help.stdout));
}
const everyListedFlag = new Set([...usages.values()].flat().map(({ flag }) => flag));

describe.each(COMMANDS)('$command --help lists exactly the flags it accepts', ({ command, line }) => {
  const listed = usages.get(command) ?? [];

  it('lists its flags, each once', () => {
    expect(listed.length).toBeGreaterThan(0);
    expect(new Set(listed.map(({ flag }) => flag)).size).toBe(listed.length);
  });

  it('accepts every listed flag with the syntax usage shows', async () => {
    for (const { flag, takesValue } of listed) {
      const accepted = await runCli([...line, flag, ...(takesValue ? ['x'] : []), PROBE]);
      expect(accepted.stderr, `${command} ${flag}`).toContain(`${command}: unknown flag ${PROBE}\n`);
      const misspelt = await runCli([...line, takesValue ? flag : `${flag}=1`]);
      expect(misspelt.code, `${command} ${flag}`).toBe(2);
      expect(misspelt.stderr, `${command} ${flag}`).toContain(`${command}: ${flag} ${takesValue ? 'needs a value' : 'takes no value'}\n`);
    }
  });

  it("BAD CALL – refuses, by name, every flag it does not list (those other commands' usages list)", async () => {
    const own = new Set(listed.map(({ flag }) => flag));
    const others = [...everyListedFlag].filter((flag) => !own.has(flag));
    expect(others.length).toBeGreaterThan(0);
    for (const flag of others) {
      const refused = await runCli([...line, flag, PROBE]);
      expect(refused.code, `${command} ${flag}`).toBe(2);
      expect(refused.stderr, `${command} ${flag}`).toContain(`${command}: unknown flag ${flag}\n`);
    }
  });
});

describe("eval: lm-eval's underscore spellings", () => {
  it('accepts the underscore spelling of every flag its usage lists, as its usage says', async () => {
    expect((await runCli(['eval', '--help'])).stdout).toContain('Every flag may also be spelled with underscores');
    for (const { flag, takesValue } of usages.get('eval') ?? []) {
      const lmEvalSpelling = `--${flag.slice(2).replaceAll('-', '_')}`;
      const accepted = await runCli(['model.onnx', lmEvalSpelling, ...(takesValue ? ['x'] : []), PROBE]);
      expect(accepted.stderr, lmEvalSpelling).toContain(`eval: unknown flag ${PROBE}\n`);
    }
  });
});
