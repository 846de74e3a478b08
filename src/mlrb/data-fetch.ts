/**
 * What to fetch, and where it goes, when a task's data is not there: the Hugging Face dataset each loader reads
 * and the place under the run's --data folder where that loader finds a download of it (a `hf download
 * --local-dir` copy keeps the hub's layout). The loaders name the same repositories in their BAD_DATA messages;
 * test/mlrb/data-fetch.test.ts lays each fixture download where this says and loads it from there.
 */
import path from 'node:path';
import { arcChallenge, arcEasy } from '../tasks/single/arc.js';
import { hellaswag } from '../tasks/single/hellaswag.js';
import type { SuiteName } from '../tasks/registry.js';
import { resolveTaskNames } from '../tasks/task-names.js';

export interface DataFetch {
  /** What to get, in words. */
  readonly what: string;
  /** The Hugging Face dataset, or null where the data is not on the hub. */
  readonly hub: string | null;
  /** Where it goes: a folder (or file) under the run's data folder. */
  readonly place: string;
  /** A command that puts it there, or null where only a person can (a gated download, a page). */
  readonly command: string | null;
}

interface HubDownload {
  readonly hub: string;
  /** The download's folder under --data (`''`: --data itself, where the repository's config folders land). */
  readonly folder: string;
  /** Only these files of the repository (`hf download --include`), where it holds much more than is read. */
  readonly include?: string;
}

const BABYLM_EVALUATION_DATA =
  "BabyLM 2024's evaluation_data folder (github.com/babylm/evaluation-pipeline-2024: its README's evaluation_data download; " +
  'ewok_filtered is written by its ewok/dl_and_filter.py from the gated ewok-core/ewok-core-1.0)';

const HUB_DOWNLOADS: Readonly<Partial<Record<SuiteName, HubDownload>>> = {
  mmlu: { hub: 'cais/mmlu', folder: 'mmlu' },
  blimp: { hub: 'nyu-mll/blimp', folder: 'blimp' },
  superglue: { hub: 'aps/super_glue', folder: 'superglue' },
  gsm8k: { hub: 'openai/gsm8k', folder: 'gsm8k' },
  hellaswag: { hub: hellaswag.data.hubRepos[0] ?? '', folder: hellaswag.data.folder },
  // allenai/ai2_arc keeps ARC-Easy/ and ARC-Challenge/ at its root, the folders the loader looks for under --data.
  arc_easy: { hub: arcEasy.data.hubRepos[0] ?? '', folder: '' },
  arc_challenge: { hub: arcChallenge.data.hubRepos[0] ?? '', folder: '' },
};

const BABYLM_FOLDERS: Readonly<Partial<Record<SuiteName, string>>> = {
  blimp_filtered: 'blimp_filtered',
  blimp_supplement: 'supplement_filtered',
  ewok_filtered: 'ewok_filtered',
};

function hubFetch(what: string, download: HubDownload, dataDir: string): DataFetch {
  const place = download.folder === '' ? dataDir : path.join(dataDir, download.folder);
  const include = download.include === undefined ? '' : ` --include '${download.include}'`;
  return { what, hub: download.hub, place, command: `hf download ${download.hub} --repo-type dataset${include} --local-dir ${place}` };
}

/** Where a suite's data goes for `mlrb-eval mlrb … --data DATA_DIR` (a `--tasks` name: `mmlu_high_school_mathematics` is MMLU's). */
export function suiteDataFetch(suite: string, dataDir: string): DataFetch {
  const [selection] = resolveTaskNames(suite);
  if (selection === undefined) throw new RangeError(`no suite answers to ${JSON.stringify(suite)}`);
  const download = HUB_DOWNLOADS[selection.suite];
  if (download !== undefined) return hubFetch(`the Hugging Face dataset ${download.hub}`, download, dataDir);
  const babyLm = BABYLM_FOLDERS[selection.suite];
  if (babyLm !== undefined) return { what: BABYLM_EVALUATION_DATA, hub: null, place: path.join(dataDir, 'evaluation_data', babyLm), command: null };
  throw new RangeError(`no data source is known for the suite ${selection.suite}`);
}

/** WikiText-2 raw (agent_eval's perplexity.py:31-35 loads `wikitext`, `wikitext-2-raw-v1`, test). */
export function wikitextDataFetch(dataDir: string): DataFetch {
  return hubFetch('WikiText-2 raw, test split (perplexity)', { hub: 'Salesforce/wikitext', folder: 'wikitext', include: 'wikitext-2-raw-v1/*' }, dataDir);
}

/** math_reasoning's problems: the prompt's dataset (prompts.py:371) as the JSON Lines --math-data reads. */
export function mathDataFetch(dataDir: string): DataFetch {
  const place = path.join(dataDir, 'math_reasoning.jsonl');
  const hub = 'AlgorithmicResearchGroup/math_reasoning_autoformalization_track';
  return {
    what: `${hub}, train split, as JSON Lines (name, informal_statement, informal_proof, formal_proof), given as --math-data`,
    hub,
    place,
    command: `python -c "import datasets; datasets.load_dataset('${hub}', split='train').to_json('${place}')"`,
  };
}
