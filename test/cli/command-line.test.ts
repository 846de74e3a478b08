/**
 * parseCommandLine (src/cli/command-line.ts) makes strict parsing's checks itself, to word them; node's own
 * strict parseArgs is the reference for which lines are refused and what the accepted ones mean.
 */
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseCommandLine, type FlagConfig } from '../../src/cli/command-line.js';
import { UsageError } from '../../src/cli/exit-error.js';

const FLAGS = {
  data: { type: 'string', short: 'd' },
  json: { type: 'boolean', short: 'j' },
  prompt: { type: 'string', multiple: true },
  base: { type: 'string', default: '' },
} as const satisfies FlagConfig;

const spec = { command: 'demo', flags: FLAGS, schema: z.looseObject({}) };

function strictParse(argv: readonly string[]): { values: object; positionals: string[] } | 'refused' {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: FLAGS, allowPositionals: true, strict: true });
    return { values: { ...values }, positionals };
  } catch {
    return 'refused';
  }
}

function ours(argv: readonly string[]): { values: object; positionals: readonly string[] } | 'refused' {
  try {
    const line = parseCommandLine(argv, spec);
    if (line.help) throw new Error('no --help in these lines');
    return { values: { ...line.options }, positionals: line.positionals };
  } catch (error) {
    if (error instanceof UsageError) return 'refused';
    throw error;
  }
}

describe('parseCommandLine', () => {
  it('refuses exactly the lines strict parsing refuses, and reads the others as it does', () => {
    const lines = [
      ['m', '--data', 'x'],
      ['m', '--data=x'],
      ['--data', 'x', 'm', 'n'],
      ['m', '--data'],
      ['m', '--data', '--json'],
      ['m', '--data', '-'],
      ['m', '--data=-x'],
      ['m', '--data', '-x'],
      ['m', '--json=1'],
      ['m', '--json'],
      ['m', '--bogus'],
      ['m', '--bogus=1'],
      ['m', '-x'],
      ['m', '--', '--bogus', '-x'],
      ['-jd', 'x', 'm'],
      ['-dj', 'm'],
      ['-d'],
      ['-jx'],
      ['--prompt', 'a', '--prompt', 'b'],
      ['--prompt'],
      ['--base', 'b', 'm'],
      [],
      ['-'],
    ];
    for (const argv of lines) expect(ours(argv), argv.join(' ')).toEqual(strictParse(argv));
  });

  it('names the command and the flag, in words a user can act on', () => {
    const problem = (argv: string[]): string => {
      try {
        parseCommandLine(argv, spec);
      } catch (error) {
        if (error instanceof UsageError) {
          expect(error.exitCode).toBe(2);
          expect(error.command).toBe('demo');
          expect(error.message).toBe(`demo: ${error.problem}\nsee 'mlrb-eval demo --help'`);
          return error.problem;
        }
        throw error;
      }
      throw new Error(`${argv.join(' ')} was accepted`);
    };
    expect(problem(['m', '--bogus'])).toBe('unknown flag --bogus');
    expect(problem(['m', '-x'])).toBe('unknown flag -x');
    expect(problem(['m', '--data'])).toBe('--data needs a value');
    expect(problem(['m', '--json=yes'])).toBe('--json takes no value');
    expect(problem(['m', '--data', '--json'])).toBe('--data needs a value ("--json" looks like a flag; write --data=--json if it is the value)');
  });

  it('points the default command (eval, typed as `mlrb-eval MODEL …`) to the bare `mlrb-eval --help`', () => {
    expect(() => parseCommandLine(['m', '--bogus'], { ...spec, command: 'eval' })).toThrow(/^eval: unknown flag --bogus\nsee 'mlrb-eval --help'$/);
  });

  it('words the schema refusals by flag, and keeps a message that already names its flag', () => {
    const schema = z.object({
      threads: z.coerce.number().int().nonnegative().optional(),
      provider: z.enum(['cpu', 'cuda'], { error: '--provider expects cpu or cuda' }).optional(),
    });
    const flags = { threads: { type: 'string' }, provider: { type: 'string' } } as const;
    expect(() => parseCommandLine(['--threads', 'many'], { command: 'demo', flags, schema })).toThrow(/^demo: --threads: /);
    expect(() => parseCommandLine(['--provider', 'tpu'], { command: 'demo', flags, schema })).toThrow(/^demo: --provider expects cpu or cuda\n/);
    expect(() => parseCommandLine(['--provider', 'tpu', '--threads', '1.5'], { command: 'demo', flags, schema })).toThrow(
      /^demo: --threads: .*; --provider expects cpu or cuda\n/,
    );
  });

  it('--help or -h anywhere before `--` wins over any mistake; after `--` it is a positional', () => {
    for (const argv of [['--help'], ['-h'], ['m', '--bogus', '--help'], ['m', '--data', '--json=1', '-h'], ['-jh'], ['--help=1']]) {
      expect(parseCommandLine(argv, spec), argv.join(' ')).toEqual({ help: true });
    }
    expect(parseCommandLine(['m', '--', '--help'], spec)).toMatchObject({ help: false, positionals: ['m', '--help'] });
  });
});
