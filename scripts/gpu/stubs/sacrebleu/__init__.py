"""Import stub for `sacrebleu` (lm_eval 0.4.13's metrics module imports it at module level; installed
--no-deps, it is absent). Only the BLEU/chrF/TER generation metrics use it, and loglikelihood tasks never do;
any actual use fails with AttributeError on this empty module."""
