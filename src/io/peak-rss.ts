/**
 * This process's peak resident memory. On Linux it is VmHWM from /proc/self/status: getrusage's maxrss
 * (process.resourceUsage().maxRSS) keeps the peak of the image the process was exec'd from, so a run
 * started by a large parent (a harness holding a model, a benchmark) would report that parent's peak.
 * Elsewhere maxRSS is the best there is.
 */
import { readFileSync } from 'node:fs';

/** VmHWM in bytes, or null where /proc is not Linux's. */
export function vmHwmBytes(): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null; // no procfs (macOS, Windows)
  }
}

export function peakRssBytes(): number {
  return vmHwmBytes() ?? process.resourceUsage().maxRSS * 1024;
}
