/**
 * The `check-track` report as text for a terminal: one row per gate with the figures its verdict rests on
 * (weights not allowed, weight types, DRAM used against the limit and where the limit comes from, lineage), a row
 * of information (% of parameters removed and check-pruning's own verdict, which gates nothing), then the track's
 * verdict with every reason labelled by its gate and the rules no file can prove. `--json` prints the report.
 */
import type { DerivationCheck } from './derivation-check.js';
import type { DramCheck } from '../dram/dram-check.js';
import type { PruningReport } from '../pruning/pruning-check.js';
import type { QuantizationCheck, WeightDtypeCheck } from '../quantization/quantization-check.js';
import type { TrackReport } from './track-check.js';
import type { TrackCheckName, TrackFinding, TrackVerdict } from './verdict.js';
import { formatBytes, formatCount } from '../units.js';
import type { Verdict } from '../verdict.js';

const STATUS_TEXT = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' } as const;

function checkStatus(verdict: Verdict): keyof typeof STATUS_TEXT {
  return verdict.status === 'fail' ? 'fail' : verdict.warnings.length > 0 ? 'warn' : 'pass';
}

function quantizationFigures(check: QuantizationCheck): string {
  const grid = check.lowCardinalityWeights.length > 0 ? `, ${check.lowCardinalityWeights.length} fake-quantized (warning)` : '';
  return `${check.disallowedWeights.length} weight(s) not allowed, ${check.quantizedTensors.length} quantized weight tensor(s), ${check.quantizationNodes.length} quantization node(s)${grid}`;
}

function dtypeFigures(check: WeightDtypeCheck): string {
  const types = Object.entries(check.byDtype)
    .map(([dtype, totals]) => `${dtype} ${totals.tensors}`)
    .join(', ');
  return `weights ${types || 'none'}${check.offType.length > 0 ? `; ${check.offType.length} not FP16/FP32` : ''}`;
}

function dramFigures(check: DramCheck): string {
  const used = { measured: 'measured peak DRAM', 'measured-device': 'measured peak device memory', estimate: 'estimated DRAM' }[check.basis];
  const limit = check.budget
    ? ` vs limit ${formatBytes(check.budget.bytes)} = ${check.budget.gib.toFixed(2)} GiB (${check.budget.source === 'custom' ? 'operator override' : check.budget.source})`
    : '';
  const failed = check.measurementError ? `; measurement failed (${check.measurementError.code})` : '';
  const estimate = check.basis === 'estimate' ? '' : `; estimate ${formatBytes(check.estimate.totalBytes)}`;
  const measured = check.measurement;
  const probe = measured ? ` (largest of ${measured.probes.length} probes: ${measured.decidingProbe})` : '';
  const rebuilt =
    measured && measured.rebuiltRotaryCaches.length > 0 ? `; ${measured.rebuiltRotaryCaches.length} rotary cache(s) rebuilt from config.json` : '';
  return `${used} ${formatBytes(check.usedBytes)}${probe}${limit}${estimate}${rebuilt}${failed}`;
}

function lineageFigures(check: DerivationCheck): string {
  return `${check.status} (base ${check.baseKind}: ${check.base})`;
}

function pruningFigures(report: PruningReport): string {
  return [
    `${report.percentRemoved.toFixed(2)}% of stored parameters removed (${formatCount(report.base.totalParams)} -> ${formatCount(report.pruned.params)})`,
    `${report.pruned.layerCount}/${report.base.layerCount} layers`,
    `sparsity ${(report.fakePruning.sparsity * 100).toFixed(1)}%`,
    `check-pruning's own verdict ${report.verdict.status.toUpperCase()} (not a gate)`,
  ].join(', ');
}

function checkRows(report: TrackReport): [string, string, string][] {
  const { quantization, dtype, dram, lineage } = report.checks;
  const rows: [TrackCheckName | string, string, string][] = [
    ['quantization', STATUS_TEXT[checkStatus(quantization.verdict)], quantizationFigures(quantization)],
    ['dtype', STATUS_TEXT[checkStatus(dtype.verdict)], dtypeFigures(dtype)],
    ['dram', STATUS_TEXT[checkStatus(dram.verdict)], dramFigures(dram)],
  ];
  if (lineage) rows.push(['lineage', lineage.status === 'not-judged' ? 'NOT JUDGED' : STATUS_TEXT[checkStatus(lineage.verdict)], lineageFigures(lineage)]);
  if (report.pruning) rows.push(['pruning', 'INFO', pruningFigures(report.pruning)]);
  return rows;
}

function formatFindings(verdict: TrackVerdict): string[] {
  const line =
    (mark: string) =>
    (finding: TrackFinding): string =>
      `  ${mark} [${finding.check}] ${finding.message}`;
  return [`Verdict: ${STATUS_TEXT[verdict.status]}`, ...verdict.reasons.map(line('-')), ...verdict.warnings.map(line('!'))];
}

export function formatTrackReport(report: TrackReport): string {
  const { parameters, tensorBytes } = report.inspect;
  const { pruning } = report;
  const lines = [
    `Track: ${report.track} (${report.description})`,
    `Model: ${report.model}`,
    `Parameters (stored elements): ${formatCount(parameters.total)} · tensor bytes ${formatBytes(tensorBytes)}`,
    ...(pruning ? [`Base: ${pruning.base.source} (${pruning.base.kind}, ${formatCount(pruning.base.totalParams)} parameters)`] : []),
    ...(report.checks.dram.budget ? [`DRAM limit: ${report.checks.dram.budget.rule}`] : []),
    '',
  ];
  const rows: [string, string, string][] = [['check', 'result', 'figures'], ...checkRows(report)];
  const width = (column: 0 | 1): number => Math.max(...rows.map((row) => row[column].length));
  for (const [check, status, figures] of rows) lines.push(`${check.padEnd(width(0))}  ${status.padEnd(width(1))}  ${figures}`);
  lines.push('', ...formatFindings(report.verdict));
  lines.push('', 'Not checked (no model file can show them):', ...report.rules.unchecked.map((rule) => `  ? ${rule}`));
  return `${lines.join('\n')}\n`;
}
