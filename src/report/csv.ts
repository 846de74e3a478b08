/**
 * runs.csv (one row per run) and summary.csv (one row per task × agent), RFC 4180: comma-separated, CRLF line
 * ends, fields quoted when they hold a comma, quote or line break. Numbers are written in full precision and
 * absent ones as empty fields, so a spreadsheet or pandas reads them as numbers and missing values; text that a
 * spreadsheet would run as a formula is neutralised (csvField). summary.csv's
 * mean and best are over its `counted` runs: the successful ones, and the partial ones only with --include-partial.
 */
import { marginOf, type ConstraintUse } from './constraints.js';
import { isComplete, type ReportRun } from './report-run.js';
import type { GroupSummary } from './statistics.js';

type Cell = string | number | boolean | null;

export function runsCsv(runs: readonly ReportRun[]): string {
  const header = [
    'file',
    'task',
    'agent',
    'run',
    'started_at',
    'headline',
    'headline_status',
    'score',
    'partial_score',
    'eligibility',
    'successful',
    'complete',
    'incomplete',
    'parameters',
    'parameter_limit',
    'parameter_margin',
    'dram_used_bytes',
    'dram_budget_bytes',
    'dram_basis',
    'dram_margin',
    'perplexity',
    'perplexity_mlrb',
    'tokens_per_second',
    'latency_ms_per_token',
    'model_sha256',
  ];
  const rows = runs.map((run) => [
    run.file,
    run.task,
    run.agent,
    run.label,
    run.startedAt,
    run.headlineLabel,
    run.headlineStatus,
    run.score,
    run.partialScore,
    run.eligibility,
    run.successful,
    isComplete(run),
    isComplete(run) ? null : run.incomplete.join('; '),
    run.parameters,
    run.parameterLimit?.limit ?? null,
    marginOrNull(run.parameterLimit),
    run.dram?.used ?? null,
    run.dram?.limit ?? null,
    run.dram?.basis ?? null,
    marginOrNull(run.dram),
    run.modelMetrics?.perplexity ?? null,
    run.modelMetrics?.perplexityMlrb ?? null,
    run.modelMetrics?.tokensPerSecond ?? null,
    run.modelMetrics?.latencyMsPerToken ?? null,
    run.modelSha256,
  ]);
  return toCsv(header, rows);
}

export function summaryCsv(summaries: readonly GroupSummary[]): string {
  const header = ['task', 'agent', 'runs', 'successful', 'partial', 'counted', 'mean', 'best_run', 'best_score', 'best_partial'];
  const rows = summaries.map((group) => [
    group.task,
    group.agent,
    group.runs,
    group.successful,
    group.partial,
    group.counted,
    group.mean,
    group.best?.label ?? null,
    group.best?.score ?? null,
    group.best?.partial ?? null,
  ]);
  return toCsv(header, rows);
}

function marginOrNull(use: ConstraintUse | null): number | null {
  return use === null ? null : marginOf(use);
}

function toCsv(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/**
 * One field. Text comes from run records (file names, agent names, reasons), which their writer chose: a text
 * cell starting with = + - @, a tab or a carriage return would be a live formula in a spreadsheet (OWASP's
 * CSV-injection rule), so it gets a leading `'`, which spreadsheets show as text. Numbers are written as numbers.
 */
export function csvField(value: Cell): string {
  if (value === null) return '';
  const text = typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const FORMULA_START = /^[=+\-@\t\r]/;
