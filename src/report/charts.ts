/**
 * The report's charts as Vega-Lite specs: data in, declarative spec out; chart-render.ts draws them. A chart
 * with no data is left out (the page says why), never drawn empty. Marks are named so tests and readers of
 * the SVG can find them: Vega writes `<name>_marks` as a CSS class on each mark group. Names must be unique
 * within a chart (Vega looks marks up by name: panels that share one all draw the first panel's data), so
 * the per-task panels number theirs (`mean_bars_0`, `mean_bars_1` …).
 *
 * Per-run marks are drawn while a chart has at most PER_RUN_CHART_LIMIT runs; beyond that a chart aggregates
 * (dots of equal agent, kind and score merged and sized by their count, bars averaged per agent, margins shown
 * per agent at their worst), so a report over 10,000 runs stays a readable picture of a bounded size instead
 * of one bar per run (which drew 44 MB images and held gigabytes while drawing them).
 */
import type { TopLevelSpec } from 'vega-lite';
import { marginOf, type ConstraintUse } from './constraints.js';
import { MMLU_CATEGORIES, type BreakdownScore, type ReportRun } from './report-run.js';
import type { GroupSummary, SummaryOptions } from './statistics.js';

export interface ChartDefinition {
  /** File and element name: `charts/<id>.png`, `<figure id="chart-<id>">`. */
  readonly id: string;
  readonly title: string;
  /** What the chart shows and how to read it, under the chart. */
  readonly caption: string;
  /** Null when no run has the data; `emptyReason` says why. */
  readonly spec: TopLevelSpec | null;
  readonly emptyReason: string;
}

export const ELIGIBILITY_COLORS = { eligible: '#2e7d32', unchecked: '#8d8d8d', not_judged: '#ef6c00', ineligible: '#c62828' } as const;

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
/** Runs a chart draws one by one; past this many it aggregates. */
export const PER_RUN_CHART_LIMIT = 300;
/** Scores of aggregated dots are merged when they round to the same multiple of this. */
const SCORE_BIN = 0.005;
const WIDTH_PER_CATEGORY = 22;

/** How a run's dot is drawn: the shape legend's entries, in order. */
const RUN_KINDS = { successful: 'circle', partial: 'triangle-up', 'not successful': 'cross' } as const;
/** Bars of partial data: outlined with a dashed stroke and faded, with a `partial` legend entry. */
const PARTIAL_BAR = { opacity: 0.35, stroke: '#1f2328', strokeDash: [3, 2], strokeWidth: 1 } as const;

export function reportCharts(runs: readonly ReportRun[], summaries: readonly GroupSummary[], options: SummaryOptions): ChartDefinition[] {
  return [
    scoresChart(runs, summaries, options),
    categoryChart(
      'mmlu-categories',
      'MMLU accuracy by category',
      'category',
      runs.flatMap((run) => categoryRows(run, run.mmluByCategory)),
      MMLU_CATEGORIES.map((c) => c.label),
    ),
    categoryChart(
      'blimp-fields',
      'BLiMP accuracy by field',
      'field',
      runs.flatMap((run) => categoryRows(run, run.blimpByField)),
      null,
    ),
    marginChart(
      'dram-margin',
      'DRAM margin',
      runs,
      (run) => run.dram,
      "the edge tracks' DRAM budget (1 GB training, 12 GB compression), from the record's check-track report",
    ),
    marginChart(
      'parameter-margin',
      'Parameter margin',
      runs,
      (run) => run.parameterLimit,
      "llm_merging: 8B (its inputs' limit); edge_llm_compression: the base model's count",
    ),
  ];
}

/**
 * Bars: the mean over the counted runs per agent; dots: every run with a number, coloured by eligibility and
 * shaped by kind, so a partial run's number is shown but never passes for a full one.
 */
function scoresChart(runs: readonly ReportRun[], summaries: readonly GroupSummary[], { includePartial }: SummaryOptions): ChartDefinition {
  const means = summaries
    .filter((group) => group.mean !== null)
    .map((group) => ({ kind: 'mean', task: group.task, agent: group.agent, score: group.mean, counted: `${group.counted}/${group.runs}` }));
  const perRun = runs.flatMap((run) => {
    const score = run.score ?? run.partialScore;
    if (score === null) return [];
    const kind: keyof typeof RUN_KINDS = run.successful ? 'successful' : run.score === null ? 'partial' : 'not successful';
    return [{ kind: 'run', task: run.task, agent: run.agent, score, run: run.label, eligibility: run.eligibility, status: kind, runs: 1 }];
  });
  const aggregated = perRun.length > PER_RUN_CHART_LIMIT;
  const points = aggregated ? mergeEqualDots(perRun) : perRun;
  const counted = includePartial
    ? 'successful and partial runs (--include-partial)'
    : 'successful runs (a headline scored on all of its data, eligible or unchecked)';
  const dots = aggregated
    ? `Dots: the runs with a number (${perRun.length.toLocaleString('en-US')}, more than ${PER_RUN_CHART_LIMIT}: runs of one agent, kind and eligibility whose scores round to the same ${SCORE_BIN} share a dot, sized by their count)`
    : 'Dots: every run with a number';
  const caption = `Bars: mean headline score over each agent's ${counted} of the task. ${dots}, coloured by eligibility; a triangle marks a partial run (scored on part of its data: --limit or missing subtasks), ${includePartial ? 'counted in the mean' : 'left out of the mean'}, a cross a run that is not successful.`;
  if (points.length === 0) return { id: 'scores', title: 'Headline score per agent and task', caption, spec: null, emptyReason: 'no run has a headline score' };
  const eligibility = Object.keys(ELIGIBILITY_COLORS);
  const tasks = [...new Set(points.map((point) => point.task))].sort();
  // One panel per task, each with its own data, rather than a facet: a facet with per-layer filters makes
  // Vega-Lite guess at the agents axis of each panel (and warn); separate panels need no guess.
  const spec: TopLevelSpec = {
    $schema: SCHEMA,
    hconcat: tasks.map((task, index) => ({
      title: task,
      data: { values: [...means, ...points].filter((row) => row.task === task) },
      width: { step: 48 },
      height: 240,
      encoding: {
        x: { field: 'agent', type: 'nominal', title: 'agent', axis: { labelAngle: -30 } },
        y: { field: 'score', type: 'quantitative', title: 'headline score', scale: { domain: [0, 1] } },
      },
      layer: [
        {
          name: `mean_bars_${index}`,
          transform: [{ filter: "datum.kind === 'mean'" }],
          mark: { type: 'bar', color: '#90a4c8', width: { band: 0.7 } },
          encoding: { tooltip: [{ field: 'agent' }, { field: 'score', title: 'mean', format: '.4f' }, { field: 'counted', title: 'counted/all' }] },
        },
        {
          name: `run_points_${index}`,
          transform: [{ filter: "datum.kind === 'run'" }],
          mark: { type: 'point', filled: true, size: 60, opacity: 0.9 },
          encoding: {
            color: { field: 'eligibility', type: 'nominal', scale: { domain: eligibility, range: Object.values(ELIGIBILITY_COLORS) }, title: 'eligibility' },
            shape: { field: 'status', type: 'nominal', scale: { domain: Object.keys(RUN_KINDS), range: Object.values(RUN_KINDS) }, title: 'run' },
            ...(aggregated ? { size: { field: 'runs', type: 'quantitative', title: 'runs', scale: { range: [30, 400] } } } : {}),
            tooltip: [
              { field: 'run' },
              { field: 'score', format: '.4f' },
              { field: 'eligibility' },
              { field: 'status', title: 'run' },
              ...(aggregated ? [{ field: 'runs' }] : []),
            ],
          },
        },
      ],
    })),
  };
  return { id: 'scores', title: 'Headline score per agent and task', caption, spec, emptyReason: '' };
}

type CategoryRow = { task: string; agent: string; run: string; category: string; accuracy: number; data: 'partial' | 'complete'; runs: number };

function categoryRows(run: ReportRun, byCategory: ReadonlyMap<string, BreakdownScore>): CategoryRow[] {
  return [...byCategory].map(([category, { accuracy, partial }]) => ({
    task: run.task,
    agent: run.agent,
    run: run.label,
    category,
    accuracy,
    data: partial ? 'partial' : 'complete',
    runs: 1,
  }));
}

/** One bar per task × agent × category × complete-or-partial: the mean accuracy of its runs. */
function averagePerAgent(rows: readonly CategoryRow[]): CategoryRow[] {
  return groupRows(rows, (row) => [row.task, row.agent, row.category, row.data]).map((group) => {
    const [first] = group as [CategoryRow, ...CategoryRow[]];
    const accuracy = group.reduce((sum, row) => sum + row.accuracy, 0) / group.length;
    return { ...first, run: `${first.agent} (mean of ${group.length})`, accuracy, runs: group.length };
  });
}

/**
 * Grouped bars per task: one group per category, one bar per run, coloured by agent. Bars of partial data are
 * a layer of their own (`category_partial_bars`), faded and outlined, with a `partial` entry in the legend.
 */
function categoryChart(id: string, title: string, what: string, perRun: CategoryRow[], order: readonly string[] | null): ChartDefinition {
  const runCount = new Set(perRun.map((row) => row.run)).size;
  const aggregated = runCount > PER_RUN_CHART_LIMIT;
  const rows = aggregated ? averagePerAgent(perRun) : perRun;
  const bars = aggregated
    ? `one bar per agent: the mean over its runs (${runCount.toLocaleString('en-US')} runs, more than ${PER_RUN_CHART_LIMIT}, are not drawn one by one)`
    : 'one bar per run';
  const caption = `Accuracy by ${what}, ${bars} (coloured by agent), one row per task. Faded, dashed bars are partial: the run's suite was scored on part of its data (--limit, or missing subtasks).`;
  if (rows.length === 0) return { id, title, caption, spec: null, emptyReason: `no run has ${title.split(' ')[0]} results` };
  const categories = order ?? [...new Set(rows.map((row) => String(row.category)))].sort();
  // Both layers carry the opacity encoding, so the legend lists `complete` and `partial` whichever data there is.
  const dataLegend = {
    field: 'data',
    type: 'ordinal',
    sort: ['complete', 'partial'],
    scale: { domain: ['complete', 'partial'], range: [1, PARTIAL_BAR.opacity] },
    title: 'data',
  } as const;
  const spec: TopLevelSpec = {
    $schema: SCHEMA,
    data: { values: rows },
    facet: { row: { field: 'task', type: 'nominal', title: null, header: { labelFontWeight: 'bold', labelAngle: 0, labelAlign: 'left' } } },
    spec: {
      width: Math.max(240, categories.length * WIDTH_PER_CATEGORY * Math.max(1, new Set(rows.map((row) => row.run)).size / 2)),
      height: 160,
      encoding: {
        x: { field: 'category', type: 'nominal', sort: [...categories], title: what, axis: { labelAngle: -30 } },
        xOffset: { field: 'run', type: 'nominal' },
        y: { field: 'accuracy', type: 'quantitative', scale: { domain: [0, 1] } },
        color: { field: 'agent', type: 'nominal' },
        opacity: dataLegend,
        tooltip: [
          { field: 'run' },
          { field: 'category', title: what },
          { field: 'accuracy', format: '.4f' },
          { field: 'data' },
          ...(aggregated ? [{ field: 'runs' }] : []),
        ],
      },
      layer: [
        { name: 'category_bars', transform: [{ filter: "datum.data === 'complete'" }], mark: 'bar' },
        {
          name: 'category_partial_bars',
          transform: [{ filter: "datum.data === 'partial'" }],
          mark: { type: 'bar', stroke: PARTIAL_BAR.stroke, strokeDash: [...PARTIAL_BAR.strokeDash], strokeWidth: PARTIAL_BAR.strokeWidth },
        },
      ],
    },
  };
  return { id, title, caption, spec, emptyReason: '' };
}

/** One bar per run with such a limit: its margin in percent of the limit; a rule marks the limit itself. */
function marginChart(id: string, title: string, runs: readonly ReportRun[], useOf: (run: ReportRun) => ConstraintUse | null, limits: string): ChartDefinition {
  // Grouped by task, so each task's runs sit together whatever order they ran in.
  const byTask = [...runs].sort((a, b) => (a.task < b.task ? -1 : a.task > b.task ? 1 : 0));
  const perRun = byTask.flatMap((run) => {
    const use = useOf(run);
    return use === null
      ? []
      : [
          {
            run: `${run.task} · ${run.label}`,
            task: run.task,
            agent: run.agent,
            margin: 100 * marginOf(use),
            used: use.used,
            limit: use.limit,
            basis: use.basis,
            limitSource: use.limitSource,
            runs: 1,
          },
        ];
  });
  const aggregated = perRun.length > PER_RUN_CHART_LIMIT;
  // Aggregated, each task × agent shows its worst run: the margin that decides whether the agent kept to the limit.
  const rows = aggregated
    ? groupRows(perRun, (row) => [row.task, row.agent]).map((group) => {
        const worst = group.reduce((low, row) => (row.margin < low.margin ? row : low));
        return { ...worst, run: `${worst.task} · ${worst.agent} (worst of ${group.length})`, runs: group.length };
      })
    : perRun;
  const bars = aggregated
    ? `One bar per task and agent: its worst run (${perRun.length.toLocaleString('en-US')} runs, more than ${PER_RUN_CHART_LIMIT}, are not drawn one by one). `
    : '';
  const caption = `${bars}(limit − used) / limit, in percent: right of zero is headroom, left of it is over the limit. Limits: ${limits}.`;
  if (rows.length === 0) return { id, title, caption, spec: null, emptyReason: 'no run has such a limit' };
  const spec: TopLevelSpec = {
    $schema: SCHEMA,
    data: { values: rows },
    width: 420,
    height: { step: 18 },
    layer: [
      {
        name: 'margin_bars',
        mark: 'bar',
        encoding: {
          y: { field: 'run', type: 'nominal', title: null, sort: null, axis: { labelLimit: 360 } },
          x: { field: 'margin', type: 'quantitative', title: 'margin (% of limit)' },
          color: { field: 'agent', type: 'nominal' },
          tooltip: [
            { field: 'run' },
            { field: 'margin', format: '.2f' },
            { field: 'used', format: ',' },
            { field: 'limit', format: ',' },
            { field: 'basis' },
            { field: 'limitSource', title: 'limit' },
            ...(aggregated ? [{ field: 'runs' }] : []),
          ],
        },
      },
      {
        name: 'limit_rule',
        data: { values: [{ margin: 0 }] },
        mark: { type: 'rule', color: '#c62828' },
        encoding: { x: { field: 'margin', type: 'quantitative' } },
      },
    ],
  };
  return { id, title, caption, spec, emptyReason: '' };
}

/** Dots of one task, agent, eligibility and kind whose scores round to the same bin, merged into one with their count. */
function mergeEqualDots<Dot extends { task: string; agent: string; eligibility: string; status: string; score: number; run: string; runs: number }>(
  dots: readonly Dot[],
): Dot[] {
  return groupRows(dots, (dot) => [dot.task, dot.agent, dot.eligibility, dot.status, String(Math.round(dot.score / SCORE_BIN))]).map((group) => {
    const [first] = group as [Dot, ...Dot[]];
    const score = group.reduce((sum, dot) => sum + dot.score, 0) / group.length;
    return { ...first, score, run: group.length === 1 ? first.run : `${group.length} runs of ${first.agent}`, runs: group.length };
  });
}

/** Rows grouped by a key of several parts, groups in order of first appearance. */
function groupRows<Row>(rows: readonly Row[], keyOf: (row: Row) => readonly string[]): Row[][] {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = JSON.stringify(keyOf(row));
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return [...groups.values()];
}
