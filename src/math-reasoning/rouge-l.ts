/**
 * ROUGE-L as Google's rouge_score computes it (`RougeScorer(['rougeL'])`, no stemmer): both texts lower-cased,
 * every run of characters outside [a-z0-9] turned into a space, the longest common subsequence of the two
 * token lists, and precision = LCS / hypothesis tokens, recall = LCS / reference tokens, F = their harmonic
 * mean. Unicode letters and symbols (ℕ, ∀, →) vanish in that tokenization, so for Lean text ROUGE-L compares
 * the ASCII words and numbers only. MLRB aggregates per-problem scores; the mean is taken by the caller.
 *
 * rouge_score is not in this machine's package index, so the figures are checked against hand-worked
 * examples of the published definition (test/unit/math-reasoning/rouge-l.test.ts).
 */

export interface RougeLScore {
  readonly precision: number;
  readonly recall: number;
  readonly fmeasure: number;
}

/** rouge_score's default tokenizer without a stemmer. */
export function rougeTokenize(text: string): string[] {
  // Lower-casing first matters: 'İ' and the Kelvin sign lower-case to ASCII letters (Python and JS agree).
  return text.toLowerCase().split(/[^a-z0-9]+/u).filter((token) => token !== '');
}

/** Length of the longest common subsequence, in O(n·m) time and O(m) memory. */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  let previous = new Uint32Array(b.length + 1);
  let current = new Uint32Array(b.length + 1);
  for (const tokenA of a) {
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = tokenA === b[j - 1] ? (previous[j - 1] ?? 0) + 1 : Math.max(previous[j] ?? 0, current[j - 1] ?? 0);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length] ?? 0;
}

/** ROUGE-L of one hypothesis against its reference; either side without tokens scores 0. */
export function rougeL(hypothesis: string, reference: string): RougeLScore {
  const hypothesisTokens = rougeTokenize(hypothesis);
  const referenceTokens = rougeTokenize(reference);
  if (hypothesisTokens.length === 0 || referenceTokens.length === 0) return { precision: 0, recall: 0, fmeasure: 0 };
  const common = lcsLength(referenceTokens, hypothesisTokens);
  const precision = common / hypothesisTokens.length;
  const recall = common / referenceTokens.length;
  const fmeasure = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, fmeasure };
}
