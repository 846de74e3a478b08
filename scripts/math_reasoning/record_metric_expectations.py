"""Records sacrebleu's figures for the math-reasoning BLEU (src/math-reasoning/bleu.ts) to compare against.

The pairs are written to reach the edges of sacrebleu's defaults: Lean and Unicode text, empty strings,
punctuation runs (mteval-v13a splits ASCII punctuation, keeps 3.14 and 1,000 whole, splits a dash after a
digit), HTML entities and <skipped>, line breaks, whitespace that Python's split() and JS's \\s disagree on,
repeated n-grams (clipping), hypotheses shorter than four tokens (no 4-grams: score 0 without effective order),
and pairs with no 2-, 3- or 4-gram match (exp smoothing). For each pair the script records sacrebleu's 13a
tokens and the one-pair corpus BLEU; it also records corpus BLEU over all pairs and over a few slices, since
corpus BLEU sums statistics before it scores.

The pairs live in metric_pairs.py, shared with record_stemmer_expectations.py (ROUGE-L's figures).

    PIP_INDEX_URL=file:///opt/pypi/simple /work/pyenv/bin/pip install sacrebleu
    /work/pyenv/bin/python scripts/math_reasoning/record_metric_expectations.py \\
        [--out test/fixtures/math-reasoning/metric-expectations.json]
"""

import argparse
import json

import sacrebleu
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from metric_pairs import PAIRS

SLICES = {"all": list(range(len(PAIRS))), "lean": [0, 1, 2, 7, 19, 21], "short_and_empty": [3, 4, 5, 6, 7], "punctuation": [10, 11, 12, 13]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="test/fixtures/math-reasoning/metric-expectations.json")
    args = parser.parse_args()

    bleu = sacrebleu.BLEU()  # the defaults: 13a, exp smoothing, no effective order, case kept
    tokenizer = Tokenizer13a()
    pairs = []
    for hypothesis, reference in PAIRS:
        score = bleu.corpus_score([hypothesis], [[reference]])
        pairs.append({
            "hypothesis": hypothesis,
            "reference": reference,
            "hypothesis_tokens": tokenizer(hypothesis.rstrip()).split(),
            "reference_tokens": tokenizer(reference.rstrip()).split(),
            "bleu": score.score,
            "bp": score.bp,
            "precisions": score.precisions,
        })
    corpora = []
    for name, indices in SLICES.items():
        score = sacrebleu.corpus_bleu([PAIRS[i][0] for i in indices], [[PAIRS[i][1] for i in indices]])
        corpora.append({"name": name, "indices": indices, "bleu": score.score, "sys_len": score.sys_len, "ref_len": score.ref_len})

    out = {
        "generated_by": "scripts/math_reasoning/record_metric_expectations.py",
        "sacrebleu_version": sacrebleu.__version__,
        "signature": str(bleu.get_signature()),
        "pairs": pairs,
        "corpora": corpora,
    }
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(out, handle, ensure_ascii=False, indent=1)
        handle.write("\n")
    print(f"wrote {len(pairs)} pairs and {len(corpora)} corpora to {args.out} ({out['signature']})")


if __name__ == "__main__":
    main()
