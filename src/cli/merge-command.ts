/**
 * `mlrb-eval merge SHARD.json …`: joins the shard files of one run (`--shard I/N`) into the results the
 * unsharded run writes: the same tables on stdout and the same results JSON and samples files
 * (src/run/merge-shards.ts says which facts of the processes differ). With `--verify K` it first re-scores K
 * random documents of each shard with the model and refuses the merge on any difference (src/run/verify-shards.ts).
 */
import { z } from 'zod';
import { mergeShards, type ShardFile } from '../run/merge-shards.js';
import { readShardRecord } from '../run/shard-record.js';
import { verifyShards } from '../run/verify-shards.js';
import { realPathOrSelf } from '../io/hub-snapshot.js';
import { normalizeFlagSpelling } from './command-args.js';
import { ALLOW_PARTIAL, QUIET, wholeNumber } from './common-flags.js';
import { commandUsage, flag, tableSpec, withHelp } from './flag-table.js';
import { parseCommandLine, printUsage } from './command-line.js';
import { UsageError, type CliIo } from './exit-error.js';
import { commandStatus } from './progress.js';
import { outputsFromFlags, RESULT_FLAGS } from './result-flags.js';
import { planResultFiles, printResultTables, writeResultFiles } from './result-files.js';

const MERGE_FLAGS = [
  flag({
    name: 'data',
    kind: 'string',
    value: z.string().optional(),
    placeholder: 'DIR',
    help: 'the data folder, when it is not where the shards read it (the data must be the same: its fingerprint is checked)',
  }),
  withHelp(
    ALLOW_PARTIAL,
    'merge the shards given although some are missing; the results cover their documents only and mlrb.shards.missing lists the absent shards',
  ),
  ...RESULT_FLAGS,
  flag({
    name: 'verify',
    kind: 'string',
    value: wholeNumber('verify')
      .refine((count) => count >= 1, '--verify expects at least 1 document per shard')
      .optional(),
    placeholder: 'K',
    help:
      're-score K random documents of each shard with the model and refuse the merge when any differs from what the shard holds (a merge alone cannot tell whether a ' +
      "shard's numbers came from the model)",
  }),
  flag({
    name: 'model',
    kind: 'string',
    value: z.string().optional(),
    placeholder: 'PATH',
    help: 'the model for --verify, when it is not where the shards name it',
  }),
  flag({
    name: 'verify-seed',
    kind: 'string',
    value: wholeNumber('verify-seed').optional(),
    placeholder: 'N',
    help: "draw --verify's documents from seed N (printed by every --verify, to replay it)",
  }),
  withHelp(QUIET, 'no progress or notes on stderr: the tables, warnings and errors only'),
] as const;

export const MERGE_USAGE = commandUsage({
  synopsis: 'usage: mlrb-eval merge SHARD.json… [options]',
  operands: [['SHARD.json', 'the files of mlrb-eval … --shard I/N --output SHARD.json, one per I in 0 … N-1']],
  flags: MERGE_FLAGS,
  notes: [
    'Shards of different runs (model, tokenizer, data, options, tool version), a shard given twice, a missing shard and a ' +
      'log-likelihood that is no log-probability (NaN, Infinity, above 0) are refused (error BAD_SHARD, naming the file and the field).',
  ],
});

export async function runMergeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = normalizeFlagSpelling(argv);
  const line = parseCommandLine(args, tableSpec('merge', MERGE_FLAGS, args));
  if (line.help) return printUsage(io, MERGE_USAGE);
  const { positionals, options: values } = line;
  if (positionals.length === 0) throw new UsageError('merge', 'expected the shard files to join');
  if (values.verify === undefined && (values.model !== undefined || values['verify-seed'] !== undefined)) {
    throw new UsageError('merge', '--model and --verify-seed belong to --verify K');
  }
  const outputs = outputsFromFlags('merge', values);
  refuseOverwritingShards(positionals, [
    [outputs.output, '--output'],
    [outputs.samplesFile, '--log-samples'],
  ]);
  const status = commandStatus(io, { quiet: values.quiet === true });
  const reading = status.counter('merge: reading', 'shards');
  const shards: ShardFile[] = positionals.map((file, index) => {
    const shard = { file, record: readShardRecord(file) };
    reading(index + 1, positionals.length);
    return shard;
  });
  // The merge is quick, but a bad path is still refused before it; the files are named after the lowest shard's model.
  const lowest = shards.reduce((best, shard) => (shard.record.shard.index < best.record.shard.index ? shard : best));
  const files = planResultFiles(outputs, lowest.record.run.model_path, new Date());
  status.note(`merge: loading the tasks' data from ${values.data ?? lowest.record.run.data_dir} and computing the metrics`);
  const merged = await mergeShards(shards, {
    ...(values.data !== undefined ? { dataDir: values.data } : {}),
    allowPartial: values['allow-partial'] === true,
    logSamples: outputs.samplesFile !== undefined || outputs.samplesBesideResults,
  });
  if (values.verify !== undefined) {
    const verified = await verifyShards(shards, {
      documentsPerShard: values.verify,
      model: values.model,
      dataDir: values.data,
      seed: values['verify-seed'],
    });
    const checked = [...verified.checked.values()].reduce((sum, count) => sum + count, 0);
    status.note(`verified ${checked} documents of ${verified.checked.size} shards against the model: all agree (seed ${verified.seed})`);
  }
  printResultTables(merged, values['show-breakdowns'] === true, io);
  const missing = merged.missingShards;
  const summary = `merged ${shards.length} of ${merged.shardCount} shards`;
  // Missing shards are a problem even in a quiet run: the results cover part of the documents.
  if (missing.length > 0) status.warn(`${summary} (missing: ${missing.join(', ')}; the results cover the given shards' documents only)`);
  else status.note(summary);
  writeResultFiles(merged, files, status.note);
  return 0;
}

/** Results written over one of the shards being merged would destroy that shard, and with it any later merge. */
function refuseOverwritingShards(shardFiles: readonly string[], outputs: readonly (readonly [string | undefined, string])[]): void {
  const shardPaths = new Set(shardFiles.map(realPathOrSelf));
  for (const [file, flag] of outputs) {
    if (file !== undefined && shardPaths.has(realPathOrSelf(file)))
      throw new UsageError('merge', `${flag} ${file} is one of the shard files being merged; name another file`);
  }
}
