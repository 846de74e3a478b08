/**
 * Stop strings on decoded text, lm-eval's `until`: a generation ends once its text contains one, and its text is
 * cut before the earliest occurrence of any of them. Checked in JS on the decoded text because token ids cannot
 * tell: a stop string may span tokens or sit inside one.
 */

/** The index of the earliest occurrence of any non-empty stop string in `text`, or -1. */
export function earliestStop(text: string, stopStrings: readonly string[]): number {
  let earliest = -1;
  for (const stop of stopStrings) {
    if (stop === '') continue;
    const at = text.indexOf(stop);
    if (at >= 0 && (earliest < 0 || at < earliest)) earliest = at;
  }
  return earliest;
}

/** `text` cut before its earliest stop string (unchanged without one). */
export function cutAtStop(text: string, stopStrings: readonly string[]): string {
  const at = earliestStop(text, stopStrings);
  return at < 0 ? text : text.slice(0, at);
}
