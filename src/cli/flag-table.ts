/**
 * Each flag is declared once, as an entry of a command's flag table: its name, whether it takes a value, the
 * zod schema of that value, the value's placeholder and one help line. The table yields the three things a
 * command needs, so they cannot drift apart: node parseArgs's flag syntax (for parseCommandLine), the zod object
 * that reads the values, and the options section of the command's usage. Flags several commands take are
 * entries of src/cli/common-flags.ts, shared; a command may give a shared flag a help line of its own
 * (withHelp), never another syntax or value.
 */
import { z } from 'zod';
import type { CommandSpec, FlagConfig } from './command-line.js';

export interface FlagEntry<Name extends string = string, Value extends z.ZodType = z.ZodType> {
  readonly name: Name;
  /** A switch, a flag with one value, or one whose values gather into a list. */
  readonly kind: 'boolean' | 'string' | 'repeatable';
  /** Reads the flag's value (a string, a string list or a boolean, undefined when the flag is absent). */
  readonly value: Value;
  /** What usage shows after the flag (`N`, `FILE`); a switch has none. */
  readonly placeholder?: string;
  /** One help line; usage wraps it (and says "(repeatable)" for a repeatable flag). */
  readonly help: string;
  readonly short?: string;
  /** A value flag that is a switch on the lines where this holds (lm-eval's --log_samples, see result-flags.ts). */
  readonly switchWhen?: (argv: readonly string[]) => boolean;
}

export type FlagTable = readonly FlagEntry[];

/** The values a table reads, keyed by flag name. */
export type FlagShape<Table extends FlagTable> = { [Entry in Table[number] as Entry['name']]: Entry['value'] };
export type FlagSchema<Table extends FlagTable> = z.ZodObject<FlagShape<Table>, z.core.$strict>;
export type FlagValues<Table extends FlagTable> = z.output<FlagSchema<Table>>;

/** A flag entry, typed by its name and value so that a command's values are typed by its table. */
export function flag<const Name extends string, Value extends z.ZodType>(entry: FlagEntry<Name, Value>): FlagEntry<Name, Value> {
  return entry;
}

/** A switch: true when given, undefined when not (so "was it given" stays a question commands can ask). */
export function switchFlag<const Name extends string>(name: Name, help: string) {
  return flag({ name, kind: 'boolean', value: z.boolean().optional(), help });
}

/** A shared flag with the help line of one command (what that command does with it). */
export function withHelp<Entry extends FlagEntry>(entry: Entry, help: string): Entry {
  return { ...entry, help };
}

/** A second spelling of a flag (lm-eval's and ours): the same syntax and value, listed as its own usage line. */
export function sameAs<const Name extends string, Value extends z.ZodType>(entry: FlagEntry<string, Value>, name: Name): FlagEntry<Name, Value> {
  const { switchWhen: _, ...rest } = entry;
  return { ...rest, name, help: `the same as --${entry.name}` };
}

/** node parseArgs's syntax for the flags on this line (a switch-or-value flag depends on the line). */
export function flagConfig(table: FlagTable, argv: readonly string[]): FlagConfig {
  const names = table.map((entry) => entry.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new Error(`flag table declares --${twice} twice`);
  return Object.fromEntries(
    table.map((entry) => {
      const type = entry.kind === 'boolean' || entry.switchWhen?.(argv) === true ? 'boolean' : 'string';
      return [entry.name, { type, ...(entry.kind === 'repeatable' ? { multiple: true } : {}), ...(entry.short !== undefined ? { short: entry.short } : {}) }];
    }),
  );
}

/** The zod object that reads the table's values. */
export function flagSchema<const Table extends FlagTable>(table: Table): FlagSchema<Table> {
  return z.strictObject(Object.fromEntries(table.map((entry) => [entry.name, entry.value]))) as unknown as FlagSchema<Table>;
}

/** A command's whole line spec from its table: what parseCommandLine (and parseModelCommand) read. */
export function tableSpec<const Table extends FlagTable>(command: string, table: Table, argv: readonly string[]): CommandSpec<FlagSchema<Table>> {
  return { command, flags: flagConfig(table, argv), schema: flagSchema(table) };
}

/** The width usage text wraps at. */
const USAGE_WIDTH = 100;

export interface UsageText {
  /** The `usage: …` line(s), as written. */
  readonly synopsis: string;
  /** The positionals (MODEL, TASK …) and what they are, aligned with the flags. */
  readonly operands?: readonly (readonly [string, string])[];
  readonly flags: FlagTable;
  /** Paragraphs after the options. */
  readonly notes?: readonly string[];
}

/** A command's usage: its synopsis, then its operands and flags in two columns, help wrapped at 100 characters. */
export function commandUsage({ synopsis, operands = [], flags, notes = [] }: UsageText): string {
  const rows = [...operands, ...flags.map((entry) => [flagLabel(entry), entry.kind === 'repeatable' ? `${entry.help} (repeatable)` : entry.help] as const)];
  const column = 2 + Math.max(...rows.map(([label]) => label.length)) + 2;
  const lines = rows.map(([label, help]) => `  ${label.padEnd(column - 2)}${wrap(help, column)}`);
  const paragraphs = notes.map((note) => `  ${wrap(note, 2)}`);
  return [synopsis, '', ...lines, ...paragraphs].join('\n');
}

/** `--name PLACEHOLDER`, or `--name` for a switch. */
function flagLabel(entry: FlagEntry): string {
  return entry.placeholder === undefined ? `--${entry.name}` : `--${entry.name} ${entry.placeholder}`;
}

/** Text wrapped at word boundaries to the usage width, continuation lines indented to `indent`. */
export function wrap(text: string, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && indent + line.length + 1 + word.length > USAGE_WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}
