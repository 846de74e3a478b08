/**
 * `mlrb-eval --tasks list` (and lm-eval's `list_groups`, `list_subtasks`, `list_tags`): the names --tasks accepts,
 * as Markdown tables like lm-eval's task listing, with the suite each loads in place of lm-eval's config path.
 */
import { describeTaskNames, listTaskNames, type ListedTaskName } from '../tasks/task-names.js';
import { renderMarkdown } from './table.js';

export const TASK_LISTINGS = ['list', 'list_groups', 'list_subtasks', 'list_tags'] as const;
export type TaskListing = (typeof TASK_LISTINGS)[number];

const SECTIONS = [
  { kind: 'group', header: 'Group', listings: ['list', 'list_groups'] },
  { kind: 'tag', header: 'Tag', listings: ['list', 'list_tags'] },
  { kind: 'task', header: 'Task', listings: ['list', 'list_subtasks'] },
] as const satisfies readonly { kind: ListedTaskName['kind']; header: string; listings: readonly TaskListing[] }[];

/** Whose name each is, as the usage text groups them. */
const ORIGINS: Readonly<Record<ListedTaskName['origin'], string>> = {
  'lm-eval': 'lm-eval',
  babylm: 'BabyLM 2024',
  ours: 'mlrb-eval',
  alias: 'mlrb-eval (another spelling)',
};

export function renderTaskList(listing: TaskListing): string {
  const names = listTaskNames();
  const tables = SECTIONS.filter((section) => (section.listings as readonly TaskListing[]).includes(listing)).map((section) =>
    renderMarkdown(
      [section.header, 'Suite', 'Named by'],
      names.filter((entry) => entry.kind === section.kind).map((entry) => [entry.name, entry.suite, ORIGINS[entry.origin]]),
    ),
  );
  const patterns =
    listing === 'list' || listing === 'list_subtasks'
      ? `\nBabyLM's subtasks are named after the files in its data folder: ${describeTaskNames()
          .babyLm.filter((name) => name.includes('<'))
          .join(', ')}\n`
      : '';
  return `${tables.join('\n')}${patterns}`;
}
