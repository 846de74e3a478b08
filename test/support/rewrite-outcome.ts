/**
 * What the load-time graph rewrites did to a model, read from the structured outcomes the session reports
 * (LanguageModel.rewrites: one {name, applied, reason} per pass). The counts live in the cpuFusion pass's reason
 * text; this is the one place tests read them, so a change in that wording is adapted here alone.
 */
import type { RewriteOutcome as PassOutcome, RewriteName } from '../../src/native/binding.js';

export interface RewriteOutcome {
  /** Attention blocks that run as one ai.mlrb node. */
  readonly fusedAttentionBlocks: number;
  /** Softmax nodes the fusion looked at. */
  readonly softmaxBlocks: number;
  /** Fused blocks with the rotary embedding of Q and K folded in. */
  readonly rotaryFolded: number;
  readonly lmHeadSliced: boolean;
  readonly lastBlockPruned: boolean;
  /** Every pass's outcome as one text, for failure messages. */
  readonly notes: string;
}

const FUSED = /^(\d+) of (\d+) Softmax attention blocks run as one ai\.mlrb node each/;
const ROTARY = /\((\d+) with the rotary embedding of Q and K folded in\)/;
const SOFTMAX_COUNT = /(\d+) Softmax/;

export function readRewriteOutcome(outcomes: readonly PassOutcome[]): RewriteOutcome {
  const pass = (name: RewriteName): PassOutcome | undefined => outcomes.find((outcome) => outcome.name === name);
  const fusion = pass('cpuFusion');
  const fused = fusion?.applied ? FUSED.exec(fusion.reason) : null;
  return {
    fusedAttentionBlocks: Number(fused?.[1] ?? 0),
    softmaxBlocks: Number(fused?.[2] ?? SOFTMAX_COUNT.exec(fusion?.reason ?? '')?.[1] ?? 0),
    rotaryFolded: Number((fusion?.applied ? ROTARY.exec(fusion.reason)?.[1] : undefined) ?? 0),
    lmHeadSliced: pass('sliceLmHead')?.applied === true,
    lastBlockPruned: pass('pruneLastBlock')?.applied === true,
    notes: outcomes.map((outcome) => `${outcome.name}: ${outcome.applied ? 'applied' : 'not applied'} (${outcome.reason})`).join('\n'),
  };
}
