/**
 * `mlrb-eval check-track TRACK MODEL`: one verdict for an Edge-LLM track (quantization, DRAM and, for
 * edge-compression, pruning against Phi-2 or --base). Exit 0, or 1 with --strict when the verdict fails,
 * 2 for bad usage. Runtime failures propagate as MlrbError to the CLI's one error boundary.
 */
import { z } from 'zod';
import { checkTrack } from '../inspect/track/track-check.js';
import { formatTrackReport } from '../inspect/track/format.js';
import type { DramProbeProgress } from '../inspect/dram/measure.js';
import { TRACK_NAMES, type TrackCheckProgress } from '../inspect/track/options.js';
import { formatCount } from '../inspect/units.js';
import { resolveModelFile } from '../model/model-path.js';
import { byteSizeOption, dramProviderOption, onlyModel } from './command-args.js';
import { parseCommandLine, printUsage, type FlagConfig } from './command-line.js';
import { UsageError, type CliIo } from './exit-error.js';
import { commandStatus, formatDuration, QUIET_FLAG, type CommandStatus } from './progress.js';

export const CHECK_TRACK_USAGE = `usage: mlrb-eval check-track ${TRACK_NAMES.join('|')} MODEL [options]
  edge-compression: no quantization, DRAM within 12 GB, structurally pruned from Phi-2 (or --base)
  edge-training:    no quantization, DRAM within 1 GB
  --base BASE           edge-compression: the base ONNX model or its config.json (default: Phi-2's config)
  --json                print the report as JSON
  --strict              exit 1 when the verdict is FAIL
  --provider P          where DRAM is measured: cpu (default, peak RSS) or cuda (peak device memory)
  --skip-dram           do not measure DRAM: judge the estimate (the verdict then warns)
  --dram-budget BYTES   operator override of the track's DRAM limit (e.g. 8GB, 1.5GiB)
  --threads N           threads for ONNX Runtime and the zero scan
  --ort-library PATH    ONNX Runtime shared library to use
  --quiet               no progress on stderr: the report, warnings and errors only
`;

const FLAGS: FlagConfig = {
  base: { type: 'string' },
  json: { type: 'boolean' },
  strict: { type: 'boolean' },
  provider: { type: 'string' },
  'skip-dram': { type: 'boolean' },
  'dram-budget': { type: 'string' },
  threads: { type: 'string' },
  'ort-library': { type: 'string' },
  ...QUIET_FLAG,
};

const optionsSchema = z.object({
  base: z.string().min(1).optional(),
  json: z.boolean().default(false),
  strict: z.boolean().default(false),
  provider: dramProviderOption,
  'skip-dram': z.boolean().default(false),
  'dram-budget': byteSizeOption.optional(),
  threads: z.coerce.number().int().nonnegative().optional(),
  'ort-library': z.string().min(1).optional(),
  quiet: z.boolean().default(false),
});

export async function runCheckTrackCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const line = parseCommandLine(argv, { command: 'check-track', schema: optionsSchema, flags: FLAGS });
  if (line.help) return printUsage(io, CHECK_TRACK_USAGE);
  // The first positional is the track and the second the model, wherever the flags sit.
  const [track, ...rest] = line.positionals;
  const knownTrack = TRACK_NAMES.find((name) => name === track);
  // Checked before MODEL, so `check-track model.onnx` says the track is missing rather than the model.
  if (knownTrack === undefined) {
    throw new UsageError('check-track', `expected a track first (${TRACK_NAMES.join(' or ')}), got ${track === undefined ? 'none' : JSON.stringify(track)}`);
  }
  const model = onlyModel('check-track', rest);
  const o = line.options;

  const report = await checkTrack(knownTrack, resolveModelFile(model), {
    ...(o.base !== undefined ? { base: o.base } : {}),
    ...(o['dram-budget'] !== undefined ? { dramBudgetBytes: o['dram-budget'] } : {}),
    measureDram: !o['skip-dram'],
    provider: o.provider,
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
    ...(o['ort-library'] !== undefined ? { ortLibrary: o['ort-library'] } : {}),
    ...(o.quiet ? {} : { onProgress: trackProgress(commandStatus(io, { quiet: false }), knownTrack) }),
  });
  io.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : formatTrackReport(report));
  return o.strict && report.verdict.status === 'fail' ? 1 : 0;
}

/** check-track's progress as notes: each check as it starts, and the DRAM measurement's stages with their times. */
export function trackProgress(status: CommandStatus, track: string): (progress: TrackCheckProgress) => void {
  return (progress) => {
    if (progress.check === 'pruning') status.note(`check-track ${track}: comparing the graph with its base (pruning)`);
    else if (progress.check === 'graph') status.note(`check-track ${track}: reading the graph (quantization, parameters, DRAM estimate)`);
    else dramProbeProgress(status)(progress);
  };
}

/** The DRAM measurement's stages as notes, probe by probe (check-track, inspect, mlrb's edge tasks). */
export function dramProbeProgress(status: CommandStatus): (progress: DramProbeProgress) => void {
  return (progress) => {
    const which = `DRAM probe ${progress.index} of ${progress.count} (${progress.probe})`;
    if (progress.stage === 'loading')
      status.note(`${which}: loading the model as submitted in a child process, for one ${formatCount(progress.tokens)}-token pass`);
    else if (progress.stage === 'running')
      status.note(`${which}: loaded in ${formatDuration(progress.elapsedMs)}; running the ${formatCount(progress.tokens)}-token pass`);
    else status.note(`${which}: measured in ${formatDuration(progress.elapsedMs)}`);
  };
}
