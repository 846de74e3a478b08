"""Records NLTK's Porter stems and ROUGE-L-with-stemmer figures for src/math-reasoning/porter-stemmer.ts and
rouge-l.ts to compare against.

MLRB's ROUGE is Hugging Face evaluate's rouge with use_stemmer=True: Google's rouge_score tokenizer, which stems
every token longer than 3 characters with nltk's PorterStemmer() (its default mode, NLTK_EXTENSIONS).

Stems: every distinct token (rouge_score's tokenizer, no stemmer) of the repository's README, the MMLU dev
questions and the BLiMP sentences in ../shared/data (when present), plus a hand list aimed at each rule, NLTK's
irregular forms and the edge cases (short words, digits, runs of y), each stemmed by nltk itself.

ROUGE-L: rouge_score is not in this machine's package index, so its tokenizer (tokenize.py) and LCS F-measure
(rouge_scorer.py's _score_lcs, scoring.fmeasure) are re-implemented below from their published source, with
nltk's real stemmer plugged in, over metric_pairs.py's edge cases and pairs written for the stemmer.

    PIP_INDEX_URL=file:///opt/pypi/simple /work/pyenv/bin/pip install nltk
    /work/pyenv/bin/python scripts/math_reasoning/record_stemmer_expectations.py \\
        [--shared ../shared] [--out test/fixtures/math-reasoning/stemmer-expectations.json]
"""

import argparse
import csv
import glob
import json
import os
import re

import nltk
from nltk.stem.porter import PorterStemmer

from metric_pairs import PAIRS

# One or more words per rule of the paper and of NLTK's changes, its irregular forms, and the edges.
HAND_WORDS = """
caresses ponies ties caress cats sses ies ss s sss ssss
feed agreed bleed need eed plastered bled motoring sing ing ings ed conflated troubled sized hopping tanned
falling hissing fizzed failing filing owing owed axing ayed
dies died lies lied tied pies spied cried cries flies tries tried hied
happy sky skies spy fly try cry by enjoy enjoyment toy toys syzygy y yy yyy yyyy yyyyy yay yea eyes says days buys
relational conditional rational ational tional valenci hesitanci digitizer conformabli conformable radicalli
differentli vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness
callousness formaliti sensitiviti sensibiliti fully fulli beautifully hopefully logically analytically
sensationalli traditionally occasionally logi geology theology archaeology philology biology ideology
triplicate formative formalize electriciti electrical hopeful goodness
revival allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment
dependent adoption homologou communism activate angulariti homologous effective bowdlerize
probate rate cease controll controlling roll
generalization generalizations generalize generalized generalizing
dying lying tying news innings inning outings outing cannings canning howe proceed exceed succeed
proceeds proceeding exceeded succeeded
a b c i o u x z aa ab ba is as us 0 1 7 00 42 100 2024 1990s 3rd 2nd x1 h2o abc123ing 123ing 4ies
theorem theorems lemma lemmas proof proofs proving proved prove simp simplify simplification simplified
induction inductive intros intro exact apply applying rewrite rewriting rw cases obtain begin end linarith
nlinarith norm num rfl nat naturals integer integers rational rationals real reals positive nonnegative
""".split()


def rouge_tokenize(text, stemmer):
    """rouge_score's tokenize.tokenize: lower-case, non-[a-z0-9] runs to spaces, split, stem if over 3 chars."""
    text = re.sub(r"[^a-z0-9]+", " ", text.lower())
    tokens = re.split(r"\s+", text)
    if stemmer:
        tokens = [stemmer.stem(token) if len(token) > 3 else token for token in tokens]
    return [token for token in tokens if re.match(r"^[a-z0-9]+$", token)]


def lcs_length(ref, can):
    """The longest common subsequence's length, by rouge_score's full dynamic-programming table."""
    table = [[0] * (len(can) + 1) for _ in range(len(ref) + 1)]
    for i in range(1, len(ref) + 1):
        for j in range(1, len(can) + 1):
            table[i][j] = table[i - 1][j - 1] + 1 if ref[i - 1] == can[j - 1] else max(table[i - 1][j], table[i][j - 1])
    return table[-1][-1]


def rouge_l(target, prediction, stemmer):
    """RougeScorer(['rougeL'], use_stemmer=...).score(target, prediction)['rougeL'] as a dict."""
    target_tokens = rouge_tokenize(target, stemmer)
    prediction_tokens = rouge_tokenize(prediction, stemmer)
    if not target_tokens or not prediction_tokens:
        return {"precision": 0, "recall": 0, "fmeasure": 0}
    lcs = lcs_length(target_tokens, prediction_tokens)
    precision = lcs / len(prediction_tokens)
    recall = lcs / len(target_tokens)
    fmeasure = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"precision": precision, "recall": recall, "fmeasure": fmeasure}


# Pairs whose score the stemmer changes: inflections that meet only after stemming, and some that never meet.
STEMMER_PAIRS = [
    ("proving the lemmas by simplifying", "proves each lemma by simplification"),
    ("theorem nat_add_comm : ∀ (a b : ℕ), a + b = b + a := by intros; apply nat.add_comm", "theorem add_comms (a b : ℕ) : a + b = b + a := begin intros, applying nat.add_comm, end"),
    ("The generalizations of relational operators", "generalization of relations operating"),
    ("skies news dying lying succeeded proceeds", "sky news die lie succeed proceed"),
    ("cats caresses ponies ties", "cat caress poni ti"),
    ("happy flies spied enjoying", "happiness fly spy enjoys"),
    ("1990s 3rd 2nd h2o x1 abc123ing", "1990 3rd 2nd h2o x1 abc123"),
    ("yyyy syzygy says", "yyyyy syzygi say"),
    ("is as us was has its", "i a u wa ha it"),
    ("Controlling ROLLING Generalization", "controller rolls generalize"),
]


def collect_words(readme_path, shared):
    """Every distinct token of the sources (unstemmed), with the sources' names."""
    words = set(HAND_WORDS)
    sources = ["hand list"]
    with open(readme_path, encoding="utf-8") as handle:
        words.update(rouge_tokenize(handle.read(), None))
    sources.append("README.md")
    mmlu_dev = sorted(glob.glob(os.path.join(shared, "data", "mmlu", "dev", "*.csv")))
    for path in mmlu_dev:
        with open(path, encoding="utf-8", newline="") as handle:
            for row in csv.reader(handle):
                words.update(rouge_tokenize(" ".join(row), None))
    if mmlu_dev:
        sources.append(f"MMLU dev ({len(mmlu_dev)} subjects)")
    blimp = sorted(glob.glob(os.path.join(shared, "data", "blimp", "*.jsonl")))
    for path in blimp:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                words.update(rouge_tokenize(f"{row['sentence_good']} {row['sentence_bad']}", None))
    if blimp:
        sources.append(f"BLiMP ({len(blimp)} paradigms)")
    return sorted(words), sources


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", default="../shared", help="the shared material (data/mmlu, data/blimp)")
    parser.add_argument("--out", default="test/fixtures/math-reasoning/stemmer-expectations.json")
    args = parser.parse_args()

    stemmer = PorterStemmer()  # what rouge_score's DefaultTokenizer(use_stemmer=True) builds
    assert stemmer.mode == PorterStemmer.NLTK_EXTENSIONS
    words, sources = collect_words("README.md", args.shared)
    pairs = []
    for hypothesis, reference in PAIRS + STEMMER_PAIRS:
        pairs.append({
            "hypothesis": hypothesis,
            "reference": reference,
            "hypothesis_tokens": rouge_tokenize(hypothesis, stemmer),
            "reference_tokens": rouge_tokenize(reference, stemmer),
            "stemmed": rouge_l(reference, hypothesis, stemmer),
            "unstemmed": rouge_l(reference, hypothesis, None),
        })
    out = {
        "generated_by": "scripts/math_reasoning/record_stemmer_expectations.py",
        "nltk_version": nltk.__version__,
        "stemmer": f"PorterStemmer(mode={stemmer.mode})",
        "word_sources": sources,
        "stems": {word: stemmer.stem(word) for word in words},
        "rouge_l": pairs,
    }
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(out, handle, ensure_ascii=False, indent=0, separators=(",", ":"))
        handle.write("\n")
    print(f"wrote {len(words)} stems ({', '.join(sources)}) and {len(pairs)} ROUGE-L pairs to {args.out}")


if __name__ == "__main__":
    main()
