/**
 * Few-shot prefix reuse planning. Rows that start with the same long run of tokens (the description and
 * k solved examples of one MMLU subject) form a group: the shared prefix is run once, its KV kept, and
 * each row then runs only its own suffix with that KV as the past. Rows are grouped in lexicographic
 * order, so rows with a common prefix are neighbours; a group keeps growing while every row shares at
 * least `minPrefixTokens` with its first row. The prefix always stops before a row's first scored
 * position, so every logit a request reads still comes from the row's own forward pass.
 */
import { compareLexicographic, sortLongestFirst, type PlannedRow } from './collator.js';

export interface PrefixGroup {
  readonly prefix: readonly number[];
  /** The group's rows with the prefix cut off, longest first. */
  readonly suffixRows: PlannedRow[];
}

export interface PrefixPlan {
  readonly groups: PrefixGroup[];
  /** Rows that share no worthwhile prefix with any other: scored as they are. */
  readonly plainRows: PlannedRow[];
}

/** Below this, the extra prefix pass and KV copies cost about what reuse saves. */
export const DEFAULT_MIN_PREFIX_TOKENS = 32;

function commonPrefixLength(a: readonly number[], b: readonly number[], limit: number): number {
  const bound = Math.min(limit, a.length, b.length);
  let length = 0;
  while (length < bound && a[length] === b[length]) length += 1;
  return length;
}

/** Tokens of a row that may go into a prefix: everything before its first scored position. */
const reusableLength = (row: PlannedRow): number => row.tokens.length - row.scoredTail;

export function planPrefixGroups(rows: readonly PlannedRow[], minPrefixTokens = DEFAULT_MIN_PREFIX_TOKENS): PrefixPlan {
  if (!Number.isInteger(minPrefixTokens) || minPrefixTokens < 1) throw new RangeError(`minPrefixTokens must be a positive integer, got ${minPrefixTokens}`);
  const sorted = [...rows].sort((a, b) => compareLexicographic(a.tokens, b.tokens));
  const groups: PrefixGroup[] = [];
  const plainRows: PlannedRow[] = [];
  let start = 0;
  while (start < sorted.length) {
    const first = sorted[start] as PlannedRow;
    let length = reusableLength(first);
    let end = start + 1;
    for (; end < sorted.length; end += 1) {
      const row = sorted[end] as PlannedRow;
      const shared = commonPrefixLength(first.tokens, row.tokens, Math.min(length, reusableLength(row)));
      if (shared < minPrefixTokens) break;
      length = shared;
    }
    if (end - start >= 2 && length >= minPrefixTokens) {
      const members = sorted.slice(start, end);
      groups.push({
        prefix: first.tokens.slice(0, length),
        suffixRows: sortLongestFirst(members.map((row) => ({ ...row, tokens: row.tokens.slice(length) }))),
      });
    } else {
      plainRows.push(first);
      end = start + 1;
    }
    start = end;
  }
  return { groups, plainRows: sortLongestFirst(plainRows) };
}
