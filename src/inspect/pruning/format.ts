/** The `check-pruning` report as text for a terminal; `--json` prints the object itself instead. */
import { formatVerdict } from '../report/format-verdict.js';
import { formatLineage } from '../lineage/format.js';
import type { Kept } from './layers.js';
import type { PruningReport } from './pruning-check.js';
import { formatBytes, formatCount } from '../units.js';

const kept = (value: Kept): string => `${value.kept === null ? '?' : Number.isInteger(value.kept) ? value.kept : value.kept.toFixed(2)}/${value.base ?? '?'}`;

export function formatPruningReport(report: PruningReport): string {
  const { base, fakePruning: fake, forwardPass: forward } = report;
  const lines = [
    `Pruned model: ${report.model}`,
    `Base (${base.kind}): ${base.source} · hidden ${base.hidden} · ${base.layerCount} layers · ${base.heads} heads (kv ${base.kvHeads}) x ${base.headDim} · FFN ${base.intermediate} · vocab ${base.vocab} · ${formatCount(base.totalParams)} params`,
    `Parameters: ${formatCount(base.totalParams)} -> ${formatCount(report.pruned.params)} (${report.percentRemoved.toFixed(2)}% removed)`,
    `Layers: ${report.pruned.layerCount} of ${base.layerCount} kept; removed: ${report.removedLayers.length === 0 ? 'none' : report.removedLayers.join(', ')} (matched ${report.layerMapping}; roles from ${report.rolesFrom === 'graph' ? 'the graph' : 'tensor names'})`,
    'layer  heads     kv heads  FFN          hidden     params (kept/base)     zero heads/FFN/hidden  sparsity',
  ];
  for (const layer of report.layers) {
    if (layer.status === 'removed') {
      lines.push(`${String(layer.baseLayer).padStart(5)}  removed`);
      continue;
    }
    const zeros = layer.zeros ? `${layer.zeros.zeroHeads}/${layer.zeros.zeroFfnChannels}/${layer.zeros.zeroHiddenChannels}` : '-';
    const sparsity = layer.zeros ? `${(layer.zeros.sparsity * 100).toFixed(2)}%` : '-';
    lines.push(
      `${String(layer.baseLayer).padStart(5)}  ${kept(layer.heads).padEnd(8)}  ${kept(layer.kvHeads).padEnd(8)}  ${kept(layer.ffnChannels).padEnd(11)}  ${kept(layer.hidden).padEnd(9)}  ${kept(layer.params).padEnd(21)}  ${zeros.padEnd(21)}  ${sparsity}`,
    );
  }
  lines.push(
    report.consistencyIssues.length === 0
      ? 'Consistency: q/k/v/o and MLP widths agree, head_dim and vocabulary unchanged'
      : `Consistency: ${report.consistencyIssues.length} issue(s)`,
  );
  lines.push(
    `Zero scan: ${formatBytes(fake.scannedBytes)} in ${fake.scanMs.toFixed(1)} ms (${fake.gbPerSecond.toFixed(2)} GB/s) · sparsity ${(fake.sparsity * 100).toFixed(3)}% · fake pruning ${fake.detected ? 'DETECTED' : 'not found'}`,
  );
  if (report.unusedInitializers.length > 0) {
    lines.push(
      `Unused initializers (reach no output; stored, so counted): ${report.unusedInitializers.slice(0, 5).join(', ')}${report.unusedInitializers.length > 5 ? `, … (${report.unusedInitializers.length} in all)` : ''}`,
    );
  }
  lines.push(`Quantization (weights must be fp16/fp32): ${report.quantization.verdict.status === 'pass' ? 'none' : 'FOUND'}`);
  lines.push(
    forward === null
      ? 'Forward pass: skipped'
      : forward.ok
        ? `Forward pass: ok (${forward.tokens} tokens, loglik ${forward.loglik?.toFixed(4)}, ${forward.ms.toFixed(0)} ms)`
        : `Forward pass: FAILED (${forward.error?.code}: ${forward.error?.message})`,
  );
  lines.push(...formatLineage(report.lineage));
  lines.push('', ...formatVerdict('Verdict', report.verdict));
  return `${lines.join('\n')}\n`;
}
