/**
 * The one way a command reads its command line. node's parseArgs finds the tokens; the checks that its strict
 * mode would make are made here instead, so that every mistake is a UsageError naming the command and the
 * flag in the same words (strict mode's messages are written for programmers and name no command); then the
 * command's zod schema reads the values. `--help` or `-h` anywhere before `--` wins over any mistake: whoever
 * asks how a command is called gets the answer, not an error about the line being fixed.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { z } from 'zod';
import { UsageError, type CliIo } from './exit-error.js';

export type FlagConfig = NonNullable<ParseArgsConfig['options']>;

export interface CommandSpec<Schema extends z.ZodType> {
  /** The name in `mlrb-eval NAME …`, which every usage error names. */
  readonly command: string;
  /** The flags' syntax (string or boolean, repeatable), derived from the command's flag table (flag-table.ts); --help is added to every command. */
  readonly flags: FlagConfig;
  /** Reads the flags' values; its refusals become usage errors naming the flag. */
  readonly schema: Schema;
}

export type CommandLine<Schema extends z.ZodType> =
  | { readonly help: true }
  | { readonly help: false; readonly positionals: readonly string[]; readonly options: z.output<Schema> };

const HELP_FLAG = { help: { type: 'boolean', short: 'h' } } as const satisfies FlagConfig;

export function parseCommandLine<Schema extends z.ZodType>(argv: readonly string[], spec: CommandSpec<Schema>): CommandLine<Schema> {
  // Non-strict parsing splits the line into the same tokens strict parsing does; it only skips the checks.
  const { values, positionals, tokens } = parseArgs({
    args: [...argv],
    options: { ...spec.flags, ...HELP_FLAG },
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const flags = tokens.filter((token) => token.kind === 'option');
  if (flags.some((token) => token.name === 'help')) return { help: true };
  for (const token of flags) {
    const problem = flagProblem(token, spec.flags);
    if (problem !== undefined) throw new UsageError(spec.command, problem);
  }
  const options = spec.schema.safeParse(values);
  if (!options.success) throw new UsageError(spec.command, describeIssues(options.error));
  return { help: false, positionals, options: options.data };
}

/** A command's answer to --help: its usage on stdout, exit 0. */
export function printUsage(io: CliIo, usage: string): number {
  io.stdout.write(`${usage.trimEnd()}\n`);
  return 0;
}

type FlagToken = Extract<NonNullable<ReturnType<typeof parseArgs>['tokens']>[number], { kind: 'option' }>;

/** What strict parsing would refuse in one flag, in words that name it; undefined when it is well formed. */
function flagProblem(token: FlagToken, flags: FlagConfig): string | undefined {
  const type = Object.hasOwn(flags, token.name) ? flags[token.name]?.type : undefined;
  if (type === undefined) return `unknown flag ${token.rawName}`;
  if (type === 'boolean') return token.value === undefined ? undefined : `${token.rawName} takes no value`;
  if (token.value === undefined) return `${token.rawName} needs a value`;
  // As strict parsing does: `--data --json` more likely forgot the value than means a folder named "--json". A
  // negative number is a value, though (`--limit -3`): the flag's own check then says what it accepts.
  if (!token.inlineValue && token.value.length > 1 && token.value.startsWith('-') && !/^-(\d|\.\d)/.test(token.value)) {
    return `${token.rawName} needs a value (${JSON.stringify(token.value)} looks like a flag; write --${token.name}=${token.value} if it is the value)`;
  }
  return undefined;
}

/** Each schema refusal, named by its flag unless its message already names it. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const [flag] = issue.path;
      return typeof flag === 'string' && !issue.message.includes(`--${flag}`) ? `--${flag}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
