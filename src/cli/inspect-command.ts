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
import { byteSizeOption, dramProviderOption, parseModelCommand } from './command-args.js';
import { printUsage } from './command-line.js';
import { UsageError, type CliIo } from './exit-error.js';
import { dramProbeProgress } from './check-track-command.js';
import { commandStatus, QUIET_FLAG } from './progress.js';

export const INSPECT_USAGE = `usage: mlrb-eval inspect MODEL [options]
  --json                 print the report as JSON
  --strict               exit 1 when the verdict fails
  --tensors              list every tensor
  --track NAME           judge DRAM against a track: ${Object.keys(EDGE_TRACKS).join(' | ')}
  --dram-budget BYTES    judge DRAM against a budget (e.g. 12GB, 1.5GiB, 1000000000)
  --context N            tokens for the estimate and the measurement (default 2000, never config.json's)
  --measure              measure peak RSS in a child process (default when a budget is set)
  --provider P           where the measurement runs: cpu (default, peak RSS) or cuda (peak device memory,
                         which the verdict then judges)
  --estimate-only        never measure
  --bf16 warn|fail       what bfloat16 weights do to the verdict (default warn)
  --threads N            ONNX Runtime threads for the measurement
  --ort-library PATH     ONNX Runtime shared library to use
  --quiet                no progress of the measurement on stderr
`;

const positiveInt = z.coerce.number().int().positive();
const optionsSchema = z.object({
  json: z.boolean().default(false),
  strict: z.boolean().default(false),
  tensors: z.boolean().default(false),
  track: z.enum(Object.keys(EDGE_TRACKS) as [EdgeTrack, ...EdgeTrack[]]).optional(),
  'dram-budget': byteSizeOption.optional(),
  context: positiveInt.optional(),
  measure: z.boolean().default(false),
  'estimate-only': z.boolean().default(false),
  bf16: z.enum(['warn', 'fail']).default('warn'),
  provider: dramProviderOption,
  threads: z.coerce.number().int().nonnegative().optional(),
  'ort-library': z.string().min(1).optional(),
  quiet: z.boolean().default(false),
});

export async function runInspectCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseModelCommand(argv, {
    command: 'inspect',
    schema: optionsSchema,
    flags: {
      json: { type: 'boolean' },
      strict: { type: 'boolean' },
      tensors: { type: 'boolean' },
      track: { type: 'string' },
      'dram-budget': { type: 'string' },
      context: { type: 'string' },
      measure: { type: 'boolean' },
      'estimate-only': { type: 'boolean' },
      bf16: { type: 'string' },
      threads: { type: 'string' },
      'ort-library': { type: 'string' },
      provider: { type: 'string' },
      ...QUIET_FLAG,
    },
  });
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
    return o.strict && report.verdict.status === 'fail' ? 1 : 0;
  }
  const report = await checkEdgeModel(graphs.path, options);
  io.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : formatEdgeReport(report, { tensors: o.tensors }));
  return o.strict && report.verdict.status === 'fail' ? 1 : 0;
}
