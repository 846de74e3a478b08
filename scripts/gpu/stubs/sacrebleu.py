"""Import stub for `sacrebleu` (not installed with lm_eval --no-deps).

lm_eval/api/metrics.py imports sacrebleu at module level for its BLEU/chrF/TER generation metrics;
log-likelihood scoring (HFLM.loglikelihood) never calls them. Any actual use fails loudly."""


def _unavailable(*args, **kwargs):
    raise RuntimeError("sacrebleu is stubbed (scripts/gpu/stubs): BLEU, chrF and TER are unavailable here")


corpus_bleu = corpus_chrf = corpus_ter = sentence_bleu = _unavailable
