/**
 * The Markdown table lm-eval prints after a run (lm_eval.utils.make_table, as rendered by pytablewriter), so
 * its output and ours can be compared by eye or by diff:
 *   |Tasks|Version|Filter|n-shot|Metric|   |Value |   |Stderr|
 * Rows are ordered and indented as lm-eval 0.4.13's make_table does from `group_subtasks` (roots sorted, then
 * each group's subtasks sorted, depth d prefixed by d spaces and "- "); metrics within a row are sorted by key;
 * numbers are right-aligned, text left-aligned, headers centred like Python's str.center. Names are printed
 * whole, as make_table prints them, however wide the table gets: a terminal wraps a long line, while a name cut
 * short can read as another task's (three BLiMP paradigms once printed as the same "…" row).
 */
import type { LmEvalResults } from '../eval/result-types.js';

export type TableSource = Pick<LmEvalResults, 'results' | 'groups' | 'versions' | 'n-shot' | 'higher_is_better'> &
  Partial<Pick<LmEvalResults, 'group_subtasks'>>;

const HIGHER_IS_BETTER_SYMBOLS = { true: '↑', false: '↓' } as const;

/** `column` 'results' gives the per-task table, 'groups' the group summary lm-eval prints after it. */
export function renderResultsTable(source: TableSource, column: 'results' | 'groups' = 'results', firstHeader?: string): string {
  const headers = [firstHeader ?? (column === 'results' ? 'Tasks' : 'Groups'), 'Version', 'Filter', 'n-shot', 'Metric', '', 'Value', '', 'Stderr'];
  const rows: string[][] = [];
  const entries = source[column] ?? {};
  const { depths, order } = hierarchy(source.group_subtasks ?? {}, Object.keys(entries));
  for (const name of order) {
    const entry = entries[name];
    if (entry === undefined) continue;
    const depth = depths.get(name) ?? 0;
    let label = (depth > 0 ? `${' '.repeat(depth)}- ` : '') + entry.alias;
    let version = String(source.versions[name] ?? '    N/A');
    let shots = String(source['n-shot'][name] ?? ' ');
    const higherIsBetter = source.higher_is_better[name] ?? {};
    const keys = Object.keys(entry)
      .filter((key) => key !== 'alias')
      .sort();
    for (const key of keys) {
      const [metric = '', filter = ''] = splitOnce(key, ',');
      if (metric.endsWith('_stderr')) continue;
      const hib = higherIsBetter[metric];
      const symbol = hib === undefined ? '' : HIGHER_IS_BETTER_SYMBOLS[String(hib) as 'true' | 'false'];
      const stderrKey = `${metric}_stderr,${filter}` as const;
      const stderr = Object.hasOwn(entry, stderrKey) ? entry[stderrKey] : undefined;
      const stderrCells = stderr === undefined ? ['', ''] : ['±', stderr === 'N/A' ? '   N/A' : formatFixed(stderr, 4)];
      rows.push([label, version, filter, shots, metric, symbol, formatValue(entry[key as `${string},${string}`]), ...stderrCells]);
      label = '';
      version = '';
      shots = '';
    }
  }
  return renderMarkdown(headers, rows);
}

/** lm_eval.utils._build_hierarchy_info (0.4.13): depth of every name, and the display order of `available`. */
export function hierarchy(
  groupSubtasks: Readonly<Record<string, readonly string[]>>,
  available: readonly string[],
): { depths: Map<string, number>; order: string[] } {
  const present = new Set(available);
  const depths = new Map<string, number>();
  const order: string[] = [];
  const visit = (name: string, depth: number): void => {
    depths.set(name, depth);
    if (present.has(name)) order.push(name);
    for (const child of [...(groupSubtasks[name] ?? [])].sort(byCodePoint)) visit(child, depth + 1);
  };
  const children = new Set(Object.values(groupSubtasks).flat());
  for (const name of Object.keys(groupSubtasks).sort(byCodePoint)) if (!children.has(name)) visit(name, 0);
  for (const name of [...available].sort(byCodePoint)) if (!depths.has(name)) order.push(name);
  return { depths, order };
}

/** Python's sorted() on str: by code point, not by UTF-16 unit or locale. */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Python's `"%.4f" % value`: exact ties round half to even, where Number#toFixed rounds them up. */
export function formatFixed(value: number, digits: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
  const rounded = value.toFixed(digits);
  // A tie has exactly digits + 1 decimals, so 25 more places show it exactly; any other double is more than
  // 1e-(digits + 25) away from a tie, so it cannot print as one.
  const exact = Math.abs(value).toFixed(Math.min(100, digits + 25));
  const tail = exact.slice(exact.indexOf('.') + 1 + digits);
  if (!/^50*$/.test(tail)) return rounded;
  const lastDigit = Number(rounded.at(-1));
  if (lastDigit % 2 === 0) return rounded;
  // toFixed rounded a tie away from zero onto an odd digit: step back one unit toward zero.
  const down = (Math.abs(value) - 0.5 * 10 ** -digits).toFixed(digits);
  return (value < 0 ? '-' : '') + down;
}

function formatValue(value: number | 'N/A' | undefined): string {
  return typeof value === 'number' ? formatFixed(value, 4) : String(value ?? '');
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, ''] : [text.slice(0, at), text.slice(at + separator.length)];
}

/** A Markdown table as pytablewriter writes lm-eval's: padded columns, numbers right-aligned, headers centred. */
export function renderMarkdown(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) => Math.max(3, header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const rightAligned = headers.map((_, column) => {
    const cells = rows.map((row) => (row[column] ?? '').trim()).filter((cell) => cell !== '');
    return cells.length > 0 && cells.every((cell) => /^[+-]?(\d+\.?\d*|\.\d+)$/.test(cell));
  });
  const line = (cells: readonly string[]): string => `|${cells.join('|')}|`;
  const out = [
    line(headers.map((header, column) => pythonCenter(header, widths[column] ?? 0))),
    line(widths.map((width, column) => (rightAligned[column] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width)))),
    ...rows.map((row) => line(row.map((cell, column) => (rightAligned[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))))),
  ];
  return `${out.join('\n')}\n`;
}

/** CPython's str.center: the odd space goes right unless both the margin and the width are odd. */
function pythonCenter(text: string, width: number): string {
  const margin = width - text.length;
  if (margin <= 0) return text;
  const left = Math.floor(margin / 2) + (margin & width & 1);
  return ' '.repeat(left) + text + ' '.repeat(margin - left);
}

/**
 * `--show-breakdowns`: one table per tag in `mlrb.breakdowns` (BLiMP's `field` and `linguistics_term`): each
 * value's unweighted mean over its paradigms, with how many paradigms and pairs it covers.
 */
export function renderBreakdownTables(breakdowns: unknown): string[] {
  if (!isRecord(breakdowns)) return [];
  return Object.entries(breakdowns).flatMap(([tag, byValue]) => {
    if (!isRecord(byValue)) return [];
    const rows: string[][] = [];
    for (const [value, row] of Object.entries(byValue).sort(([a], [b]) => byCodePoint(a, b))) {
      if (!isRecord(row)) continue;
      let label = value;
      let counts = [String(row.tasks ?? ''), String(row.n ?? '')];
      for (const key of Object.keys(row)
        .filter((name) => name.includes(',') && !name.includes('_stderr,'))
        .sort()) {
        const [metric = '', filter = ''] = splitOnce(key, ',');
        const stderr = row[`${metric}_stderr,${filter}`];
        const cell = (item: unknown): string => (typeof item === 'number' ? formatFixed(item, 4) : String(item ?? ''));
        rows.push([label, ...counts, metric, cell(row[key]), '±', cell(stderr)]);
        label = '';
        counts = ['', ''];
      }
    }
    const headers = [tag, 'Subtasks', 'n', 'Metric', 'Value', '', 'Stderr'];
    return [renderMarkdown(headers, rows)];
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
