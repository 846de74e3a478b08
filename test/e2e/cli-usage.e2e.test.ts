/**
 * Every command reads its command line the same way (src/cli/command-line.ts): through main(), an unknown flag
 * and a flag without its value exit 2 with a message naming the command and the flag and pointing to a --help
 * that prints the command's usage (the default command's is the bare `mlrb-eval --help`: its users type
 * `mlrb-eval MODEL …`); --help and -h print the command's usage to stdout and exit 0. None of these opens a file.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

interface CommandRow {
  /** The name usage errors give (`eval` for `mlrb-eval MODEL …`). */
  readonly command: string;
  /** A well-formed start of the command line: the command and its positionals. */
  readonly line: readonly string[];
  /** The command line a usage error points to for help. */
  readonly help: string;
  /** A flag that takes a value. */
  readonly valueFlag: string;
  /** How the command's usage starts. */
  readonly usage: string;
}

const COMMANDS: readonly CommandRow[] = [
  { command: 'eval', line: ['model.onnx'], help: 'mlrb-eval --help', valueFlag: '--tasks', usage: 'usage: mlrb-eval MODEL --tasks' },
  { command: 'eval', line: ['eval', 'model.onnx'], help: 'mlrb-eval --help', valueFlag: '--output', usage: 'usage: mlrb-eval MODEL --tasks' },
  { command: 'inspect', line: ['inspect', 'model.onnx'], help: 'mlrb-eval inspect --help', valueFlag: '--track', usage: 'usage: mlrb-eval inspect MODEL' },
  {
    command: 'check-pruning',
    line: ['check-pruning', 'model.onnx'],
    help: 'mlrb-eval check-pruning --help',
    valueFlag: '--base',
    usage: 'usage: mlrb-eval check-pruning MODEL',
  },
  {
    command: 'check-track',
    line: ['check-track', 'edge-training', 'model.onnx'],
    help: 'mlrb-eval check-track --help',
    valueFlag: '--dram-budget',
    usage: 'usage: mlrb-eval check-track',
  },
  { command: 'cache', line: ['cache', 'info'], help: 'mlrb-eval cache --help', valueFlag: '--use-cache', usage: 'usage: mlrb-eval cache info|clear' },
  { command: 'mlrb', line: ['mlrb', 'blimp', 'model.onnx'], help: 'mlrb-eval mlrb --help', valueFlag: '--data', usage: 'usage: mlrb-eval mlrb TASK MODEL' },
  {
    command: 'math-reasoning',
    line: ['math-reasoning', 'model.onnx'],
    help: 'mlrb-eval math-reasoning --help',
    valueFlag: '--data',
    usage: 'usage: mlrb-eval math-reasoning MODEL',
  },
  { command: 'merge', line: ['merge', 'shard-0.json'], help: 'mlrb-eval merge --help', valueFlag: '--output', usage: 'usage: mlrb-eval merge SHARD.json' },
  { command: 'report', line: ['report', 'run.json'], help: 'mlrb-eval report --help', valueFlag: '--out', usage: 'usage: mlrb-eval report RUN.json' },
  {
    command: 'model-metrics',
    line: ['model-metrics', 'model.onnx'],
    help: 'mlrb-eval model-metrics --help',
    valueFlag: '--only',
    usage: 'usage: mlrb-eval model-metrics MODEL',
  },
  { command: 'generate', line: ['generate', 'model.onnx'], help: 'mlrb-eval generate --help', valueFlag: '--prompt', usage: 'usage: mlrb-eval generate MODEL' },
];

describe.each(COMMANDS)('$command: $line', ({ command, line, help, valueFlag, usage }) => {
  const pointer = `see '${help}'`;

  it('the usage error points to a --help that prints this usage', async () => {
    const run = await runCli(help.split(' ').slice(1));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^${usage.replace(/[|.]/g, '\\$&')}`));
  });

  it('BAD CALL – an unknown flag exits 2, naming the command and the flag', async () => {
    const run = await runCli([...line, '--no-such-flag']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`mlrb-eval: ${command}: unknown flag --no-such-flag\n${pointer}\n`);
    expect(run.stdout).toBe('');
  });

  it('BAD CALL – a flag without its value exits 2, naming the command and the flag', async () => {
    const run = await runCli([...line, valueFlag]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`mlrb-eval: ${command}: ${valueFlag} needs a value\n${pointer}\n`);
  });

  it('--help and -h print the usage to stdout and exit 0, whatever else is on the line', async () => {
    for (const help of ['--help', '-h']) {
      const run = await runCli([...line, '--no-such-flag', help]);
      expect(run.code, help).toBe(0);
      expect(run.stdout, help).toMatch(new RegExp(`^${usage.replace(/[|.]/g, '\\$&')}`));
      expect(run.stdout.endsWith('\n') && !run.stdout.endsWith('\n\n'), help).toBe(true);
      expect(run.stderr, help).toBe('');
    }
  });
});

describe('negative numbers are values, and the flag says what it accepts', () => {
  it.each([
    ['--limit', '-3'],
    ['--limit=-3', undefined],
  ])('BAD CALL – %s %s: the same message either way, which suggests nothing invalid', async (flag, value) => {
    for (const line of [
      ['model.onnx', '--tasks', 'blimp'],
      ['mlrb', 'blimp', 'model.onnx'],
    ]) {
      const run = await runCli([...line, flag, ...(value === undefined ? [] : [value])]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--limit must be above 0 (a count of documents, or a fraction below 1), got -3\n');
      expect(run.stderr).not.toContain('--limit=');
    }
  });

  it("BAD CALL – zero, a word and a real flag in the value's place each get their own message", async () => {
    expect((await runCli(['model.onnx', '--tasks', 'blimp', '--limit', '0'])).stderr).toContain('--limit must be above 0');
    expect((await runCli(['model.onnx', '--tasks', 'blimp', '--limit', 'ten'])).stderr).toContain('--limit expects a count or a fraction below 1, got "ten"');
    expect((await runCli(['model.onnx', '--tasks', 'blimp', '--limit', '--quiet'])).stderr).toContain('--limit needs a value');
    expect((await runCli(['math-reasoning', 'model.onnx', '--data', 'x.jsonl', '--limit', '-3'])).stderr).toContain('expected a whole number ≥ 1, got "-3"');
  });
});
