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

/**
 * Where to look for a stop string in a text that grew (or changed) from `changedFrom` on, when the text before
 * the change held none: an occurrence that starts earlier would lie wholly in the unchanged, already searched part.
 */
export function stopSearchStart(changedFrom: number, longestStop: number): number {
  return Math.max(0, changedFrom - longestStop + 1);
}
