/**
 * ROUGE-L as MLRB computes it: Hugging Face evaluate's rouge with `use_stemmer=True`, that is Google's
 * rouge_score (`RougeScorer(['rougeL'], use_stemmer=True)`). Both texts are lower-cased, every run of characters
 * outside [a-z0-9] becomes a space, tokens longer than 3 characters are reduced by NLTK's Porter stemmer
 * (porter-stemmer.ts), and the longest common subsequence of the two token lists gives precision = LCS /
 * hypothesis tokens, recall = LCS / reference tokens and F = their harmonic mean. Unicode letters and symbols
 * (ℕ, ∀, →) vanish in that tokenization, so for Lean text ROUGE-L compares the ASCII words and numbers only.
 * MLRB aggregates per-problem scores; the mean is taken by the caller.
 *
 * rouge_score is not in this machine's package index; the figures are checked against a re-implementation of
 * its tokenizer and LCS around nltk's real stemmer (scripts/math_reasoning/record_stemmer_expectations.py).
 */
import { porterStem } from './porter-stemmer.js';

export interface RougeLScore {
  readonly precision: number;
  readonly recall: number;
  readonly fmeasure: number;
}

export interface RougeOptions {
  /** Porter-stem tokens longer than 3 characters, as rouge_score's use_stemmer=True (MLRB's setting). Default true. */
  readonly stemmer?: boolean;
}

/** rouge_score's default tokenizer. */
export function rougeTokenize(text: string, options: RougeOptions = {}): string[] {
  // Lower-casing first matters: 'İ' and the Kelvin sign lower-case to ASCII letters (Python and JS agree).
  const tokens = text.toLowerCase().split(/[^a-z0-9]+/u);
  const stemmed = options.stemmer === false ? tokens : tokens.map((token) => (token.length > 3 ? porterStem(token) : token));
  // rouge_score drops empty tokens after stemming (stems of [a-z0-9] tokens stay in [a-z0-9]).
  return stemmed.filter((token) => token !== '');
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
export function rougeL(hypothesis: string, reference: string, options: RougeOptions = {}): RougeLScore {
  const hypothesisTokens = rougeTokenize(hypothesis, options);
  const referenceTokens = rougeTokenize(reference, options);
  if (hypothesisTokens.length === 0 || referenceTokens.length === 0) return { precision: 0, recall: 0, fmeasure: 0 };
  const common = lcsLength(referenceTokens, hypothesisTokens);
  const precision = common / hypothesisTokens.length;
  const recall = common / referenceTokens.length;
  const fmeasure = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, fmeasure };
}
