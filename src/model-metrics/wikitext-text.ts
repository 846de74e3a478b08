/**
 * The text MLRB measures perplexity on: WikiText-2 (raw) test, as one string. MLRB loads the hub dataset
 * (`wikitext`, config wikitext-2-raw-v1, split test, column `text`) and joins its rows, each empty row standing
 * for " \n" (agent_eval/benchmarks/perplexity.py). The hub's rows are the lines of the original wiki.test.raw,
 * newline kept, with a line of only whitespace stored as "". Both layouts are read into those rows here:
 *   hub      <config>/test-*.parquet (as `huggingface-cli download` or the hub cache leaves it);
 *   release  wiki.test.raw (the original zip's wikitext-2-raw/ folder), split into lines as Python reads a
 *            text file: universal newlines, then one line after each "\n".
 * `--text FILE` is read as a release file.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { MlrbError } from '../errors.js';
import { pythonStrip } from '../text/python-text.js';
import { readTextFile } from '../tasks/data-files.js';
import { resolveSuiteData, splitShards, type DataLayout } from '../tasks/hub-layout.js';
import { readParquetRows } from '../tasks/parquet-rows.js';
import { sourcePathFor } from '../tasks/hub-cache.js';

export const WIKITEXT_CONFIG = 'wikitext-2-raw-v1';
export const WIKITEXT_SPLIT = 'test';
const RELEASE_FILE = 'wiki.test.raw';
/** Where a release file may sit below the folder given: directly, or in the zip's own folder. */
const RELEASE_CANDIDATES = [RELEASE_FILE, path.join('wikitext-2-raw', RELEASE_FILE)];

export interface WikitextText {
  /** The rows joined MLRB's way: the string that is tokenized. */
  readonly text: string;
  readonly rows: number;
  readonly layout: 'hub' | 'release' | 'text-file';
  readonly sourceFiles: readonly string[];
}

/** The hub dataset's rows of a raw WikiText file: its lines, newline kept, whitespace-only lines as "". */
export function rowsOfRawText(raw: string): string[] {
  const lines = raw.replace(/\r\n?/g, '\n').match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return lines.map((line) => (pythonStrip(line) === '' ? '' : line));
}

/** MLRB's join: every row as it is, an empty one as " \n". */
export function joinWikitextRows(rows: readonly string[]): string {
  return rows.map((row) => (row === '' ? ' \n' : row)).join('');
}

async function firstExisting(dir: string, names: readonly string[]): Promise<string | undefined> {
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      await access(file);
      return file;
    } catch {
      // try the next place
    }
  }
  return undefined;
}

const LAYOUTS: readonly DataLayout<'hub' | 'release'>[] = [
  {
    kind: 'hub',
    description: `the hub's parquet, ${WIKITEXT_CONFIG}/${WIKITEXT_SPLIT}-00000-of-00001.parquet (column "text")`,
    matches: async (dir) => (await splitShards(path.join(dir, WIKITEXT_CONFIG), WIKITEXT_SPLIT)).length > 0,
  },
  {
    kind: 'release',
    description: `the original release, ${RELEASE_CANDIDATES.join(' or ')}`,
    matches: async (dir) => (await firstExisting(dir, RELEASE_CANDIDATES)) !== undefined,
  },
];

/**
 * WikiText-2 raw test under `dataDir`: the folder itself, its `wikitext` sub-folder, or a hub cache holding
 * Salesforce/wikitext. Missing data is BAD_DATA naming where it looked and the layouts accepted.
 */
export async function readWikitextTest(dataDir: string): Promise<WikitextText> {
  const data = await resolveSuiteData(dataDir, {
    suite: 'wikitext',
    label: 'WikiText-2 (raw)',
    layouts: LAYOUTS,
    hubRepos: ['Salesforce/wikitext', 'wikitext'],
  });
  const what = `WikiText-2 raw ${WIKITEXT_SPLIT} file`;
  if (data.layout === 'hub') {
    const shards = await splitShards(path.join(data.dir, WIKITEXT_CONFIG), WIKITEXT_SPLIT);
    const rows: string[] = [];
    for (const file of shards) {
      for (const { row } of await readParquetRows({ file, root: data.root, what, shape: { text: z.string() } })) rows.push(row.text);
    }
    return { text: joinWikitextRows(rows), rows: rows.length, layout: 'hub', sourceFiles: shards.map((file) => sourcePathFor(file, data.root, data.dir)) };
  }
  const file = await firstExisting(data.dir, RELEASE_CANDIDATES);
  if (file === undefined) throw new MlrbError('BAD_DATA', `${what} not found under ${data.dir}`, { file: data.dir });
  const rows = rowsOfRawText(await readTextFile(file, what, data.root));
  return { text: joinWikitextRows(rows), rows: rows.length, layout: 'release', sourceFiles: [file] };
}

/** A text file in wiki.test.raw's layout (`--text FILE`), read under the data-file policy. */
export async function readRawTextFile(file: string): Promise<WikitextText> {
  const resolved = path.resolve(file);
  const rows = rowsOfRawText(await readTextFile(resolved, 'the --text file', path.dirname(resolved)));
  return { text: joinWikitextRows(rows), rows: rows.length, layout: 'text-file', sourceFiles: [resolved] };
}
