/**
 * `mlrb-eval inspect MODEL`: metadata, no-quantization check and DRAM footprint, with a verdict against an
 * edge track or budget. Exit 0, or 1 with --strict when the verdict fails, 2 for bad usage. Runtime
 * failures (unreadable model …) propagate as MlrbError to the CLI's one error boundary.
 */
import { z } from 'zod';
import { EDGE_TRACKS, type EdgeTrack } from '../inspect/dram/dram-check.js';
import { checkEdgeModel } from '../inspect/edge-check.js';
import { formatEdgeReport } from '../inspect/report/format.js';
import { resolveModelGraphs } from '../model/model-path.js';
import { formatSeq2SeqEdgeReport } from '../inspect/report/format-seq2seq.js';
import { checkSeq2SeqEdgeModel } from '../inspect/seq2seq-edge-check.js';
import { parseModelCommand } from './command-args.js';
import { printUsage } from './command-line.js';
import { BF16, DRAM_BUDGET, DRAM_PROVIDER, JSON_REPORT, ORT_LIBRARY, positiveCount, QUIET, STRICT, THREADS } from './common-flags.js';
import { commandUsage, flag, tableSpec, withHelp, switchFlag } from './flag-table.js';
import { UsageError, type CliIo } from './exit-error.js';
import { dramProbeProgress } from './check-track-command.js';
import { commandStatus } from './progress.js';

const INSPECT_FLAGS = [
  JSON_REPORT,
  STRICT,
  switchFlag('tensors', 'list every tensor'),
  flag({
    name: 'track',
    kind: 'string',
    value: z.enum(Object.keys(EDGE_TRACKS) as [EdgeTrack, ...EdgeTrack[]]).optional(),
    placeholder: 'NAME',
    help: `judge DRAM against a track: ${Object.keys(EDGE_TRACKS).join(' | ')}`,
  }),
  withHelp(DRAM_BUDGET, 'judge DRAM against a budget (e.g. 12GB, 1.5GiB, 1000000000)'),
  flag({
    name: 'context',
    kind: 'string',
    value: positiveCount.optional(),
    placeholder: 'N',
    help: "tokens for the estimate and the measurement (default 2000, never config.json's)",
  }),
  switchFlag('measure', 'measure peak RSS in a child process (default when a budget is set)'),
  withHelp(DRAM_PROVIDER, 'where the measurement runs: cpu (default, peak RSS) or cuda (peak device memory, which the verdict then judges)'),
  switchFlag('estimate-only', 'never measure'),
  BF16,
  withHelp(THREADS, 'ONNX Runtime threads for the measurement'),
  ORT_LIBRARY,
  withHelp(QUIET, 'no progress of the measurement on stderr'),
] as const;

export const INSPECT_USAGE = commandUsage({ synopsis: 'usage: mlrb-eval inspect MODEL [options]', flags: INSPECT_FLAGS });

export async function runInspectCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseModelCommand(argv, tableSpec('inspect', INSPECT_FLAGS, argv));
  if (parsed.help) return printUsage(io, INSPECT_USAGE);
  const o = parsed.options;
  if (o.measure && o['estimate-only']) throw new UsageError('inspect', '--measure and --estimate-only contradict each other');

  const options = {
    ...(o.track !== undefined ? { track: o.track } : {}),
    ...(o['dram-budget'] !== undefined ? { dramBudgetBytes: o['dram-budget'] } : {}),
    ...(o.context !== undefined ? { contextTokens: o.context } : {}),
    ...(o.measure ? { measure: true } : o['estimate-only'] ? { measure: false } : {}),
    bf16: o.bf16,
    provider: o.provider,
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
    ...(o['ort-library'] !== undefined ? { ortLibrary: o['ort-library'] } : {}),
    ...(o.quiet ? {} : { onDramProgress: dramProbeProgress(commandStatus(io, { quiet: false })) }),
  };
  const graphs = resolveModelGraphs(parsed.model);
  if (graphs.seq2seq !== null) {
    const report = await checkSeq2SeqEdgeModel(graphs.seq2seq, options);
    io.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : formatSeq2SeqEdgeReport(report));
    return o.strict === true && report.verdict.status === 'fail' ? 1 : 0;
  }
  const report = await checkEdgeModel(graphs.path, options);
  io.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : formatEdgeReport(report, { tensors: o.tensors }));
  return o.strict === true && report.verdict.status === 'fail' ? 1 : 0;
}
