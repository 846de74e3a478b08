/**
 * The `check-track` report as text for a terminal: one row per check with the figures its verdict rests on
 * (quantized tensors, DRAM used against the limit, % of parameters removed), then the track's verdict with
 * every reason labelled by its check. `--json` prints the report object instead.
 */
import type { DramCheck } from './dram-check.js';
import type { PruningReport } from './pruning-check.js';
import type { QuantizationCheck } from './quantization-check.js';
import type { TrackReport } from './track-check.js';
import type { TrackCheckName, TrackFinding, TrackVerdict } from './track-verdict.js';
import { formatBytes, formatCount } from './units.js';
import type { Verdict } from './verdict.js';

const STATUS_TEXT = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' } as const;

function checkStatus(verdict: Verdict): keyof typeof STATUS_TEXT {
  return verdict.status === 'fail' ? 'fail' : verdict.warnings.length > 0 ? 'warn' : 'pass';
}

function quantizationFigures(check: QuantizationCheck): string {
  const bf16 = check.bf16Tensors.length > 0 ? `, ${check.bf16Tensors.length} bfloat16` : '';
  return `${check.quantizedTensors.length} quantized weight tensor(s), ${check.quantizationNodes.length} quantization node(s)${bf16}`;
}

function dramFigures(check: DramCheck): string {
  const used = { measured: 'measured peak DRAM', 'measured-device': 'measured peak device memory', estimate: 'estimated DRAM' }[check.basis];
  const limit = check.budget ? ` vs limit ${formatBytes(check.budget.bytes)} (${check.budget.source === 'custom' ? 'operator override' : check.budget.source})` : '';
  const failed = check.measurementError ? `; measurement failed (${check.measurementError.code})` : '';
  const estimate = check.basis === 'estimate' ? '' : `; estimate ${formatBytes(check.estimate.totalBytes)}`;
  return `${used} ${formatBytes(check.usedBytes)}${limit}${estimate}${failed}`;
}

function pruningFigures(report: PruningReport): string {
  const forward = report.forwardPass === null ? 'forward pass skipped' : report.forwardPass.ok ? 'forward pass ok' : 'forward pass FAILED';
  return [
    `${report.percentRemoved.toFixed(2)}% of parameters removed (${formatCount(report.base.totalParams)} -> ${formatCount(report.pruned.params)})`,
    `${report.pruned.layerCount}/${report.base.layerCount} layers kept`,
    `fake pruning ${report.fakePruning.detected ? 'DETECTED' : 'not found'}`,
    forward,
  ].join(', ');
}

function checkRows(report: TrackReport): [TrackCheckName, string, string][] {
  const { quantization, dram, pruning } = report.checks;
  const rows: [TrackCheckName, string, string][] = [
    ['quantization', STATUS_TEXT[checkStatus(quantization.verdict)], quantizationFigures(quantization)],
    ['dram', STATUS_TEXT[checkStatus(dram.verdict)], dramFigures(dram)],
  ];
  if (pruning) rows.push(['pruning', STATUS_TEXT[checkStatus(pruning.verdict)], pruningFigures(pruning)]);
  return rows;
}

function formatFindings(verdict: TrackVerdict): string[] {
  const line = (mark: string) => (finding: TrackFinding): string => `  ${mark} [${finding.check}] ${finding.message}`;
  return [`Verdict: ${STATUS_TEXT[verdict.status]}`, ...verdict.reasons.map(line('-')), ...verdict.warnings.map(line('!'))];
}

export function formatTrackReport(report: TrackReport): string {
  const { parameters, tensorBytes } = report.inspect;
  const pruning = report.checks.pruning;
  const lines = [
    `Track: ${report.track} (${report.description})`,
    `Model: ${report.model}`,
    `Parameters: ${formatCount(parameters.total)} · tensor bytes ${formatBytes(tensorBytes)}`,
    ...(pruning ? [`Base: ${pruning.base.source} (${pruning.base.kind}, ${formatCount(pruning.base.totalParams)} parameters)`] : []),
    '',
  ];
  const rows: [string, string, string][] = [['check', 'result', 'figures'], ...checkRows(report)];
  const width = (column: 0 | 1): number => Math.max(...rows.map((row) => row[column].length));
  for (const [check, status, figures] of rows) lines.push(`${check.padEnd(width(0))}  ${status.padEnd(width(1))}  ${figures}`);
  lines.push('', ...formatFindings(report.verdict));
  return `${lines.join('\n')}\n`;
}
