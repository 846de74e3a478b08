"""Import stub: lm_eval.api.metrics imports sacrebleu at module level, and the multiple-choice tasks recorded
by task_requests.py never call it (BLEU and chrF are generation metrics)."""
