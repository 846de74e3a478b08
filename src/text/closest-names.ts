/**
 * "Did you mean": the known names nearest a mistyped one, by edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours each cost 1, case ignored). Only names close enough to be the same
 * word mistyped are offered: at most a third of the typed name's length, and never more than 4 edits.
 */

const MAX_SUGGESTIONS = 3;
const MAX_DISTANCE = 4;

/** The nearest names (at most three, nearest first, then in `known`'s order); none when nothing is close. */
export function closestNames(typed: string, known: readonly string[]): string[] {
  const limit = Math.min(MAX_DISTANCE, Math.max(1, Math.floor(typed.length / 3)));
  const wanted = typed.toLowerCase();
  const scored = known
    .map((name, index) => ({ name, index, distance: editDistance(wanted, name.toLowerCase(), limit) }))
    .filter((entry) => entry.distance <= limit);
  const best = Math.min(...scored.map((entry) => entry.distance));
  return scored
    .filter((entry) => entry.distance === best)
    .sort((a, b) => a.index - b.index)
    .slice(0, MAX_SUGGESTIONS)
    .map((entry) => entry.name);
}

/** `did you mean "a" or "b"?`, or '' when there is nothing to suggest. */
export function didYouMean(suggestions: readonly string[]): string {
  if (suggestions.length === 0) return '';
  const quoted = suggestions.map((name) => JSON.stringify(name));
  const listed = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
  return `did you mean ${listed}?`;
}

/** Optimal string alignment distance, stopped early once every cell of a row is above `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = Array.from({ length: b.length + 1 }, (_, j) => j);
  let previous = before.slice();
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (before[j - 2] ?? 0) + 1);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}
