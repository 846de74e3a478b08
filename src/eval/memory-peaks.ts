/**
 * The process's resident-memory high-water mark, split at the end of loading so a run can report what loading
 * peaked at and what scoring peaked at. Linux keeps the mark in /proc/self/status (VmHWM) and resets it to the
 * current RSS when "5" is written to /proc/self/clear_refs; getrusage's maxRSS cannot be reset, so it is only
 * the fallback for a whole-run figure elsewhere.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const STATUS_FILE = '/proc/self/status';
const CLEAR_REFS_FILE = '/proc/self/clear_refs';
/** clear_refs code 5: reset the peak RSS to the current RSS (Linux 4.0+); nothing else is cleared. */
const RESET_PEAK_RSS = '5';

/** VmHWM in bytes, or null where /proc is not Linux's. */
export function peakRssBytes(): number | null {
  try {
    const line = readFileSync(STATUS_FILE, 'utf8').split('\n').find((entry) => entry.startsWith('VmHWM:'));
    const kib = line === undefined ? Number.NaN : Number.parseInt(line.slice('VmHWM:'.length), 10);
    return Number.isFinite(kib) ? kib * 1024 : null;
  } catch {
    return null;
  }
}

/** Starts a new high-water mark at the current RSS; false where the kernel does not allow it. */
export function resetPeakRss(): boolean {
  try {
    writeFileSync(CLEAR_REFS_FILE, RESET_PEAK_RSS);
    return true;
  } catch {
    return false;
  }
}

/** A type, not an interface, so it is a JSON record for the results file. */
export type MemoryPeaks = {
  /** Peak RSS from the start of the run until the model was loaded (ORT session, rewrites, tokenizer). */
  readonly load_peak_rss_bytes: number | null;
  /** Peak RSS from the end of loading until scoring finished; null where the mark cannot be reset. */
  readonly scoring_peak_rss_bytes: number | null;
};

/** Call once loading is done; the returned function, called once scoring is done, gives both peaks. */
export function splitMemoryPeaks(): () => MemoryPeaks {
  const loadPeak = peakRssBytes();
  const reset = loadPeak !== null && resetPeakRss();
  return () => ({ load_peak_rss_bytes: loadPeak, scoring_peak_rss_bytes: reset ? peakRssBytes() : null });
}
