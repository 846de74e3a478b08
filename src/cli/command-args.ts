/**
 * What the `MODEL [options]` commands share: one MODEL among the positionals, and lm-eval's underscore spellings.
 * The line itself is read by parseCommandLine (src/cli/command-line.ts); the flags are declared in tables
 * (src/cli/flag-table.ts).
 */
import type { z } from 'zod';
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
