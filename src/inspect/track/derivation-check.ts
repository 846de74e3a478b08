/**
 * The compression track's "derived from Phi-2" gate. Only weights can show it: with the base given as weights (an
 * ONNX export or a safetensors checkpoint), lineage (lineage/lineage-check.ts) decides, derived or not. A config.json base
 * (Phi-2's ships with the package) has no weights: it can show only what cannot be a compression of it (a residual
 * stream or an FFN wider than the base's), so otherwise the gate is `not-judged` and says what to pass. Nothing
 * else about the shape is a gate: vocabulary pruning, head-width changes, low-rank factors, shared layers and 0 %
 * removed are all allowed by the rules.
 */
import type { PruningReport } from '../pruning/pruning-check.js';
import type { LineageReport } from '../lineage/report.js';
import { verdictOf, type Verdict } from '../verdict.js';

export interface DerivationCheck {
  readonly base: string;
  readonly baseKind: LineageReport['baseKind'];
  readonly status: 'derived' | 'not-derived' | 'not-judged';
  /** Why the gate could not be judged; null when it was. */
  readonly notJudged: string | null;
  readonly verdict: Verdict;
}

/** What a compression of the base cannot be: wider than the base where compression only removes. */
function widerThanBase(report: PruningReport): string[] {
  const found: string[] = [];
  const { base, pruned } = report;
  if (pruned.hidden !== null && pruned.hidden > base.hidden) found.push(`hidden size ${pruned.hidden} is wider than the base's ${base.hidden}`);
  const ffn = Math.max(0, ...report.layers.map((layer) => layer.ffnChannels.kept ?? 0));
  if (ffn > base.intermediate) found.push(`an FFN of ${ffn} channels is wider than the base's ${base.intermediate}`);
  return found;
}

export function judgeDerivation(report: PruningReport): DerivationCheck {
  const { lineage } = report;
  const base = report.base.source;
  const wider = widerThanBase(report);
  if (wider.length > 0) {
    return {
      base,
      baseKind: lineage.baseKind,
      status: 'not-derived',
      notJudged: null,
      verdict: verdictOf(wider.map((what) => `${report.model} cannot be compressed from ${base}: ${what}`)),
    };
  }
  if (lineage.status === 'derived')
    return { base, baseKind: lineage.baseKind, status: 'derived', notJudged: null, verdict: verdictOf([], lineage.verdict.warnings) };
  if (lineage.status === 'not-derived')
    return { base, baseKind: lineage.baseKind, status: 'not-derived', notJudged: null, verdict: verdictOf(lineage.verdict.reasons) };
  const why =
    lineage.baseKind === 'config'
      ? `${base} is a config.json, which has no weights to trace the model's weights to: pass the base's weights (its safetensors folder or ONNX export) as --base to judge lineage`
      : `lineage could not be traced: ${lineage.note ?? 'unknown reason'}`;
  return { base, baseKind: lineage.baseKind, status: 'not-judged', notJudged: why, verdict: verdictOf([], [`not judged: ${why}`]) };
}
