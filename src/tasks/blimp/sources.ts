/**
 * Where BLiMP's pairs come from, in either accepted layout; the loader sees only paradigms and pairs:
 *   release  `<paradigm>.jsonl`, one pair per line (the release's field names, `pairID` a string);
 *   hub      the Hugging Face hub's `nyu-mll/blimp` parquet, `<paradigm>/train-00000-of-00001.parquet`, with the
 *            same fields (`pair_id` an int), which is what lm-eval loads and logs.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { hasFileWithSuffix, listDirectory, readTextFile } from '../data-files.js';
import { sourcePathFor } from '../hub-cache.js';
import { configsWithSplit, resolveSuiteData, splitShards, type DataLayout } from '../hub-layout.js';
import { parseJsonLines } from '../jsonl.js';
import { readParquetSplit } from '../parquet-rows.js';

export interface Pair {
  readonly [field: string]: unknown;
  readonly sentence_good: string;
  readonly sentence_bad: string;
  readonly field: string;
  readonly linguistics_term: string;
  readonly UID: string;
}

export interface LocatedPair {
  readonly row: Pair;
  readonly file: string;
  /** 1-based: a JSONL line, or a parquet row. */
  readonly position: number;
  readonly unit: 'line' | 'row';
}

export interface BlimpSource {
  readonly dir: string;
  /** Paradigm names present, sorted. */
  readonly paradigms: readonly string[];
  /** `file` names the paradigm in messages (the JSONL file, or the first shard). */
  readonly read: (paradigm: string) => Promise<{ readonly pairs: readonly LocatedPair[]; readonly file: string; readonly sourceFiles: readonly string[] }>;
}

const SUFFIX = '.jsonl';
const HUB_SPLIT = 'train';

const pairShape = { sentence_good: z.string(), sentence_bad: z.string(), field: z.string(), linguistics_term: z.string(), UID: z.string() };
const releasePairSchema = z.looseObject(pairShape);
/** The hub's columns in its order; the last five are kept for --log-samples when present. */
const hubPairShape = {
  ...pairShape,
  simple_LM_method: z.boolean().optional(),
  one_prefix_method: z.boolean().optional(),
  two_prefix_method: z.boolean().optional(),
  lexically_identical: z.boolean().optional(),
  pair_id: z.union([z.number().int(), z.bigint().transform(Number)]).optional(),
};
const HUB_OPTIONAL = ['simple_LM_method', 'one_prefix_method', 'two_prefix_method', 'lexically_identical', 'pair_id'] as const;

type BlimpLayout = 'release' | 'hub';

const LAYOUTS: readonly DataLayout<BlimpLayout>[] = [
  { kind: 'release', description: 'the release, <paradigm>.jsonl', matches: (dir) => hasFileWithSuffix(dir, SUFFIX) },
  {
    kind: 'hub',
    description: "the Hugging Face hub's nyu-mll/blimp parquet, <paradigm>/train-00000-of-00001.parquet",
    matches: async (dir) => (await configsWithSplit(dir, HUB_SPLIT)).length > 0,
  },
];

export async function openBlimpSource(dataDir: string): Promise<BlimpSource> {
  const { dir, root, layout } = await resolveSuiteData(dataDir, { suite: 'blimp', label: 'BLiMP', layouts: LAYOUTS, hubRepos: ['nyu-mll/blimp', 'blimp'] });
  return layout === 'hub' ? hubSource(dir, root) : releaseSource(dir);
}

async function releaseSource(dir: string): Promise<BlimpSource> {
  const paradigms = (await listDirectory(dir, 'BLiMP data folder'))
    .filter((name) => name.endsWith(SUFFIX))
    .map((name) => name.slice(0, -SUFFIX.length))
    .sort();
  return {
    dir,
    paradigms,
    read: async (paradigm) => {
      const file = join(dir, paradigm + SUFFIX);
      const rows = parseJsonLines(await readTextFile(file, `BLiMP file for ${paradigm}`, dir), file, releasePairSchema);
      return { pairs: rows.map(({ row, line }) => ({ row, file, position: line, unit: 'line' as const })), file, sourceFiles: [file] };
    },
  };
}

async function hubSource(dir: string, root: string): Promise<BlimpSource> {
  return {
    dir,
    paradigms: await configsWithSplit(dir, HUB_SPLIT),
    read: async (paradigm) => {
      const shards = await splitShards(join(dir, paradigm), HUB_SPLIT);
      const rows = await readParquetSplit(shards, { root, what: `BLiMP hub file for ${paradigm}`, shape: hubPairShape, optional: HUB_OPTIONAL });
      return {
        pairs: rows.map(({ row, rowNumber, file }) => ({ row, file, position: rowNumber, unit: 'row' as const })),
        file: shards[0] ?? join(dir, paradigm),
        sourceFiles: shards.map((file) => sourcePathFor(file, root, dir)),
      };
    },
  };
}
