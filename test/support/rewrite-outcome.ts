/**
 * What the load-time graph rewrites did to a model, read from the notes loading logs (LoadModelOptions.onLog:
 * the session's lmHeadNote and fusionNote). The one place tests read those notes for counts, so a change in
 * how the outcome is reported is adapted here alone.
 */
export interface RewriteOutcome {
  /** Attention blocks that run as one ai.mlrb node. */
  readonly fusedAttentionBlocks: number;
  /** Softmax nodes the fusion looked at. */
  readonly softmaxBlocks: number;
  /** Fused blocks with the rotary embedding of Q and K folded in. */
  readonly rotaryFolded: number;
  readonly lmHeadSliced: boolean;
  readonly lastBlockPruned: boolean;
  /** Every note, for failure messages. */
  readonly notes: string;
}

const FUSED = /CPU graph fusion on: (\d+) of (\d+) Softmax attention blocks run as one ai\.mlrb node each/;
const ROTARY = /\((\d+) with the rotary embedding of Q and K folded in\)/;
const SOFTMAX_COUNT = /CPU graph fusion off: .*?(\d+) Softmax/;

export function readRewriteOutcome(logs: readonly string[]): RewriteOutcome {
  const notes = logs.join('\n');
  const fused = FUSED.exec(notes);
  return {
    fusedAttentionBlocks: Number(fused?.[1] ?? 0),
    softmaxBlocks: Number(fused?.[2] ?? SOFTMAX_COUNT.exec(notes)?.[1] ?? 0),
    rotaryFolded: Number(ROTARY.exec(notes)?.[1] ?? 0),
    lmHeadSliced: /LM-head slicing on:/.test(notes),
    lastBlockPruned: /last-block row pruning on:/.test(notes),
    notes,
  };
}
