/**
 * What the `MODEL [options]` commands share: one MODEL among the positionals, and the option types several
 * commands take. The line itself is read by parseCommandLine (src/cli/command-line.ts).
 */
import { z } from 'zod';
import { DRAM_PROVIDERS } from '../inspect/dram-probe-protocol.js';
import { parseByteSize } from '../inspect/units.js';
import { parseCommandLine, type CommandSpec } from './command-line.js';
import { UsageError } from './exit-error.js';

export type ModelCommandLine<Schema extends z.ZodType> =
  | { readonly help: true }
  | { readonly help: false; readonly model: string; readonly options: z.output<Schema> };

/** `COMMAND MODEL [options]`: the command line with its one MODEL taken out. */
export function parseModelCommand<Schema extends z.ZodType>(argv: readonly string[], spec: CommandSpec<Schema>): ModelCommandLine<Schema> {
  const line = parseCommandLine(argv, spec);
  if (line.help) return line;
  return { help: false, model: onlyModel(spec.command, line.positionals), options: line.options };
}

/** The MODEL when it is the only positional left; anything else is a usage error. */
export function onlyModel(command: string, positionals: readonly string[]): string {
  const [model, ...extra] = positionals;
  if (model === undefined || extra.length > 0) throw new UsageError(command, 'expected exactly one MODEL path (an .onnx file or its folder)');
  return model;
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

/**
 * lm-eval's `--limit`: a count of documents per task, or below 1 that fraction of each task. A negative or zero
 * value says so in those words (`--limit -3` used to be read as a flag, and the hint offered `--limit=-3`).
 */
export const limitOption = z.string().transform((text, context) => {
  const value = /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(value)) context.addIssue({ code: 'custom', message: `--limit expects a count or a fraction below 1, got ${JSON.stringify(text)}` });
  else if (value <= 0) context.addIssue({ code: 'custom', message: `--limit must be above 0 (a count of documents, or a fraction below 1), got ${text}` });
  return value;
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
