/**
 * lm-eval's `wikitext` task (lm_eval/tasks/wikitext/wikitext.yaml, version 2.0): output_type
 * loglikelihood_rolling over the test split of the hub's EleutherAI/wikitext_document_level, config
 * wikitext-2-raw-v1, one document per Wikipedia page (a `page` column). The text scored is the page with
 * WikiText's tokenization undone (detokenize.ts); the word and byte counts that weigh it are the raw page's.
 * Metrics: word_perplexity, byte_perplexity, bits_per_byte.
 *
 * Data: the hub's parquet, as `huggingface-cli download EleutherAI/wikitext_document_level --repo-type dataset`
 * writes it (`wikitext-2-raw-v1/test-00000-of-00001.parquet`), under `wikitext/` in --data-dir, the download
 * folder itself, the config folder itself, or a hub cache.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../../errors.js';
import { applyLimit, checkLimit } from '../data-files.js';
import { resolveSuiteData, splitShards, type DataLayout } from '../hub-layout.js';
import { hubSplit, parquetParser } from '../split-source.js';
import type { RollingDoc, RollingLoglikelihoodTask, Suite, SuiteLoadOptions } from '../types.js';
import { wikitextDetokenize, wikitextWeights } from './detokenize.js';

const HUB_REPO = 'EleutherAI/wikitext_document_level';
const CONFIG = 'wikitext-2-raw-v1';
/** Where the config's shards may be: its own folder in a download, or the folder itself. */
const CONFIG_FOLDERS = [CONFIG, ''] as const;

interface WikitextPage {
  readonly page: string;
}

const parsePages = parquetParser({ page: z.string() }, (row): WikitextPage => ({ page: row.page }));

/** The test split's shards in the first config folder that has them. */
async function testShards(dir: string): Promise<readonly string[] | undefined> {
  for (const folder of CONFIG_FOLDERS) {
    const shards = await splitShards(join(dir, folder), 'test');
    if (shards.length > 0) return shards;
  }
  return undefined;
}

const HUB_LAYOUT: DataLayout<'hub'> = {
  kind: 'hub',
  description: `${CONFIG}/test-00000-of-00001.parquet (the hub's ${HUB_REPO}, a \`page\` column)`,
  matches: async (dir) => (await testShards(dir)) !== undefined,
};

function toDoc({ page }: WikitextPage, docId: number): RollingDoc {
  return { docId, target: wikitextDetokenize(page), ...wikitextWeights(page), source: { page } };
}

/**
 * Bad options throw synchronously (RangeError); data problems reject with MlrbError BAD_DATA naming the path.
 * lm-eval's rolling tasks take no few-shot examples, so numFewshot is ignored; the suite has no subtasks, so
 * allowPartial has nothing to allow.
 */
export function loadWikitextSuite(options: SuiteLoadOptions): Promise<Suite<RollingLoglikelihoodTask>> {
  checkLimit(options.limit);
  return load(options);
}

async function load(options: SuiteLoadOptions): Promise<Suite<RollingLoglikelihoodTask>> {
  const data = await resolveSuiteData(options.dataDir, { suite: 'wikitext', label: 'WikiText', layouts: [HUB_LAYOUT], hubRepos: [HUB_REPO] });
  const shards = (await testShards(data.dir)) ?? [];
  const split = hubSplit(data, shards, 'WikiText hub test file', parsePages);
  const pages = await split.read();
  if (pages.length === 0) throw new MlrbError('BAD_DATA', `WikiText test split has no rows: ${split.file}`, { file: split.file });
  const docs = applyLimit(pages, options.limit).map(toDoc);
  const task: RollingLoglikelihoodTask = {
    kind: 'loglikelihood_rolling',
    name: 'wikitext',
    version: 2,
    docs,
    metrics: ['word_perplexity', 'byte_perplexity', 'bits_per_byte'],
    tags: {},
    sourceFiles: split.sourceFiles,
    totalDocs: pages.length,
    lmEval: {
      datasetPath: HUB_REPO,
      datasetName: CONFIG,
      splits: { training_split: 'train', validation_split: 'validation', test_split: 'test' },
      docToText: '',
      // lm-eval's YAML names Python functions here; a dump made by lm-eval itself holds their source instead.
      docToTarget: '!function preprocess_wikitext.wikitext_detokenizer',
      processResults: '!function preprocess_wikitext.process_results',
      shouldDecontaminate: true,
      decontaminationQuery: '{{page}}',
    },
  };
  return { name: 'wikitext', tasks: [task], groups: [] };
}
