/**
 * Which hidden channels lineage compares units over. With the hidden size unchanged, the same evenly spread channels
 * in both models. With it pruned (width pruning, as Minitron does), each pruned hidden channel is first traced to its
 * base channel by its column of the token embedding, and the units are then compared over matched pairs, so a model
 * cannot escape lineage by dropping one hidden channel.
 */
import { assignUnits } from './assign.js';
import { unitLineage, type UnitLineage } from './report.js';
import { sampleChannels } from './sample.js';
import type { WeightSource } from './source.js';
import { hiddenChannelVectors } from './units.js';

/** Hidden channels sampled per unit: a head spans head_dim rows of them, an FFN channel one row, so it gets more. */
export const ATTENTION_SAMPLES = 64;
export const FFN_SAMPLES = 128;
/** Vocabulary rows of the token embedding a hidden channel is compared over. */
export const VOCAB_SAMPLES = 256;

/** The same hidden channels, as the pruned model numbers them and as the base does. */
export interface ChannelPairs {
  readonly pruned: readonly number[];
  readonly base: readonly number[];
}

export type HiddenAlignment =
  | { readonly aligned: true; readonly attention: ChannelPairs; readonly ffn: ChannelPairs; readonly hidden: UnitLineage | null }
  | { readonly aligned: false; readonly note: string };

export function alignHidden(pruned: WeightSource, base: WeightSource): HiddenAlignment {
  const [prunedHidden, baseHidden] = [pruned.shape.hidden, base.shape.hidden];
  if (prunedHidden === null || baseHidden === null) return { aligned: false, note: 'the hidden size cannot be read off the token embedding' };
  if (prunedHidden === baseHidden) {
    const same = (wanted: number): ChannelPairs => ({ pruned: sampleChannels(baseHidden, wanted), base: sampleChannels(baseHidden, wanted) });
    return { aligned: true, attention: same(ATTENTION_SAMPLES), ffn: same(FFN_SAMPLES), hidden: null };
  }
  const [prunedTable, baseTable] = [pruned.shape.tokenEmbedding, base.shape.tokenEmbedding];
  if (prunedTable === null || baseTable === null || pruned.shape.vocab !== base.shape.vocab || base.shape.vocab === null) {
    return {
      aligned: false,
      note: `the hidden size changed (${baseHidden} -> ${prunedHidden}) and no token embeddings of one vocabulary tell which channels were kept`,
    };
  }
  const vocabRows = sampleChannels(base.shape.vocab, VOCAB_SAMPLES);
  const assignment = assignUnits(hiddenChannelVectors(pruned.graph, prunedTable, vocabRows), hiddenChannelVectors(base.graph, baseTable, vocabRows));
  const matched = Array.from(assignment.origin.keys()).filter((channel) => assignment.origin[channel]! >= 0);
  const pairs = (wanted: number): ChannelPairs => {
    const picked = sampleChannels(matched.length, wanted).map((position) => matched[position]!);
    return { pruned: picked, base: picked.map((channel) => assignment.origin[channel]!) };
  };
  return { aligned: true, attention: pairs(ATTENTION_SAMPLES), ffn: pairs(FFN_SAMPLES), hidden: unitLineage(assignment, prunedHidden, baseHidden, false) };
}
