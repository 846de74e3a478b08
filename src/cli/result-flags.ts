/**
 * The flags that say where results go (--output, --output-path, --log-samples, --show-breakdowns). The eval
 * command and merge both take them, so a merged run is written exactly as an unsharded one would be.
 */
import path from 'node:path';
import { z } from 'zod';
import { isWrittenInto } from '../io/result-output.js';
import { flag, type FlagValues, switchFlag } from './flag-table.js';
import { UsageError } from './exit-error.js';

export interface EvalOutputs {
  /** --output FILE: the results JSON at exactly that path. */
  readonly output?: string;
  /** --output-path PATH: lm-eval's layout (src/cli/lm-eval-output.ts). */
  readonly outputPath?: string;
  /** --log-samples FILE (without --output-path): every task's records in one JSON-lines file. */
  readonly samplesFile?: string;
  /** --log-samples with --output-path: lm-eval's per-task samples files. */
  readonly samplesBesideResults: boolean;
}

/** lm-eval's --log_samples is a switch that puts samples beside --output_path; ours alone names a file. */
const samplesAreSwitch = (argv: readonly string[]): boolean => argv.some((arg) => arg === '--output-path' || arg.startsWith('--output-path='));

/** The four flags, in the order usage lists them. */
export const RESULT_FLAGS = [
  flag({ name: 'output', kind: 'string', value: z.string().optional(), placeholder: 'FILE', help: 'write lm-eval-compatible results JSON to FILE' }),
  flag({
    name: 'output-path',
    kind: 'string',
    value: z.string().optional(),
    placeholder: 'PATH',
    help: 'as lm-eval: PATH/<model>/results_<date>.json (or PATH_<date>.json for a .json PATH); with --log-samples, samples_<task>_<date>.jsonl beside it',
  }),
  flag({
    name: 'log-samples',
    kind: 'string',
    value: z.union([z.string(), z.boolean()]).optional(),
    placeholder: 'FILE',
    help: 'write per-document records as JSON lines (a switch with --output-path)',
    switchWhen: samplesAreSwitch,
  }),
  switchFlag('show-breakdowns', "also print BLiMP's tables by field and linguistics_term"),
] as const;

type ResultFlagValues = FlagValues<typeof RESULT_FLAGS>;

export function outputsFromFlags(command: string, values: ResultFlagValues): EvalOutputs {
  if (values.output !== undefined && values['output-path'] !== undefined) throw new UsageError(command, 'give --output FILE or --output-path PATH, not both');
  const logSamples = values['log-samples'];
  // Both are written whole, the samples last: the results JSON would be silently replaced by the samples (a
  // device such as /dev/null takes both).
  if (values.output !== undefined && typeof logSamples === 'string' && path.resolve(values.output) === path.resolve(logSamples) && !isWrittenInto(logSamples)) {
    throw new UsageError(command, `--output and --log-samples name the same file (${values.output}); give the samples a file of their own`);
  }
  return {
    ...(values.output !== undefined ? { output: values.output } : {}),
    ...(values['output-path'] !== undefined ? { outputPath: values['output-path'] } : {}),
    ...(typeof logSamples === 'string' ? { samplesFile: logSamples } : {}),
    samplesBesideResults: logSamples === true,
  };
}
