/**
 * `mlrb-eval check-pruning MODEL --base BASE`: structural pruning validation against a base ONNX model, its
 * safetensors checkpoint or its config.json, with lineage when the base has weights and the quantization check
 * folded in. Exit 0, or 1 with --strict when the verdict fails, 2 for bad usage. Runtime failures propagate as
 * MlrbError to the CLI's one error boundary.
 */
import { z } from 'zod';
import { formatPruningReport } from '../inspect/pruning/format.js';
import { checkPruning } from '../inspect/pruning/pruning-check.js';
import { resolveModelFile } from '../model/model-path.js';
import { parseModelCommand } from './command-args.js';
import { printUsage } from './command-line.js';
import { BASE, BF16, JSON_REPORT, ORT_LIBRARY, positiveCount, STRICT, THREADS } from './common-flags.js';
import { UsageError, type CliIo } from './exit-error.js';
import { commandUsage, flag, tableSpec, withHelp, switchFlag } from './flag-table.js';

const CHECK_PRUNING_FLAGS = [
  withHelp(
    BASE,
    'the base: an ONNX model, a Hugging Face safetensors checkpoint folder (model.safetensors or shards + index), or its config.json; ' +
      'with weights (ONNX, safetensors) lineage traces every kept layer, head and FFN channel to the base and fails a model not derived from it',
  ),
  JSON_REPORT,
  STRICT,
  flag({
    name: 'num-heads',
    kind: 'string',
    value: positiveCount.optional(),
    placeholder: 'N',
    help: "the base's attention heads, when neither a config.json beside an ONNX base nor its graph (the query's split into heads) tells them",
  }),
  flag({
    name: 'sparsity-threshold',
    kind: 'string',
    value: z.coerce.number().gt(0).lte(1).optional(),
    placeholder: 'F',
    help: 'share of exact zeros that counts as fake pruning (default 0.05)',
  }),
  BF16,
  switchFlag('skip-forward', 'do not run the forward-pass check'),
  withHelp(THREADS, 'threads for the zero scan and ONNX Runtime'),
  ORT_LIBRARY,
] as const;

export const CHECK_PRUNING_USAGE = commandUsage({ synopsis: 'usage: mlrb-eval check-pruning MODEL --base BASE [options]', flags: CHECK_PRUNING_FLAGS });

export async function runCheckPruningCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseModelCommand(argv, tableSpec('check-pruning', CHECK_PRUNING_FLAGS, argv));
  if (parsed.help) return printUsage(io, CHECK_PRUNING_USAGE);
  const o = parsed.options;
  if (o.base === undefined) throw new UsageError('check-pruning', '--base BASE is required');

  const report = await checkPruning(resolveModelFile(parsed.model), {
    base: o.base,
    ...(o['num-heads'] !== undefined ? { numHeads: o['num-heads'] } : {}),
    ...(o['sparsity-threshold'] !== undefined ? { sparsityThreshold: o['sparsity-threshold'] } : {}),
    bf16: o.bf16,
    forwardPass: o['skip-forward'] !== true,
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
    ...(o['ort-library'] !== undefined ? { ortLibrary: o['ort-library'] } : {}),
  });
  io.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : formatPruningReport(report));
  return o.strict === true && report.verdict.status === 'fail' ? 1 : 0;
}
