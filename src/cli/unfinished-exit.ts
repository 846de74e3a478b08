/**
 * The CLI's word on an exit that comes before the command's own. Node ends the process once nothing is left to
 * wait for, so a native promise that never settles ends a run with at most node's terse warning about an
 * unsettled top-level await (exit code 13), and a library that calls process.exit() ends it with nothing at
 * all, possibly with status 0 and no results. Deaths by a signal cannot be seen from here; the addon reports
 * those itself (native/addon/fatal_signal_report.h).
 */

/** The status of an exit that would otherwise claim success: the CLI's internal-error code (cli/main.ts). */
const UNFINISHED_EXIT_CODE = 70;

/** Until the returned function is called, an exit of the process writes one line to `stderr` and never reads as success. */
export function warnOnUnfinishedExit(stderr: NodeJS.WritableStream): () => void {
  const onExit = (code: number): void => {
    // Synchronous, as nothing asynchronous runs any more: process.stderr writes to files, terminals and (on
    // Linux) pipes synchronously. The code node passes here is not yet 13 for an unsettled await, so the
    // message names both ways of getting here.
    stderr.write(
      'mlrb-eval: internal error: the process is exiting before the command finished: it was left waiting on work ' +
        'that never completes, or something called process.exit(). Please report it with the command.\n',
    );
    if (code === 0) process.exitCode = UNFINISHED_EXIT_CODE;
  };
  process.once('exit', onExit);
  return () => {
    process.off('exit', onExit);
  };
}
