/**
 * Where MMLU's subjects are, in either accepted layout, as a test and a dev SplitSource per subject; the loader
 * sees only those, so a subject's documents cannot depend on which copy an operator has:
 *   release  the Hendrycks CSVs, `test/<subject>_test.csv` and `dev/<subject>_dev.csv` (rows.ts reads both
 *            spellings of them);
 *   hub      the Hugging Face hub's `cais/mmlu` parquet (hub-source.ts).
 */
import { join } from 'node:path';
import { pathEntryExists } from '../../io/regular-file.js';
import { isDirectory } from '../data-files.js';
import { resolveSuiteData, type DataLayout, type SuiteData } from '../hub-layout.js';
import { releaseSplit } from '../split-source.js';
import { hasMmluHubLayout, openMmluHubSource } from './hub-source.js';
import { mmluCsvParser } from './rows.js';
import type { MmluLayout, MmluSource } from './source-types.js';

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
  const data = await resolveSuiteData(dataDir, { suite: 'mmlu', label: 'MMLU', layouts: LAYOUTS, hubRepos: ['cais/mmlu'] });
  return data.layout === 'hub' ? openMmluHubSource(data) : releaseSource(data);
}

function releaseSource(data: SuiteData<MmluLayout>): MmluSource {
  const names = (subject: string): [test: string, dev: string] => [join('test', `${subject}_test.csv`), join('dev', `${subject}_dev.csv`)];
  return {
    dir: data.dir,
    // Anything at the path counts as present, so a FIFO or a stray link is refused by the reader.
    has: (subject) => Promise.resolve(names(subject).every((name) => pathEntryExists(join(data.dir, name)))),
    splits: (subject) => {
      const [test, dev] = names(subject);
      const parse = mmluCsvParser(subject);
      return Promise.resolve({
        test: releaseSplit(data, [test], `MMLU test file for ${subject}`, parse),
        dev: releaseSplit(data, [dev], `MMLU dev file for ${subject}`, parse),
      });
    },
  };
}
