/**
 * The process's resident-memory high-water mark, split at the end of loading so a run can report what loading
 * peaked at and what scoring peaked at. Linux keeps the mark in /proc/self/status (VmHWM) and resets it to the
 * current RSS when "5" is written to /proc/self/clear_refs; getrusage's maxRSS cannot be reset, so it is only
 * the fallback for a whole-run figure elsewhere.
 */
import { writeFileSync } from 'node:fs';
import { peakRssBytes, vmHwmBytes } from '../io/peak-rss.js';

const CLEAR_REFS_FILE = '/proc/self/clear_refs';
/** clear_refs code 5: reset the peak RSS to the current RSS (Linux 4.0+); nothing else is cleared. */
const RESET_PEAK_RSS = '5';

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
  const loadPeak = vmHwmBytes();
  const reset = loadPeak !== null && resetPeakRss();
  return () => ({ load_peak_rss_bytes: loadPeak, scoring_peak_rss_bytes: reset ? vmHwmBytes() : null });
}

/**
 * The whole run's peak: the larger split peak where both were measured (VmHWM restarts at exec, so neither
 * counts a parent's memory), else the process's peak as peak-rss.ts reads it.
 */
export function wholeRunPeakRssBytes(memory: MemoryPeaks): number {
  const { load_peak_rss_bytes: load, scoring_peak_rss_bytes: scoring } = memory;
  return load !== null && scoring !== null ? Math.max(load, scoring) : peakRssBytes();
}
