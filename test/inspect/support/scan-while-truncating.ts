/**
 * Child process for truncated-while-read.test.ts: scans a large external-data tensor (a sparse file, so it
 * costs no disk) and truncates the file from the main thread while the addon's worker thread reads it. A
 * mapping that is not guarded dies of SIGBUS here, so this runs in its own process: the parent sees a signal
 * instead of losing its test worker. argv: FILE BYTES DELAY_MS. Prints one JSON line (ScanWhileTruncatingOutcome).
 */
import { truncateSync, writeFileSync } from 'node:fs';
import { MlrbError } from '../../../src/errors.js';
import { loadBinding } from '../../../src/native/binding.js';

export type ScanWhileTruncatingOutcome =
  | { readonly outcome: 'finished' }
  | { readonly outcome: 'error'; readonly code: string; readonly message: string };

const [file, bytesArg, delayArg] = process.argv.slice(2);
const bytes = Number(bytesArg);
writeFileSync(file!, '');
truncateSync(file!, bytes);
const cols = 1024;
const scan = loadBinding().scanZeros([{ tensor: 'blocks.0.weight', file: file!, offset: 0, rows: bytes / 4 / cols, cols, elementBytes: 4, ignoreSign: true }], { threads: 1 });
// Late enough that the worker has opened the file and checked its size, early enough to land mid-scan.
setTimeout(() => truncateSync(file!, 0), Number(delayArg));
const result: ScanWhileTruncatingOutcome = await scan.then(
  () => ({ outcome: 'finished' }) as const,
  (error: unknown) => {
    if (!(error instanceof MlrbError)) throw error;
    return { outcome: 'error', code: error.code, message: error.message } as const;
  },
);
console.log(JSON.stringify(result));
