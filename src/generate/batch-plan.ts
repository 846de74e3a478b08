/**
 * Which prompts decode together. Prompts are sorted by length (longest first) before they are cut into batches,
 * so a batch pads its prompts little; results go back in prompt order. A graph that numbers new tokens from
 * its KV-cache length (no position_ids input) cannot take padded prompts at all: there a batch holds prompts of
 * one length only (native/ort/generation_session.h).
 */

/** Batches of prompt indices, each at most `batchSize` long. */
export function planGenerationBatches(promptLengths: readonly number[], batchSize: number, equalLengthsOnly: boolean): number[][] {
  const order = promptLengths.map((_, index) => index).sort((a, b) => promptLengths[b]! - promptLengths[a]! || a - b);
  const batches: number[][] = [];
  let current: number[] = [];
  for (const index of order) {
    const lengthChanges = current.length > 0 && promptLengths[current[0]!] !== promptLengths[index];
    if (current.length === batchSize || (equalLengthsOnly && lengthChanges)) {
      batches.push(current);
      current = [];
    }
    current.push(index);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
