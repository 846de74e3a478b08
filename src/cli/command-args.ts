/**
 * Flag parsing shared by the `MODEL [options]` subcommands: node's parseArgs for the syntax, then the
 * command's zod schema for the values. Usage mistakes become ExitError(2) carrying the usage text, which
 * the CLI's one error boundary prints.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { DRAM_PROVIDERS } from '../inspect/dram-probe-protocol.js';
import { parseByteSize } from '../inspect/units.js';
import { ExitError } from './exit-error.js';

export interface ModelCommandSpec<Schema extends z.ZodType> {
  /** e.g. `inspect`, for messages. */
  readonly command: string;
  readonly usage: string;
  readonly flags: NonNullable<ParseArgsConfig['options']>;
  readonly schema: Schema;
}

export type ParsedModelCommand<Schema extends z.ZodType> =
  | { readonly help: true }
  | { readonly help: false; readonly model: string; readonly options: z.output<Schema> };

export function parseModelCommand<Schema extends z.ZodType>(argv: readonly string[], spec: ModelCommandSpec<Schema>): ParsedModelCommand<Schema> {
  const usageError = (message: string): ExitError => new ExitError(2, `${spec.command}: ${message}\n${spec.usage}`);
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: { ...spec.flags, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const { help, ...values } = parsed.values;
  if (help === true) return { help: true };
  const [model, ...extra] = parsed.positionals;
  if (model === undefined || extra.length > 0) throw usageError('expected exactly one MODEL path');
  const options = spec.schema.safeParse(values);
  if (!options.success) throw usageError(z.prettifyError(options.error));
  return { help: false, model, options: options.data };
}

/**
 * For `COMMAND NAME MODEL [options]` (check-track's track, mlrb's task): the first positional taken out of argv
 * wherever the flags sit, and whether --help was given. parseArgs finds the positional tokens (a flag's value is
 * never one); the rest goes to parseModelCommand, which reports any syntax mistake, so none is reported here.
 */
export function takeLeadingPositional(
  argv: readonly string[],
  flags: NonNullable<ParseArgsConfig['options']>,
): { readonly value: string | undefined; readonly help: boolean; readonly rest: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: { ...flags, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: false, tokens: true });
  } catch {
    return { value: undefined, help: false, rest: [...argv] };
  }
  const help = parsed.values.help === true;
  const first = parsed.tokens.find((token) => token.kind === 'positional');
  if (first === undefined) return { value: undefined, help, rest: [...argv] };
  return { value: first.value, help, rest: argv.filter((_, index) => index !== first.index) };
}

/** A byte size flag (`12GB`, `1.5GiB`, `1000000000`); the parser's message becomes the usage error. */
export const byteSizeOption = z.string().transform((text, context) => {
  try {
    return parseByteSize(text);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

/** Where a DRAM measurement runs; 'auto' is not offered: a measurement must say where it ran. */
export const dramProviderOption = z
  .enum(DRAM_PROVIDERS, { error: (issue) => `--provider expects ${DRAM_PROVIDERS.join(', ')}, got ${JSON.stringify(issue.input)}` })
  .default('cpu');

/**
 * lm-eval spells its flags with underscores (`--num_fewshot`, `--output_path`); every flag here accepts both
 * spellings, so a command line copied from an lm-eval run works. Only the name before any `=` changes, and
 * nothing after a lone `--`.
 */
export function normalizeFlagSpelling(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, index) => {
    if ((end !== -1 && index >= end) || !arg.startsWith('--')) return arg;
    const equals = arg.indexOf('=');
    const name = equals === -1 ? arg : arg.slice(0, equals);
    return name.replaceAll('_', '-') + (equals === -1 ? '' : arg.slice(equals));
  });
}
