/**
 * Corpus BLEU as sacrebleu computes it with its defaults (`sacrebleu.corpus_bleu(hyps, [refs])`): the 13a
 * tokenizer (mteval-v13a's), case kept, n-grams up to 4 with clipped counts, exponential ("exp", NIST)
 * smoothing, no effective order, and the brevity penalty against the summed reference length. The score is
 * on sacrebleu's 0–100 scale. One reference per hypothesis, as the math-reasoning data has.
 *
 * Built from the algorithm's definition and checked against sacrebleu's own figures
 * (test/fixtures/math-reasoning/metric-expectations.json, recorded by scripts/math_reasoning/).
 */

const MAX_ORDER = 4;

/** sacrebleu's log floor for a zero precision: the score collapses to 0 instead of raising. */
const LOG_OF_ZERO = -9999999999;

/**
 * Python's str.isspace() set, which sacrebleu's `rstrip()` and `split()` use. It differs from JS's `\s`:
 * it has U+001C–U+001F and U+0085 and lacks U+FEFF, and those differences change token counts.
 */
const PYTHON_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const TRAILING_SPACE = new RegExp(`[${PYTHON_SPACE}]+$`, 'u');
const SPACE_RUN = new RegExp(`[${PYTHON_SPACE}]+`, 'u');

/** mteval-v13a's rules, applied in order, each over the whole line. */
const TOKEN_RULES: readonly (readonly [RegExp, string])[] = [
  // ASCII punctuation and symbols become tokens of their own: { | } ~ [ \ ] ^ _ ` ! " # $ % & ( ) * + : ; < = > ? @ /
  // (the range ' '-'&' also matches space, which only widens the gaps).
  [/([{-~[-` -&(-+:-@/])/gu, ' $1 '],
  // A period or comma is split off unless a digit precedes it …
  [/([^0-9])([.,])/gu, '$1 $2 '],
  // … or follows it, so 3.14 and 1,000 stay whole.
  [/([.,])([^0-9])/gu, ' $1 $2'],
  // A dash after a digit is split off (ranges like 1-2).
  [/([0-9])(-)/gu, '$1 $2 '],
];

/** The 13a tokenization of one segment, as the tokens sacrebleu counts. */
export function tokenize13a(segment: string): string[] {
  let line = segment.replace(TRAILING_SPACE, '');
  line = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ');
  if (line.includes('&')) {
    line = line.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
  }
  line = ` ${line} `;
  for (const [rule, replacement] of TOKEN_RULES) line = line.replace(rule, replacement);
  return line.split(SPACE_RUN).filter((token) => token !== '');
}

/** The counts BLEU is computed from, summed over the corpus. */
export interface BleuStatistics {
  readonly hypothesisLength: number;
  readonly referenceLength: number;
  /** Clipped n-gram matches, n = 1..4. */
  readonly matches: readonly number[];
  /** Hypothesis n-grams, n = 1..4. */
  readonly totals: readonly number[];
}

export interface BleuScore extends BleuStatistics {
  /** 0–100, as sacrebleu reports it. */
  readonly score: number;
  /** Per order, 0–100 (smoothed where there was no match). */
  readonly precisions: readonly number[];
  readonly brevityPenalty: number;
}

/** n-gram counts of one token list, keyed by the n-gram's tokens joined with a separator no token contains. */
function ngramCounts(tokens: readonly string[], order: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let start = 0; start + order <= tokens.length; start += 1) {
    // Tokens never contain spaces (they were split on them), so ' ' separates unambiguously.
    const key = tokens.slice(start, start + order).join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

export function bleuStatistics(hypotheses: readonly string[], references: readonly string[]): BleuStatistics {
  if (hypotheses.length !== references.length) {
    throw new RangeError(`BLEU needs one reference per hypothesis: ${hypotheses.length} hypotheses, ${references.length} references`);
  }
  const matches = new Array<number>(MAX_ORDER).fill(0);
  const totals = new Array<number>(MAX_ORDER).fill(0);
  let hypothesisLength = 0;
  let referenceLength = 0;
  hypotheses.forEach((hypothesis, index) => {
    const hypothesisTokens = tokenize13a(hypothesis);
    const referenceTokens = tokenize13a(references[index] ?? '');
    hypothesisLength += hypothesisTokens.length;
    referenceLength += referenceTokens.length;
    for (let order = 1; order <= MAX_ORDER; order += 1) {
      const referenceCounts = ngramCounts(referenceTokens, order);
      for (const [ngram, count] of ngramCounts(hypothesisTokens, order)) {
        totals[order - 1] = (totals[order - 1] ?? 0) + count;
        matches[order - 1] = (matches[order - 1] ?? 0) + Math.min(count, referenceCounts.get(ngram) ?? 0);
      }
    }
  });
  return { hypothesisLength, referenceLength, matches, totals };
}

/** BLEU from its statistics, with sacrebleu's exp smoothing and without effective order. */
export function bleuFromStatistics(statistics: BleuStatistics): BleuScore {
  const { hypothesisLength, referenceLength, matches, totals } = statistics;
  let brevityPenalty = 1;
  if (hypothesisLength < referenceLength) brevityPenalty = hypothesisLength > 0 ? Math.exp(1 - referenceLength / hypothesisLength) : 0;
  const precisions = new Array<number>(MAX_ORDER).fill(0);
  // No match of any order at all is a plain 0 (sacrebleu returns before smoothing).
  if (matches.every((count) => count === 0)) return { ...statistics, score: 0, precisions, brevityPenalty };

  // Each order without a match gets 100 / (2^k · total), k counting such orders so far (mteval's smoothing).
  // An order with no n-grams at all (a hypothesis shorter than 4 tokens) stops the loop: its precision stays 0,
  // whose floored log sends the score to 0, because the order still counts without effective order.
  let smoothing = 1;
  for (let order = 1; order <= MAX_ORDER; order += 1) {
    const total = totals[order - 1] ?? 0;
    const matched = matches[order - 1] ?? 0;
    if (total === 0) break;
    if (matched === 0) {
      smoothing *= 2;
      precisions[order - 1] = 100 / (smoothing * total);
    } else {
      precisions[order - 1] = (100 * matched) / total;
    }
  }
  const meanLog = precisions.reduce((sum, precision) => sum + (precision === 0 ? LOG_OF_ZERO : Math.log(precision)), 0) / MAX_ORDER;
  return { ...statistics, score: brevityPenalty * Math.exp(meanLog), precisions, brevityPenalty };
}

/** sacrebleu.corpus_bleu(hypotheses, [references]).score and what it was computed from. */
export function corpusBleu(hypotheses: readonly string[], references: readonly string[]): BleuScore {
  return bleuFromStatistics(bleuStatistics(hypotheses, references));
}
