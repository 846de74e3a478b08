/**
 * The CLI's one error boundary: commands throw, and only here do errors become messages and exit codes.
 * Exit codes: 0 success, 1 runtime failure (MlrbError), 2 usage error, others as a command's ExitError says.
 */
import { MlrbError } from '../errors.js';
import { openBuiltInGenerator, type OpenTextGenerator } from '../math-reasoning/generator-source.js';
import { EVAL_USAGE, runEvalCommand } from './eval-command.js';
import { ExitError, type CliIo } from './exit-error.js';
import { warnOnUnfinishedExit } from './unfinished-exit.js';

/** What commands get from outside: the text-generation engine, so it is plugged in (or faked) in one place. */
export interface CliServices {
  readonly openGenerator: OpenTextGenerator;
}

const BUILT_IN_SERVICES: CliServices = { openGenerator: openBuiltInGenerator };

type Command = (argv: readonly string[], io: CliIo, services: CliServices) => Promise<number>;

// Subcommands load lazily so `mlrb-eval MODEL --suite …` never pays for the inspect code, and vice versa.
const SUBCOMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  eval: async () => runEvalCommand,
  inspect: async () => (await import('./inspect-command.js')).runInspectCommand,
  'check-pruning': async () => (await import('./check-pruning-command.js')).runCheckPruningCommand,
  'check-track': async () => (await import('./check-track-command.js')).runCheckTrackCommand,
  cache: async () => (await import('./cache-command.js')).runCacheCommand,
  mlrb: async () => async (argv, io, services) => (await import('./mlrb-command.js')).runMlrbCommand(argv, io, services.openGenerator),
  'math-reasoning': async () => async (argv, io, services) =>
    (await import('./math-reasoning-command.js')).runMathReasoningCommand(argv, io, services.openGenerator),
  merge: async () => (await import('./merge-command.js')).runMergeCommand,
  report: async () => (await import('./report-command.js')).runReportCommand,
  'model-metrics': async () => async (argv, io) => (await import('./model-metrics-command.js')).runModelMetricsCommand(argv, io),
  generate: async () => async (argv, io) => (await import('./generate-command.js')).runGenerateCommand(argv, io),
};

/** The words `mlrb-eval WORD …` runs as a command of its own; anything else is a MODEL for the default command. */
export const SUBCOMMAND_NAMES: readonly string[] = Object.keys(SUBCOMMANDS);

const USAGE = `${EVAL_USAGE}

other commands:
  mlrb-eval inspect MODEL [--json] [--track edge-training|edge-compression | --dram-budget BYTES] [--strict] …
  mlrb-eval check-pruning MODEL --base BASE [--json] [--strict] …
  mlrb-eval check-track edge-compression|edge-training MODEL [--base BASE] [--json] [--strict] …
  mlrb-eval cache info|clear [--use-cache DIR]
  mlrb-eval mlrb TASK MODEL [--data DIR] [--agent NAME] [--output FILE] …
  mlrb-eval math-reasoning MODEL --data FILE.jsonl [--lean PATH] [--output FILE] …
  mlrb-eval merge SHARD.json… [--output FILE | --output-path PATH] [--allow-partial] …
  mlrb-eval report RUN.json… [--out DIR] [--include-partial]
  mlrb-eval model-metrics MODEL [--data-dir DIR | --text FILE] [--only perplexity,tokens-per-second,latency] …
  mlrb-eval generate MODEL --prompt TEXT… [--max-new-tokens N] [--stop S]… [--temperature T --top-k K --seed S] [--output FILE] …
  mlrb-eval --version
  (each command's --help lists its options)`;

/** The bin's entry: main() on the process's own streams, with a line on stderr should the process exit first. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const finished = warnOnUnfinishedExit(process.stderr);
  try {
    return await main(argv);
  } finally {
    finished();
  }
}

export async function main(
  argv: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
  services: CliServices = BUILT_IN_SERVICES,
): Promise<number> {
  try {
    const [first, ...rest] = argv;
    if (first === undefined || first === '--help' || first === '-h') {
      io.stdout.write(`${USAGE}\n`);
      return first === undefined ? 2 : 0;
    }
    if (first === '--version') {
      const { toolVersion } = await import('../io/fingerprint.js');
      io.stdout.write(`${toolVersion()}\n`);
      return 0;
    }
    const subcommand = SUBCOMMANDS[first];
    if (subcommand) return await (await subcommand())(rest, io, services);
    return await runEvalCommand(argv, io);
  } catch (error: unknown) {
    return reportFailure(error, io);
  }
}

function reportFailure(error: unknown, io: CliIo): number {
  if (error instanceof ExitError) {
    io.stderr.write(`mlrb-eval: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof MlrbError) {
    io.stderr.write(`mlrb-eval: error [${error.code}]: ${error.message}\n`);
    return 1;
  }
  if (error instanceof TypeError || error instanceof RangeError) {
    // The library's option errors (zod) are TypeErrors, an unknown task a RangeError: the caller's mistake.
    io.stderr.write(`mlrb-eval: ${error.message}\n`);
    return 2;
  }
  io.stderr.write(`mlrb-eval: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 70;
}
