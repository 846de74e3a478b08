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
import type { CliIo } from './exit-error.js';

export const CHECK_PRUNING_USAGE = `usage: mlrb-eval check-pruning MODEL --base BASE [options]
  --base BASE                 the base: an ONNX model, a Hugging Face safetensors checkpoint folder
                              (model.safetensors or shards + index), or its config.json; with
                              weights (ONNX, safetensors) lineage traces every kept layer, head and
                              FFN channel to the base and fails a model not derived from it
  --json                      print the report as JSON
  --strict                    exit 1 when the verdict fails
  --num-heads N               the base's attention heads, when neither a config.json beside an ONNX base
                              nor its graph (the query's split into heads) tells them
  --sparsity-threshold F      share of exact zeros that counts as fake pruning (default 0.05)
  --bf16 warn|fail            what bfloat16 weights do to the verdict (default warn)
  --skip-forward              do not run the forward-pass check
  --threads N                 threads for the zero scan and ONNX Runtime
  --ort-library PATH          ONNX Runtime shared library to use
`;

const optionsSchema = z.object({
  base: z.string().min(1, '--base BASE is required'),
  json: z.boolean().default(false),
  strict: z.boolean().default(false),
  'num-heads': z.coerce.number().int().positive().optional(),
  'sparsity-threshold': z.coerce.number().gt(0).lte(1).optional(),
  bf16: z.enum(['warn', 'fail']).default('warn'),
  'skip-forward': z.boolean().default(false),
  threads: z.coerce.number().int().nonnegative().optional(),
  'ort-library': z.string().min(1).optional(),
});

export async function runCheckPruningCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseModelCommand(argv, {
    command: 'check-pruning',
    schema: optionsSchema,
    flags: {
      base: { type: 'string', default: '' },
      json: { type: 'boolean' },
      strict: { type: 'boolean' },
      'num-heads': { type: 'string' },
      'sparsity-threshold': { type: 'string' },
      bf16: { type: 'string' },
      'skip-forward': { type: 'boolean' },
      threads: { type: 'string' },
      'ort-library': { type: 'string' },
    },
  });
  if (parsed.help) return printUsage(io, CHECK_PRUNING_USAGE);
  const o = parsed.options;

  const report = await checkPruning(resolveModelFile(parsed.model), {
    base: o.base,
    ...(o['num-heads'] !== undefined ? { numHeads: o['num-heads'] } : {}),
    ...(o['sparsity-threshold'] !== undefined ? { sparsityThreshold: o['sparsity-threshold'] } : {}),
    bf16: o.bf16,
    forwardPass: !o['skip-forward'],
    ...(o.threads !== undefined ? { threads: o.threads } : {}),
    ...(o['ort-library'] !== undefined ? { ortLibrary: o['ort-library'] } : {}),
  });
  io.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : formatPruningReport(report));
  return o.strict && report.verdict.status === 'fail' ? 1 : 0;
}
