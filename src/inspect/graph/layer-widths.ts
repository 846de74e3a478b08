/**
 * A layer's widths in one normalized form, whatever its naming or layout (separate q/k/v or fused qkv,
 * gated or plain MLP), so a pruned layer and its base layer compare field by field.
 */
import type { LayerShape } from './architecture.js';

export interface LayerWidths {
  readonly queryWidth: number | null; // heads · head_dim
  readonly keyWidth: number | null; // kv heads · head_dim
  readonly valueWidth: number | null;
  readonly outputInWidth: number | null; // o's input, must equal queryWidth
  readonly ffnWidth: number | null; // up (or gate) output
  readonly ffnDownWidth: number | null; // down's input, must equal ffnWidth
  readonly hiddenIn: readonly number[]; // input widths of projections reading the residual stream
  readonly hiddenOut: readonly number[]; // output widths of projections writing it
}

export function layerWidths(layer: LayerShape): LayerWidths {
  const p = layer.projections;
  // A fused qkv without GQA splits in three equal parts; that is the only split its shape allows.
  const fusedThird = p.qkv ? p.qkv.outDim / 3 : null;
  const hiddenIn = [p.q, p.k, p.v, p.qkv, p.up, p.gate].flatMap((projection) => (projection ? [projection.inDim] : []));
  const hiddenOut = [p.o, p.down].flatMap((projection) => (projection ? [projection.outDim] : []));
  return {
    queryWidth: p.q?.outDim ?? fusedThird,
    keyWidth: p.k?.outDim ?? fusedThird,
    valueWidth: p.v?.outDim ?? fusedThird,
    outputInWidth: p.o?.inDim ?? null,
    ffnWidth: p.up?.outDim ?? p.gate?.outDim ?? null,
    ffnDownWidth: p.down?.inDim ?? null,
    hiddenIn,
    hiddenOut,
  };
}

/** Shape problems inside one layer: widths that cannot multiply together, or a changed head size. */
export function layerConsistencyIssues(layer: LayerShape, hidden: number | null, headDim: number): string[] {
  const w = layerWidths(layer);
  const issues: string[] = [];
  const p = layer.projections;
  if (w.queryWidth !== null && w.queryWidth % headDim !== 0)
    issues.push(`query width ${w.queryWidth} is not a multiple of head_dim ${headDim} (head_dim changed?)`);
  if (w.keyWidth !== null && w.keyWidth % headDim !== 0) issues.push(`key width ${w.keyWidth} is not a multiple of head_dim ${headDim}`);
  if (w.keyWidth !== null && w.valueWidth !== null && w.keyWidth !== w.valueWidth)
    issues.push(`key width ${w.keyWidth} differs from value width ${w.valueWidth}`);
  if (w.queryWidth !== null && w.keyWidth !== null && w.keyWidth > 0 && (w.queryWidth / headDim) % (w.keyWidth / headDim) !== 0) {
    issues.push(`${w.queryWidth / headDim} query heads are not a multiple of ${w.keyWidth / headDim} key/value heads`);
  }
  if (w.outputInWidth !== null && w.queryWidth !== null && w.outputInWidth !== w.queryWidth) {
    issues.push(`attention output projection reads ${w.outputInWidth} channels but attention produces ${w.queryWidth}`);
  }
  if (w.ffnWidth !== null && w.ffnDownWidth !== null && w.ffnWidth !== w.ffnDownWidth)
    issues.push(`MLP up width ${w.ffnWidth} differs from down input ${w.ffnDownWidth}`);
  if (p.gate && p.up && p.gate.outDim !== p.up.outDim) issues.push(`MLP gate width ${p.gate.outDim} differs from up width ${p.up.outDim}`);
  if (hidden !== null) {
    for (const width of new Set([...w.hiddenIn, ...w.hiddenOut, ...layer.normSizes])) {
      if (width !== hidden) issues.push(`a projection or norm has width ${width} where the hidden size is ${hidden}`);
    }
  }
  for (const [role, projection] of Object.entries(p)) {
    if (projection?.biasLength !== null && projection?.biasLength !== undefined && projection.biasLength !== projection.outDim) {
      issues.push(`${role} bias has ${projection.biasLength} entries for ${projection.outDim} outputs`);
    }
  }
  return issues;
}
