/**
 * `mlrb-eval report RUN.json… [--out DIR] [--include-partial]`: MLRB's statistics over run records (`mlrb-eval mlrb … --output`),
 * grouped by task and agent, as a self-contained HTML page with charts, PNG charts and CSV tables.
 */
import { z } from 'zod';
import { writeReport } from '../report/write-report.js';
import { parseCommandLine, printUsage } from './command-line.js';
import { UsageError, type CliIo } from './exit-error.js';
import { QUIET } from './common-flags.js';
import { commandUsage, flag, tableSpec, withHelp } from './flag-table.js';
import { commandStatus } from './progress.js';

const REPORT_FLAGS = [
  flag({
    name: 'out',
    kind: 'string',
    value: z.string().default('mlrb-report'),
    placeholder: 'DIR',
    help: 'the report folder (default ./mlrb-report): report.html, charts/*.png, runs.csv, summary.csv',
  }),
  flag({
    name: 'include-partial',
    kind: 'boolean',
    value: z.boolean().default(false),
    help: 'count partial runs (--limit, missing subtasks) in mean and best; still marked partial',
  }),
  withHelp(QUIET, 'no progress or notes on stderr: the summary, warnings and errors only'),
] as const;

export const REPORT_USAGE = commandUsage({
  synopsis: 'usage: mlrb-eval report RUN.json… [--out DIR] [--include-partial]',
  operands: [['RUN.json', 'run records written by mlrb-eval mlrb TASK MODEL --agent NAME --output RUN.json']],
  flags: REPORT_FLAGS,
  notes: [
    'Runs are grouped by MLRB task (mini tasks apart) and agent. A run is successful when its headline was scored on all of its data ' +
      'and the model is not ineligible; mean and best are over successful runs.',
  ],
});

export async function runReportCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const line = parseCommandLine(argv, tableSpec('report', REPORT_FLAGS, argv));
  if (line.help) return printUsage(io, REPORT_USAGE);
  if (line.positionals.length === 0) throw new UsageError('report', 'expected the run records to report on');
  const { out: outDir, 'include-partial': includePartial, quiet } = line.options;
  const status = commandStatus(io, { quiet: quiet === true });
  const bars = { records: status.counter('report: reading', 'records'), charts: status.counter('report: drawing', 'charts') };
  const report = await writeReport({
    recordFiles: [...line.positionals],
    outDir,
    includePartial,
    onProgress: ({ stage, done, total }) => bars[stage](done, total),
  });
  for (const group of report.summaries) {
    const mean = group.mean === null ? '—' : group.mean.toFixed(4);
    const best = group.best === null ? '—' : `${group.best.label}${group.best.partial ? ' (partial)' : ''}`;
    io.stdout.write(
      `${group.task}\t${group.agent}\tsuccessful ${group.successful}/${group.runs}\tpartial ${group.partial}\tcounted ${group.counted}\tmean ${mean}\tbest ${best}\n`,
    );
  }
  for (const { chart, warning } of report.chartWarnings) status.warn(`chart ${chart}: ${warning}`);
  status.note(`report of ${report.runCount} runs written to ${outDir}: ${report.files.join(', ')}`);
  return 0;
}
