/** An expected exit with a code and a message for the user (bad flags, --strict violations …). */
export class ExitError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'ExitError';
  }
}

/**
 * A command line the command cannot run (exit 2). Every command words it the same way: the command, what is
 * wrong (naming the flag), and where the right way is, rather than the whole usage text, which would bury the
 * one line that matters.
 */
export class UsageError extends ExitError {
  constructor(
    /** The name in `mlrb-eval NAME …` (`eval` for `mlrb-eval MODEL …`). */
    readonly command: string,
    /** What is wrong, without the command's name or the pointer to --help. */
    readonly problem: string,
  ) {
    super(2, `${command}: ${problem}\nsee '${helpCommandLine(command)}'`);
    this.name = 'UsageError';
  }
}

/**
 * The command line that prints a command's usage. The default command's is the bare `mlrb-eval --help`, which
 * opens with eval's usage: its users type `mlrb-eval MODEL …`, never the word `eval`.
 */
function helpCommandLine(command: string): string {
  return command === 'eval' ? 'mlrb-eval --help' : `mlrb-eval ${command} --help`;
}

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}
