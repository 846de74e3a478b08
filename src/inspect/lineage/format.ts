/** The lineage part of the `check-pruning` text report: one summary line, then one line per pruned layer. */
import type { LineageReport, UnitLineage } from './report.js';

const MAX_RANGE_CHARS = 60;

/** Base indices as ranges ("0, 2-4, 7"), unmatched units as "?" (runs as "?x5"), cut at MAX_RANGE_CHARS. */
export function formatIndices(kept: readonly (number | null)[]): string {
  const parts: string[] = [];
  for (let start = 0; start < kept.length; ) {
    let end = start;
    const first = kept[start] ?? null;
    const continues = (next: number | null | undefined): boolean => (first === null ? next === null : next === kept[end]! + 1);
    while (end + 1 < kept.length && continues(kept[end + 1])) end++;
    if (first === null) parts.push(end > start ? `?x${end - start + 1}` : '?');
    else parts.push(end > start ? `${first}-${kept[end]}` : `${first}`);
    start = end + 1;
  }
  const text = parts.join(', ');
  return text.length <= MAX_RANGE_CHARS ? text : `${text.slice(0, text.lastIndexOf(',', MAX_RANGE_CHARS))}, …`;
}

function units(name: string, unit: UnitLineage | null): string | null {
  if (unit === null) return null;
  if (unit.count === 0) return `${name} none of ${unit.baseCount}`;
  const figures = unit.minSimilarity === null ? 'none match' : `min ${unit.minSimilarity.toFixed(3)}, mean ${(unit.meanSimilarity ?? 0).toFixed(3)}`;
  return `${name} ${unit.matched}/${unit.count} of ${unit.baseCount} [${formatIndices(unit.kept)}] (${figures})`;
}

export function formatLineage(report: LineageReport): string[] {
  if (report.status === 'not-checked') return [`Lineage: not checked (${report.note})`];
  const { attention, ffn } = report.sampledHiddenChannels;
  const lines = [
    `Lineage (weights vs ${report.baseKind} base): ${report.status === 'derived' ? 'derived' : 'NOT DERIVED'} · ${report.units.matched}/${report.units.total} units match a base unit ` +
      `(cosine >= ${report.threshold} over ${attention}/${ffn} sampled hidden channels) · base layers removed: ${report.removedLayers.length === 0 ? 'none' : report.removedLayers.join(', ')} · ${report.ms.toFixed(0)} ms`,
  ];
  if (report.hiddenChannels) lines.push(`  ${units('hidden channels', report.hiddenChannels)}`);
  for (const layer of report.layers) {
    if (layer.baseLayer === null) {
      const counts = [
        [layer.heads, 'heads'],
        [layer.kvHeads, 'kv heads'],
        [layer.ffnChannels, 'FFN channels'],
      ] as const;
      const unmatched = counts.flatMap(([unit, name]) => (unit ? [`${unit.count} ${name}`] : [])).join(', ');
      lines.push(`  layer ${layer.layer} <- no base layer (best similarity ${layer.similarity.toFixed(3)}): ${unmatched} unmatched`);
      continue;
    }
    const origin = `base ${layer.baseLayer} (${layer.similarity.toFixed(3)})`;
    const kinds = [units('heads', layer.heads), units('kv heads', layer.kvHeads), units('FFN', layer.ffnChannels)].filter((text) => text !== null);
    lines.push(`  layer ${layer.layer} <- ${origin}: ${kinds.join(' · ')}`);
  }
  return lines;
}
