/**
 * `mlrb-eval report`: run records in, a report folder out: report.html (self-contained), charts/<id>.png,
 * runs.csv and summary.csv. Every file is written atomically, and report.html last, so a folder with a
 * report.html always holds the charts and tables of that same report.
 */
import path from 'node:path';
import { toolVersion } from '../io/fingerprint.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import { renderChartSvg, renderSvgPng } from './chart-render.js';
import { reportCharts } from './charts.js';
import { runsCsv, summaryCsv } from './csv.js';
import { renderReportHtml, type RenderedChart } from './html.js';
import { readRunRecords, toReportRuns } from './report-run.js';
import { summarizeByTaskAndAgent, type GroupSummary } from './statistics.js';

export interface ReportOptions {
  readonly recordFiles: readonly string[];
  readonly outDir: string;
  /** Count partial runs in mean and best (`--include-partial`); they are left out by default. */
  readonly includePartial?: boolean;
  /** For reproducible output in tests; defaults to now. */
  readonly generatedAt?: Date;
  /** Told as each record is read and each chart drawn (drawing is the slow part of a small report). */
  readonly onProgress?: (progress: ReportProgress) => void;
}

export interface ReportProgress {
  readonly stage: 'records' | 'charts';
  readonly done: number;
  readonly total: number;
}

export interface WrittenReport {
  /** Every file written, relative to outDir, in the order written. */
  readonly files: readonly string[];
  readonly summaries: readonly GroupSummary[];
  readonly runCount: number;
  /** The plotting libraries' warnings, by chart id; none is expected. */
  readonly chartWarnings: readonly { readonly chart: string; readonly warning: string }[];
}

export async function writeReport(options: ReportOptions): Promise<WrittenReport> {
  if (options.recordFiles.length === 0) throw new RangeError('writeReport needs at least one run record');
  // All records are read and validated before anything is written: a bad file leaves no half report.
  const runs = toReportRuns(readRunRecords(options.recordFiles, (done, total) => options.onProgress?.({ stage: 'records', done, total })));
  const summaryOptions = { includePartial: options.includePartial ?? false };
  const summaries = summarizeByTaskAndAgent(runs, summaryOptions);
  const rendered: RenderedChart[] = [];
  const charts = reportCharts(runs, summaries, summaryOptions);
  for (const chart of charts) {
    const drawn = chart.spec === null ? null : await renderChartSvg(chart.spec);
    rendered.push({ chart, svg: drawn?.svg ?? null, warnings: drawn?.warnings ?? [] });
    options.onProgress?.({ stage: 'charts', done: rendered.length, total: charts.length });
  }

  const files: string[] = [];
  const write = (name: string, content: string | Uint8Array): void => {
    writeFileAtomic(path.join(options.outDir, name), content);
    files.push(name);
  };
  for (const { chart, svg } of rendered) if (svg !== null) write(path.join('charts', `${chart.id}.png`), renderSvgPng(svg));
  write('runs.csv', runsCsv(runs));
  write('summary.csv', summaryCsv(summaries));
  write(
    'report.html',
    renderReportHtml({
      generatedAt: options.generatedAt ?? new Date(),
      toolVersion: toolVersion(),
      runs,
      summaries,
      charts: rendered,
      options: summaryOptions,
    }),
  );
  const chartWarnings = rendered.flatMap(({ chart, warnings }) => warnings.map((warning) => ({ chart: chart.id, warning })));
  return { files, summaries, runCount: runs.length, chartWarnings };
}
