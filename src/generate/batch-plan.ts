/**
 * Which prompts decode together. Prompts are sorted by length (longest first) before they are cut into batches,
 * so a batch pads (or staggers) its prompts little; results go back in prompt order. How far the lengths in one
 * batch may spread depends on how the graph keeps its cache (native/ort/generation_session.h):
 * - a graph that numbers new tokens from its KV-cache length (no position_ids input) cannot take padded prompts
 *   at all: a batch holds prompts of one length (spread 0);
 * - the fused-attention cache feeds every row the same positions: a longer prompt's extra tokens go in one per
 *   pass beside the shorter prompts' new tokens, so a spread of s tokens costs s passes; it is kept within the
 *   run's new-token limit, so a batch runs at most twice the passes its longest generation needs;
 * - left-padded (position_ids and attention_mask) and recomputed batches take any spread.
 */

/** Batches of prompt indices, each at most `batchSize` long, whose prompt lengths differ by at most `maxLengthSpread`. */
export function planGenerationBatches(promptLengths: readonly number[], batchSize: number, maxLengthSpread: number): number[][] {
  const order = promptLengths.map((_, index) => index).sort((a, b) => promptLengths[b]! - promptLengths[a]! || a - b);
  const batches: number[][] = [];
  let current: number[] = [];
  for (const index of order) {
    // Longest first: the batch's first prompt is its longest.
    const tooFar = current.length > 0 && promptLengths[current[0]!]! - promptLengths[index]! > maxLengthSpread;
    if (current.length === batchSize || tooFar) {
      batches.push(current);
      current = [];
    }
    current.push(index);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
