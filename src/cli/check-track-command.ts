/**
 * `mlrb-eval check-track TRACK MODEL`: one verdict for an Edge-LLM track (quantization, DRAM and, for
 * edge-compression, pruning against Phi-2 or --base). Exit 0, or 1 with --strict when the verdict fails,
 * 2 for bad usage. Runtime failures propagate as MlrbError to the CLI's one error boundary.
 */
import { checkTrack } from '../inspect/track/track-check.js';
import { formatTrackReport } from '../inspect/track/format.js';
import type { DramProbeProgress } from '../inspect/dram/measure.js';
import { TRACK_NAMES, type TrackCheckProgress } from '../inspect/track/options.js';
import { formatCount } from '../inspect/units.js';
import { resolveModelFile } from '../model/model-path.js';
import { onlyModel } from './command-args.js';
import { parseCommandLine, printUsage } from './command-line.js';
import { BASE, DRAM_BUDGET, DRAM_PROVIDER, JSON_REPORT, ORT_LIBRARY, QUIET, SKIP_DRAM, STRICT, THREADS } from './common-flags.js';
import { commandUsage, tableSpec, withHelp } from './flag-table.js';
import { UsageError, type CliIo } from './exit-error.js';
import { commandStatus, formatDuration, type CommandStatus } from './progress.js';

const CHECK_TRACK_FLAGS = [
  BASE,
  JSON_REPORT,
  withHelp(STRICT, 'exit 1 when the verdict is FAIL'),
  DRAM_PROVIDER,
  SKIP_DRAM,
  DRAM_BUDGET,
  withHelp(THREADS, 'threads for ONNX Runtime and the zero scan'),
  ORT_LIBRARY,
  withHelp(QUIET, 'no progress on stderr: the report, warnings and errors only'),
] as const;

export const CHECK_TRACK_USAGE = commandUsage({
  synopsis: `usage: mlrb-eval check-track ${TRACK_NAMES.join('|')} MODEL [options]`,
  operands: [
    ['edge-compression', 'no quantization, DRAM within 12 GB, structurally pruned from Phi-2 (or --base)'],
    ['edge-training', 'no quantization, DRAM within 1 GB'],
  ],
  flags: CHECK_TRACK_FLAGS,
});

export async function runCheckTrackCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const line = parseCommandLine(argv, tableSpec('check-track', CHECK_TRACK_FLAGS, argv));
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
    measureDram: o['skip-dram'] !== true,
    provider: o.provider,
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
    ...(o['ort-library'] !== undefined ? { ortLibrary: o['ort-library'] } : {}),
    ...(o.quiet ? {} : { onProgress: trackProgress(commandStatus(io, { quiet: false }), knownTrack) }),
  });
  io.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : formatTrackReport(report));
  return o.strict === true && report.verdict.status === 'fail' ? 1 : 0;
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
