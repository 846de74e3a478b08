/**
 * MMLU as the Hugging Face hub has it (`cais/mmlu`, the rows lm-eval loads; rows.ts reads its columns), either
 *   all/test-00000-of-00001.parquet, all/dev-…            every subject in one file, told apart by `subject`
 *   <subject>/test-00000-of-00001.parquet, <subject>/dev-… one config per subject
 * A subject folder wins over `all` where both exist; `all` is read once and split by subject, in file order.
 */
import { join } from 'node:path';
import { MlrbError } from '../../errors.js';
import { splitShards, type SuiteData } from '../hub-layout.js';
import { hubSplit, sharedSplit, splitSubset, type SplitSource } from '../split-source.js';
import { mmluParquetParser, type MmluDoc } from './rows.js';
import type { MmluLayout, MmluSource, MmluSubjectSplits } from './source-types.js';
import { MMLU_SUBJECTS, isMmluSubject } from './subjects.js';

const ALL = 'all';
type Split = 'test' | 'dev';

/** Whether `dir` holds the hub layout: an `all` config or any subject's config with a test split. */
export async function hasMmluHubLayout(dir: string): Promise<boolean> {
  for (const config of [ALL, ...MMLU_SUBJECTS]) if ((await splitShards(join(dir, config), 'test')).length > 0) return true;
  return false;
}

const ownSubjectOnly = (config: string) => (subject: string) => (subject === config ? undefined : `not ${config}, the config the file is in`);
const anyMmluSubject = (subject: string): string | undefined => (isMmluSubject(subject) ? undefined : 'not an MMLU subject');

export function openMmluHubSource(data: SuiteData<MmluLayout>): MmluSource {
  const shardsOf = (config: string, split: Split): Promise<string[]> => splitShards(join(data.dir, config), split);
  const splitOf = (config: string, split: Split, shards: readonly string[], subjectOk: (subject: string) => string | undefined): SplitSource<MmluDoc> =>
    hubSplit(data, shards, `MMLU hub ${split} file for ${config}`, mmluParquetParser(subjectOk));
  let all: Promise<MmluSubjectSplits | undefined> | undefined;
  /** The `all` config's splits, read once for every subject; undefined when it has no test split. */
  const allSplits = (): Promise<MmluSubjectSplits | undefined> =>
    (all ??= (async () => {
      const [test, dev] = [await shardsOf(ALL, 'test'), await shardsOf(ALL, 'dev')];
      if (test.length === 0) return undefined;
      return { test: sharedSplit(splitOf(ALL, 'test', test, anyMmluSubject)), dev: sharedSplit(splitOf(ALL, 'dev', dev, anyMmluSubject)) };
    })());
  /** A subject's own config; undefined when it has no test split there. */
  const own = async (subject: string): Promise<{ readonly test: string[]; readonly dev: string[] } | undefined> => {
    const test = await shardsOf(subject, 'test');
    return test.length > 0 ? { test, dev: await shardsOf(subject, 'dev') } : undefined;
  };
  const fromAll = async (subject: string): Promise<MmluSubjectSplits | undefined> => {
    const splits = await allSplits();
    if (splits === undefined) return undefined;
    const ofSubject = (doc: MmluDoc): boolean => doc.subject === subject;
    return { test: splitSubset(splits.test, ofSubject), dev: splitSubset(splits.dev, ofSubject) };
  };
  return {
    dir: data.dir,
    has: async (subject) => {
      const files = await own(subject);
      if (files !== undefined) return files.dev.length > 0;
      const splits = await fromAll(subject);
      return splits !== undefined && (await readInOrder(splits)).dev.length > 0;
    },
    splits: async (subject) => {
      const files = await own(subject);
      if (files === undefined) {
        const splits = await fromAll(subject);
        if (splits === undefined) throw missingSplit(join(data.dir, ALL), ALL, 'test');
        const { test, dev } = await readInOrder(splits);
        // A subject with dev rows only is there; the loader reports its empty test split.
        if (test.length === 0 && dev.length === 0) throw missingSplit(join(data.dir, subject), subject, 'test');
        return splits;
      }
      if (files.dev.length === 0) throw missingSplit(join(data.dir, subject), subject, 'dev');
      return { test: splitOf(subject, 'test', files.test, ownSubjectOnly(subject)), dev: splitOf(subject, 'dev', files.dev, ownSubjectOnly(subject)) };
    },
  };
}

/**
 * Reads `all`'s test split before its dev split (each once: they are shared), so a bad row in both is reported
 * from the test file, whichever finishes first.
 */
async function readInOrder(splits: MmluSubjectSplits): Promise<{ readonly test: MmluDoc[]; readonly dev: MmluDoc[] }> {
  const test = await splits.test.read();
  return { test, dev: await splits.dev.read() };
}

function missingSplit(configDir: string, config: string, split: Split): MlrbError {
  return new MlrbError('BAD_DATA', `MMLU hub data has no ${split} split for ${config}: expected ${split}-00000-of-00001.parquet in ${configDir}`, {
    file: configDir,
  });
}
