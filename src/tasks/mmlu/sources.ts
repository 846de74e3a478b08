/**
 * Where MMLU's rows come from, in either accepted layout; the loader sees only subjects and rows, so a subject's
 * documents cannot depend on which copy an operator has:
 *   release  the Hendrycks CSVs, `test/<subject>_test.csv` and `dev/<subject>_dev.csv` (rows.ts reads both
 *            spellings of them);
 *   hub      the Hugging Face hub's `cais/mmlu` parquet (hub-source.ts).
 */
import { join } from 'node:path';
import { pathEntryExists } from '../../io/regular-file.js';
import { isDirectory, readTextFile } from '../data-files.js';
import { resolveSuiteData, type DataLayout } from '../hub-layout.js';
import { hasMmluHubLayout, openMmluHubSource } from './hub-source.js';
import { parseMmluRows, type MmluRow } from './rows.js';

export interface MmluSubjectRows {
  readonly test: readonly MmluRow[];
  readonly dev: readonly MmluRow[];
  /** The file named when the test split is empty. */
  readonly testFile: string;
  /** Every file the rows came from, for the results and the data fingerprint. */
  readonly sourceFiles: readonly string[];
}

export interface MmluSource {
  readonly dir: string;
  /** Whether the subject's test and dev splits are both there. */
  readonly has: (subject: string) => Promise<boolean>;
  /** The subject's rows; BAD_DATA naming the file when a split is missing or malformed. */
  readonly rows: (subject: string) => Promise<MmluSubjectRows>;
}

type MmluLayout = 'release' | 'hub';

const LAYOUTS: readonly DataLayout<MmluLayout>[] = [
  {
    kind: 'release',
    description: 'the Hendrycks release, test/<subject>_test.csv and dev/<subject>_dev.csv',
    matches: (dir) => isDirectory(join(dir, 'test')),
  },
  {
    kind: 'hub',
    description: "the Hugging Face hub's cais/mmlu parquet, all/test-00000-of-00001.parquet and all/dev-…, or <subject>/test-….parquet and <subject>/dev-…",
    matches: hasMmluHubLayout,
  },
];

export async function openMmluSource(dataDir: string): Promise<MmluSource> {
  const found = await resolveSuiteData(dataDir, { suite: 'mmlu', label: 'MMLU', layouts: LAYOUTS, hubRepos: ['cais/mmlu'] });
  return found.layout === 'hub' ? openMmluHubSource(found.dir, found.root) : releaseSource(found.dir);
}

function releaseSource(dir: string): MmluSource {
  const files = (subject: string): [test: string, dev: string] => [join(dir, 'test', `${subject}_test.csv`), join(dir, 'dev', `${subject}_dev.csv`)];
  const read = async (file: string, subject: string, split: 'test' | 'dev'): Promise<MmluRow[]> =>
    parseMmluRows(await readTextFile(file, `MMLU ${split} file for ${subject}`, dir), file);
  return {
    dir,
    // Anything at the path counts as present, so a FIFO or a stray link is refused by the reader.
    has: (subject) => Promise.resolve(files(subject).every(pathEntryExists)),
    rows: async (subject) => {
      const [testFile, devFile] = files(subject);
      const [test, dev] = await Promise.all([read(testFile, subject, 'test'), read(devFile, subject, 'dev')]);
      return { test, dev, testFile, sourceFiles: [testFile, devFile] };
    },
  };
}
