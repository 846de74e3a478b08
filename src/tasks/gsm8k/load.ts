/**
 * Loads GSM8K (spec.ts) from either layout people download:
 *   release  the original repository's test.jsonl (and train.jsonl for few-shot), one {"question", "answer"} a line
 *            (grade_school_math/data/ in openai/grade-school-math);
 *   hub      the Hugging Face hub's openai/gsm8k parquet, main/test-00000-of-00001.parquet (and main/train-…), or
 *            main/test/0000.parquet from the refs/convert/parquet branch.
 * A row that is not a GSM8K row (a missing or non-string field, an answer without its "#### " final line) is
 * BAD_DATA naming its file and line or row: lm-eval would score it against a meaningless reference.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../../errors.js';
import { pathEntryExists } from '../../io/regular-file.js';
import { applyLimit, checkLimit } from '../data-files.js';
import { DEFAULT_FEWSHOT_SEED, checkFewshotCount } from '../fewshot/sampler.js';
import type { GenerateUntilDoc, GenerateUntilFewshot, GenerateUntilTask } from '../generate-until-types.js';
import type { Suite } from '../types.js';
import { resolveSuiteData, splitShards, type DataLayout, type SuiteData } from '../hub-layout.js';
import { hubSplit, jsonlParser, parquetParser, releaseSplit, type RowToDoc, type SplitSource } from '../split-source.js';
import {
  GSM8K_DEFAULT_FEWSHOT,
  GSM8K_EXACT_MATCH,
  GSM8K_FILTERS,
  GSM8K_GENERATION,
  GSM8K_LM_EVAL,
  GSM8K_TASK,
  GSM8K_VERSION,
  gsm8kDocToTarget,
  gsm8kDocToText,
  type Gsm8kRow,
} from './spec.js';

export interface Gsm8kLoadOptions {
  readonly dataDir: string;
  /** lm-eval's --limit: a document count, or a fraction of the split below 1. */
  readonly limit?: number;
  /** lm-eval's --num_fewshot; absent: the YAML's 5. */
  readonly numFewshot?: number;
}

type Split = 'test' | 'train';
type Layout = 'release' | 'hub';

const LABEL = 'GSM8K';
const HUB_CONFIGS = ['main'];
const RELEASE_FILES: Readonly<Record<Split, string>> = { test: 'test.jsonl', train: 'train.jsonl' };
const FINAL_ANSWER = '#### ';

const text = z.string();
const releaseRow = z.looseObject({ question: text, answer: text });
const hubShape = { question: text, answer: text };

const toRow: RowToDoc<{ question: string; answer: string }, Gsm8kRow> = (row) =>
  row.answer.includes(FINAL_ANSWER)
    ? { question: row.question, answer: row.answer }
    : `the answer has no "${FINAL_ANSWER}<number>" final line, so it is not a GSM8K row`;

const LAYOUTS: readonly DataLayout<Layout>[] = [
  {
    kind: 'release',
    description: "the original release's test.jsonl (train.jsonl beside it for few-shot)",
    matches: async (dir) => pathEntryExists(join(dir, RELEASE_FILES.test)),
  },
  {
    kind: 'hub',
    description:
      "the Hugging Face hub's openai/gsm8k parquet, main/test-00000-of-00001.parquet (or main/test/0000.parquet), main/train-… beside it for few-shot",
    matches: async (dir) => (await hubShards(dir, 'test')) !== undefined,
  },
];

/** Bad options throw synchronously (RangeError); data problems reject with MlrbError BAD_DATA. */
export function loadGsm8k(options: Gsm8kLoadOptions): Promise<GenerateUntilTask> {
  checkLimit(options.limit);
  const numFewshot = options.numFewshot ?? GSM8K_DEFAULT_FEWSHOT;
  if (!Number.isInteger(numFewshot) || numFewshot < 0) throw new RangeError(`numFewshot must be a non-negative integer; got ${String(options.numFewshot)}`);
  return load(options, numFewshot);
}

/** GSM8K as a suite: the one task, no groups. */
export async function loadGsm8kSuite(options: Gsm8kLoadOptions): Promise<Suite<GenerateUntilTask>> {
  return { name: GSM8K_TASK, tasks: [await loadGsm8k(options)], groups: [] };
}

async function load(options: Gsm8kLoadOptions, numFewshot: number): Promise<GenerateUntilTask> {
  const data = await resolveSuiteData(options.dataDir, { suite: 'gsm8k', label: LABEL, layouts: LAYOUTS, hubRepos: ['openai/gsm8k', 'gsm8k'] });
  const evaluated = await requireSplit(data, 'test', 'evaluation');
  const docs = (await evaluated.read()).map(toDoc);
  if (docs.length === 0) throw new MlrbError('BAD_DATA', `${LABEL} test split has no rows: ${evaluated.file}`, { file: evaluated.file });
  // As lm-eval, the few-shot split is read only when examples are drawn, so a 0-shot run needs no train file.
  const fewshotSource = numFewshot > 0 ? await requireSplit(data, 'train', 'few-shot examples') : undefined;
  const fewshot: GenerateUntilFewshot | undefined =
    fewshotSource === undefined
      ? undefined
      : { sampler: 'default', docs: (await fewshotSource.read()).map(toDoc), seed: DEFAULT_FEWSHOT_SEED, drawsExtra: false };
  checkFewshotCount(GSM8K_TASK, fewshot, numFewshot);
  return {
    kind: 'generate_until',
    name: GSM8K_TASK,
    version: GSM8K_VERSION,
    description: '',
    targetDelimiter: ' ',
    fewshotDelimiter: '\n\n',
    docs: applyLimit(docs, options.limit),
    numFewshot,
    ...(fewshot !== undefined ? { fewshot } : {}),
    generationKwargs: GSM8K_GENERATION,
    filters: GSM8K_FILTERS,
    metric: { name: 'exact_match', options: GSM8K_EXACT_MATCH },
    totalDocs: docs.length,
    sourceFiles: [...evaluated.sourceFiles, ...(fewshotSource?.sourceFiles ?? [])],
    tags: {},
    lmEval: GSM8K_LM_EVAL,
  };
}

function toDoc(row: Gsm8kRow, docId: number): GenerateUntilDoc {
  return { docId, text: gsm8kDocToText(row), target: gsm8kDocToTarget(row), source: row };
}

async function requireSplit(data: SuiteData<Layout>, split: Split, role: string): Promise<SplitSource<Gsm8kRow>> {
  if (data.layout === 'release') {
    if (pathEntryExists(join(data.dir, RELEASE_FILES[split]))) {
      return releaseSplit(data, [RELEASE_FILES[split]], `${LABEL} ${split} file`, jsonlParser(releaseRow, toRow));
    }
  } else {
    const shards = await hubShards(data.dir, split);
    if (shards !== undefined) return hubSplit(data, shards, `${LABEL} hub ${split} file`, parquetParser(hubShape, toRow));
  }
  const expected = data.layout === 'release' ? RELEASE_FILES[split] : HUB_CONFIGS.map((config) => join(config, `${split}-00000-of-00001.parquet`)).join(' or ');
  throw new MlrbError('BAD_DATA', `${LABEL} data in ${data.dir} has no ${split} split for ${role} (expected ${expected})`, { file: data.dir });
}

async function hubShards(dir: string, split: Split): Promise<readonly string[] | undefined> {
  for (const config of HUB_CONFIGS) {
    const shards = await splitShards(join(dir, config), split);
    if (shards.length > 0) return shards;
  }
  return undefined;
}
