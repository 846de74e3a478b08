/**
 * Where BLiMP's paradigms are, in either accepted layout, as one SplitSource per paradigm; the loader sees only
 * paradigms and pairs:
 *   release  `<paradigm>.jsonl`, one pair per line (the release's field names, `pairID` a string);
 *   hub      the Hugging Face hub's `nyu-mll/blimp` parquet, `<paradigm>/train-00000-of-00001.parquet`, with the
 *            same fields (`pair_id` an int), which is what lm-eval loads and logs.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { hasFileWithSuffix, listDirectory } from '../data-files.js';
import { configsWithSplit, resolveSuiteData, splitShards, type DataLayout, type SuiteData } from '../hub-layout.js';
import { hubSplit, jsonlParser, parquetParser, releaseSplit, type RowPlace, type SplitSource } from '../split-source.js';

export interface Pair {
  readonly [field: string]: unknown;
  readonly sentence_good: string;
  readonly sentence_bad: string;
  readonly field: string;
  readonly linguistics_term: string;
  readonly UID: string;
}

/** A pair and where it is, for the check that a paradigm's pairs agree. */
export interface PlacedPair {
  readonly pair: Pair;
  readonly place: RowPlace;
}

export interface BlimpSource {
  readonly dir: string;
  /** Paradigm names present, sorted. */
  readonly paradigms: readonly string[];
  /** A present paradigm's pairs (`file` is the JSONL file, or the first shard). */
  readonly split: (paradigm: string) => Promise<SplitSource<PlacedPair>>;
}

const SUFFIX = '.jsonl';
const HUB_SPLIT = 'train';

const pairShape = { sentence_good: z.string(), sentence_bad: z.string(), field: z.string(), linguistics_term: z.string(), UID: z.string() };
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

const placed = (pair: Pair, place: RowPlace): PlacedPair => ({ pair, place });
// The release's extra fields (pairID …) are kept: lm-eval logs the document whole.
const readReleasePairs = jsonlParser(z.looseObject(pairShape), placed);
const readHubPairs = parquetParser(hubPairShape, placed, HUB_OPTIONAL);

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
  const data = await resolveSuiteData(dataDir, { suite: 'blimp', label: 'BLiMP', layouts: LAYOUTS, hubRepos: ['nyu-mll/blimp', 'blimp'] });
  return data.layout === 'hub' ? hubSource(data) : releaseSource(data);
}

async function releaseSource(data: SuiteData<BlimpLayout>): Promise<BlimpSource> {
  const paradigms = (await listDirectory(data.dir, 'BLiMP data folder'))
    .filter((name) => name.endsWith(SUFFIX))
    .map((name) => name.slice(0, -SUFFIX.length))
    .sort();
  return {
    dir: data.dir,
    paradigms,
    split: (paradigm) => Promise.resolve(releaseSplit(data, [paradigm + SUFFIX], `BLiMP file for ${paradigm}`, readReleasePairs)),
  };
}

async function hubSource(data: SuiteData<BlimpLayout>): Promise<BlimpSource> {
  return {
    dir: data.dir,
    paradigms: await configsWithSplit(data.dir, HUB_SPLIT),
    split: async (paradigm) => hubSplit(data, await splitShards(join(data.dir, paradigm), HUB_SPLIT), `BLiMP hub file for ${paradigm}`, readHubPairs),
  };
}
