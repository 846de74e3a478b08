/**
 * A suite folder that lacks some of its subtasks (MMLU subjects, BLiMP paradigms, SuperGLUE tasks) must not
 * pass for the whole suite: a `blimp` that is the mean of 2 paradigms looks like a BLiMP score and is not one.
 * Loaders therefore refuse such a folder with a BAD_DATA error that lists what is missing. With allowPartial
 * they score what is there, and every group that lost a member is renamed `<name>_partial` (so a consumer
 * reading `groups.blimp` finds nothing rather than a wrong number) with an alias that says what it lacks;
 * the suite's `missing` list ends up in the results as `mlrb.partial`.
 */
import { MlrbError } from '../errors.js';
import type { TaskGroup } from './types.js';

export const PARTIAL_SUFFIX = '_partial';

/** How many missing names an alias spells out before it summarises (the error and mlrb.partial list them all). */
const LISTED_NAMES = 12;

export interface CompletenessCheck {
  /** e.g. "BLiMP", for messages. */
  readonly suiteLabel: string;
  /** The suite's folder, named in the error. */
  readonly dir: string;
  /** lm-eval task names the full suite has and this folder lacks. */
  readonly missing: readonly string[];
  /** How many subtasks the full suite has. */
  readonly expected: number;
  /** Subtasks that are there; none at all is an error even with allowPartial (there is nothing to score). */
  readonly present: number;
  readonly allowPartial: boolean | undefined;
  /** Which files the missing subtasks need in this folder's layout, and where to get them (for the message). */
  readonly howToComplete?: string;
}

/** Throws BAD_DATA listing the missing subtasks, unless nothing is missing or partial runs are allowed. */
export function refuseIncomplete(check: CompletenessCheck): void {
  if (check.missing.length === 0 || (check.allowPartial === true && check.present > 0)) return;
  throw new MlrbError(
    'BAD_DATA',
    `${check.suiteLabel} data in ${check.dir} is incomplete: ${check.missing.length} of ${check.expected} subtasks are missing ` +
      `(${check.missing.join(', ')})${check.howToComplete === undefined ? '' : `; ${check.howToComplete}`}; --allow-partial (library: allowPartial) scores the rest as a partial suite`,
    { file: check.dir, missing: [...check.missing] },
  );
}

/**
 * Renames every group in `affected` to `<name>_partial`, in its own entry and wherever another group lists it,
 * and appends what it lacks to its alias.
 */
export function markPartialGroups(groups: readonly TaskGroup[], affected: ReadonlySet<string>, missing: readonly string[], expected: number): TaskGroup[] {
  const rename = (name: string): string => (affected.has(name) ? `${name}${PARTIAL_SUFFIX}` : name);
  const note = missing.length <= LISTED_NAMES ? `without ${missing.join(', ')}` : `${missing.length} of ${expected} subtasks missing`;
  return groups.map((group) => ({
    ...group,
    name: rename(group.name),
    subtasks: group.subtasks.map(rename),
    ...(affected.has(group.name) ? { alias: `${group.alias ?? group.name} (partial: ${note})` } : {}),
  }));
}
