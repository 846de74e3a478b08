/**
 * `mlrb-eval merge SHARD.json …`: joins the shard files of one run (`--shard I/N`) into the results the
 * unsharded run writes: the same tables on stdout and the same results JSON and samples files
 * (src/eval/merge-shards.ts says which facts of the processes differ).
 */
import { parseArgs } from 'node:util';
import { mergeShards, type ShardFile } from '../eval/merge-shards.js';
import { readShardRecord } from '../eval/shard-record.js';
import { normalizeFlagSpelling } from './command-args.js';
import { logSamplesIsSwitch, outputsFromFlags } from './eval-args.js';
import { ExitError, type CliIo } from './exit-error.js';
import { planResultFiles, printResultTables, writeResultFiles } from './result-files.js';

export const MERGE_USAGE = `usage: mlrb-eval merge SHARD.json… [options]

  SHARD.json            the files of mlrb-eval … --shard I/N --output SHARD.json, one per I in 0 … N-1
  --data DIR            the data folder, when it is not where the shards read it (the data must be
                        the same: its fingerprint is checked)
  --allow-partial       merge the shards given although some are missing; the results cover their
                        documents only and mlrb.shards.missing lists the absent shards
  --output FILE         write lm-eval-compatible results JSON to FILE
  --output-path PATH    as lm-eval: PATH/<model>/results_<date>.json (or PATH_<date>.json for
                        a .json PATH); with --log-samples, samples_<task>_<date>.jsonl beside it
  --log-samples FILE    write per-document records as JSON lines (a switch with --output-path)
  --show-breakdowns     also print BLiMP's tables by field and linguistics_term
  Shards of different runs (model, tokenizer, data, options, tool version), a shard given twice and
  a missing shard are refused (error BAD_SHARD, naming the file and the field).`;

export async function runMergeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = normalizeFlagSpelling(argv);
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        data: { type: 'string' },
        'allow-partial': { type: 'boolean' },
        output: { type: 'string' },
        'output-path': { type: 'string' },
        'log-samples': { type: logSamplesIsSwitch(args) ? 'boolean' : 'string' },
        'show-breakdowns': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new ExitError(2, `merge: ${(error as Error).message}\n\n${MERGE_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.stdout.write(`${MERGE_USAGE}\n`);
    return 0;
  }
  if (positionals.length === 0) throw new ExitError(2, `merge: expected the shard files to join\n\n${MERGE_USAGE}`);
  if (values.output !== undefined && values['output-path'] !== undefined) throw new ExitError(2, `merge: give --output FILE or --output-path PATH, not both\n\n${MERGE_USAGE}`);
  const outputs = outputsFromFlags(values);
  const shards: ShardFile[] = positionals.map((file) => ({ file, record: readShardRecord(file) }));
  // The merge is quick, but a bad path is still refused before it; the files are named after the lowest shard's model.
  const lowest = shards.reduce((best, shard) => (shard.record.shard.index < best.record.shard.index ? shard : best));
  const files = planResultFiles(outputs, lowest.record.run.model_path, new Date());
  const merged = await mergeShards(shards, {
    ...(values.data !== undefined ? { dataDir: values.data } : {}),
    allowPartial: values['allow-partial'] === true,
    logSamples: outputs.samplesFile !== undefined || outputs.samplesBesideResults,
  });
  printResultTables(merged, values['show-breakdowns'] === true, io);
  const missing = merged.missingShards;
  io.stderr.write(
    `merged ${shards.length} of ${merged.shardCount} shards` +
      `${missing.length > 0 ? ` (missing: ${missing.join(', ')}; the results cover the given shards' documents only)` : ''}\n`,
  );
  writeResultFiles(merged, files, io);
  return 0;
}
