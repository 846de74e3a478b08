/** What an MMLU source is, whichever layout it reads (sources.ts picks the layout, hub-source.ts reads the hub's). */
import type { SplitSource } from '../split-source.js';
import type { MmluDoc } from './rows.js';

export interface MmluSubjectSplits {
  readonly test: SplitSource<MmluDoc>;
  readonly dev: SplitSource<MmluDoc>;
}

export interface MmluSource {
  readonly dir: string;
  /** Whether the subject's test and dev splits are both there. */
  readonly has: (subject: string) => Promise<boolean>;
  /** The subject's splits; BAD_DATA naming the folder or file when one is missing (now or when read). */
  readonly splits: (subject: string) => Promise<MmluSubjectSplits>;
}

export type MmluLayout = 'release' | 'hub';
