/**
 * The report page: one self-contained HTML file (inline CSS and SVG, no script, nothing fetched), so it can
 * be mailed, archived or opened offline and shows the same thing everywhere. Every text from a record is
 * escaped: agent names and paths come from whoever ran the benchmark.
 */
import { ELIGIBILITY_COLORS, type ChartDefinition } from './charts.js';
import { isComplete, type ReportRun } from './report-run.js';
import type { GroupSummary, SummaryOptions } from './statistics.js';

export interface RenderedChart {
  readonly chart: ChartDefinition;
  /** Null when the chart has no data. */
  readonly svg: string | null;
  readonly warnings: readonly string[];
}

export interface ReportPage {
  readonly generatedAt: Date;
  readonly toolVersion: string;
  readonly runs: readonly ReportRun[];
  readonly summaries: readonly GroupSummary[];
  readonly charts: readonly RenderedChart[];
  readonly options: SummaryOptions;
}

export const SUCCESSFUL_RUN_DEFINITION =
  'A run is successful when its headline was scored on all of its data and the model is eligible ' +
  "(or unchecked, where the task's rules concern how the model was made). " +
  'Runs without a headline, or with a model ineligible or not judged (a gate such as DRAM not measured), count among all runs only.';

/** What mean and best are over, as the options chose. */
export function countedRunsNote({ includePartial }: SummaryOptions): string {
  return includePartial
    ? "Mean and best are over successful and partial runs (--include-partial): a partial run's number comes from part of its data (--limit, or missing subtasks) and is not the task's score."
    : 'Mean and best are over successful runs; partial runs (scored on part of their data: --limit, or missing subtasks) are counted under "partial" and left out (--include-partial counts them).';
}

const STYLE = `
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; margin: 2rem; color: #1f2328; max-width: 80rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #d0d7de; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.5rem 0; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1rem 0; overflow-x: auto; } figcaption { font-size: 0.85rem; color: #57606a; max-width: 60rem; }
.eligible { color: ${ELIGIBILITY_COLORS.eligible}; } .ineligible { color: ${ELIGIBILITY_COLORS.ineligible}; } .unchecked { color: ${ELIGIBILITY_COLORS.unchecked}; } .not_judged { color: ${ELIGIBILITY_COLORS.not_judged}; }
.note { color: #57606a; font-size: 0.9rem; } .incomplete { color: #9a6700; }`;

export function renderReportHtml(page: ReportPage): string {
  const tasks = new Set(page.runs.map((run) => run.task)).size;
  const agents = new Set(page.runs.map((run) => run.agent)).size;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MLRB report</title>
<style>${STYLE}</style>
</head>
<body>
<h1>MLRB report</h1>
<p class="note">${page.runs.length} runs of ${tasks} tasks by ${agents} agents; generated ${escapeHtml(page.generatedAt.toISOString())} by mlrb-eval ${escapeHtml(page.toolVersion)}.</p>
<h2>Summary per task and agent</h2>
<p class="note">${escapeHtml(SUCCESSFUL_RUN_DEFINITION)} ${escapeHtml(countedRunsNote(page.options))}</p>
${summaryTable(page.summaries)}
${page.charts.map(chartFigure).join('\n')}
<h2>Runs</h2>
${runsTable(page.runs)}
${modelMetricsSection(page.runs)}
</body>
</html>
`;
}

function summaryTable(summaries: readonly GroupSummary[]): string {
  const rows = summaries.map((group) =>
    row([
      text(group.task),
      text(group.agent),
      number(`${group.successful}/${group.runs}`),
      number(String(group.partial)),
      number(`${group.counted}/${group.runs}`),
      number(formatScore(group.mean)),
      text(group.best === null ? '—' : `${group.best.label}${group.best.partial ? ' (partial)' : ''}`),
      number(formatScore(group.best?.score ?? null)),
    ]),
  );
  return table(['task', 'agent', 'successful/all', 'partial', 'counted/all', 'mean (counted)', 'best run', 'best score'], rows);
}

function runsTable(runs: readonly ReportRun[]): string {
  const rows = runs.map((run) =>
    row([
      text(run.task),
      text(run.label),
      text(run.headlineStatus),
      number(formatScore(run.score ?? run.partialScore) + (run.score === null && run.partialScore !== null ? ' (partial)' : '')),
      `<td class="${run.eligibility}">${escapeHtml(run.eligibility)}</td>`,
      text(run.successful ? 'yes' : 'no'),
      isComplete(run) ? text('yes') : `<td class="incomplete">${escapeHtml(`no: ${run.incomplete.join('; ')}`)}</td>`,
      number(run.parameters === null ? '—' : run.parameters.toLocaleString('en-US')),
      text(run.file),
    ]),
  );
  return table(['task', 'run', 'headline', 'score', 'eligibility', 'successful', 'complete data', 'parameters', 'record'], rows);
}

/** agent_eval's model metrics of the runs that measured them (`mlrb --model-metrics`); nothing when none did. */
function modelMetricsSection(runs: readonly ReportRun[]): string {
  const measured = runs.flatMap((run) => (run.modelMetrics === null ? [] : [{ run, metrics: run.modelMetrics }]));
  if (measured.length === 0) return '';
  const figure = (value: number | null, digits: number): string => number(value === null ? '—' : value.toFixed(digits));
  const rows = measured.map(({ run, metrics }) =>
    row([
      text(run.task),
      text(run.label),
      figure(metrics.perplexityMlrb, 4),
      figure(metrics.perplexity, 4),
      figure(metrics.tokensPerSecond, 2),
      figure(metrics.latencyMsPerToken, 2),
    ]),
  );
  const headers = ['task', 'run', 'perplexity (MLRB)', 'perplexity (all tokens)', 'tokens/s', 'latency (ms/token)'];
  return `<h2>Model metrics</h2>\n<p class="note">${escapeHtml(MODEL_METRICS_NOTE)}</p>\n${table(headers, rows)}`;
}

const MODEL_METRICS_NOTE =
  "agent_eval's perplexity, tokens per second and latency, for the runs that measured them (mlrb --model-metrics). " +
  "MLRB's perplexity is the mean of the running perplexities after each 256-token window; latency is each run's time divided by 512, as MLRB divides it; — marks a metric not measured.";

function chartFigure({ chart, svg }: RenderedChart): string {
  const body = svg ?? `<p class="note">Not drawn: ${escapeHtml(chart.emptyReason)}.</p>`;
  // Vega's SVG is markup we produced from escaped data; it is embedded as it is.
  return `<h2>${escapeHtml(chart.title)}</h2>\n<figure id="chart-${chart.id}" data-chart="${chart.id}">${body}<figcaption>${escapeHtml(chart.caption)}</figcaption></figure>`;
}

function table(headers: readonly string[], rows: readonly string[]): string {
  return `<table>\n<thead><tr>${headers.map((header) => `<th>${escapeHtml(header)}</th>`).join('')}</tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`;
}

const row = (cells: readonly string[]): string => `<tr>${cells.join('')}</tr>`;
const text = (value: string): string => `<td>${escapeHtml(value)}</td>`;
const number = (value: string): string => `<td class="number">${escapeHtml(value)}</td>`;

function formatScore(score: number | null): string {
  return score === null ? '—' : score.toFixed(4);
}

export function escapeHtml(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}
