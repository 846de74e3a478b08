#!/usr/bin/env python3
"""Records the token ids real lm-eval's HFLM gives a handful of requests, per model_type, in one release: the
installed lm-eval 0.4.13, or v0.4.8 from its source (--lm-eval-source).

Why: the releases encode differently, and v0.4.4–v0.4.8 also by the model: HFLM.__init__ sets add_bos_token=True
when `"gemma" in config.model_type`, so a Gemma model gets the tokenizer's special tokens (BOS) before every
context, scored or generated; v0.4.13 has no such case but skips special tokens for a text that already starts
with a BOS text: tok_encode compares with decode(prefix_token_id) (BOS, else EOS), tok_batch_encode with the
tokenizer's bos_token. test/eval/request-encoding-lm-eval.test.ts holds mlrb-eval's rules to these recordings.

What it runs: HFLM built around a randomly initialised one-layer model of each model_type (gemma, gemma2, llama;
its weights are never run) and stories260K's tokenizer (BOS <s>, which its post-processor adds), once as it is and
once loaded with bos_token=None (the post-processor still adds <s>, but lm-eval's prefix token falls back to EOS
and tok_batch_encode sees no bos_token). Then, with lm-eval's own methods:
  - loglikelihood: HFLM.loglikelihood with _loglikelihood_tokens replaced by a recorder (so the context and
    continuation ids are those TemplateLM.loglikelihood / _encode_pair build, the empty context included);
  - rolling: HFLM.tok_encode of the document (what loglikelihood_rolling windows);
  - generate_until: HFLM.tok_batch_encode of the one context (no truncation).

v0.4.8 on this Python: its module-level imports of `evaluate` and `sqlitedict` are stubbed (scripts/lm_eval/stubs;
neither is called), and transformers 5 no longer has AutoModelForVision2Seq, which v0.4.8's hf_vlms.py reads at
import: the name is answered with AutoModelForImageTextToText (unused here).

Output (OUT, default test/fixtures/lm-eval/encoding-rules/<release>.json).

Run from the repo root:
  git -C LM_EVAL_REPO archive v0.4.8 lm_eval pyproject.toml | tar -x -C /tmp/lm-eval-0.4.8
  PYTHONPATH=scripts/gpu/stubs /work/pyenv/bin/python scripts/lm_eval/record_encoding_rules.py
  PYTHONPATH=/tmp/lm-eval-0.4.8:scripts/lm_eval/stubs /work/pyenv/bin/python \\
      scripts/lm_eval/record_encoding_rules.py --lm-eval-source /tmp/lm-eval-0.4.8
"""
from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from lm_eval_releases import answer_removed_auto_class, release_of

REPO = Path(__file__).resolve().parents[2]
TOKENIZER = REPO.parent / "shared" / "models" / "stories260K"
# The test reads the committed copy of the same tokenizer.json.
TOKENIZER_COPY = REPO / "test" / "fixtures" / "generate" / "tokenizer.json"
MODEL_TYPES = ["gemma", "gemma2", "llama"]
# (context, continuation): an empty context, trailing and leading whitespace, a context (and a continuation after
# an empty one) starting with the BOS text, and one starting with the EOS text.
PAIRS = [
    ("", " Once upon a time"),
    ("", "<s> Once"),
    ("Once upon a time ", "there"),
    ("  Lily was", " happy"),
    ("<s> Once", " upon"),
    ("</s>The end", "."),
]
DOCUMENTS = ["Once upon a time, there was a cat.", "<s> Once", "</s>The end"]
PROMPTS = ["Once upon a time", " Lily was", "<s> Once", "</s>The end"]


def tiny_model(model_type: str):
    """A one-layer model of the type, randomly initialised: HFLM reads its config; nothing runs it."""
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.for_model(
        model_type, vocab_size=512, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
        num_key_value_heads=1, head_dim=8, bos_token_id=1, eos_token_id=2, pad_token_id=0,
    )
    return AutoModelForCausalLM.from_config(config)


def record_one(hflm_class, instance_class, model_type: str, tokenizer) -> dict:
    lm = hflm_class(pretrained=tiny_model(model_type), tokenizer=tokenizer, backend="causal", batch_size=1)
    recorded: list = []

    def recorder(requests, **_kwargs):
        recorded.extend(requests)
        return [(0.0, False)] * len(requests)

    lm._loglikelihood_tokens = recorder
    instances = [instance_class(request_type="loglikelihood", doc={}, arguments=pair, idx=0) for pair in PAIRS]
    lm.loglikelihood(instances)
    return {
        "model_type": model_type,
        "add_bos_token": lm.add_bos_token,
        "prefix_token_id": lm.prefix_token_id,
        "loglikelihood": [
            {"context": key[0], "continuation": key[1], "context_ids": list(context), "continuation_ids": list(continuation)}
            for key, context, continuation in recorded
        ],
        "rolling": [{"text": text, "ids": lm.tok_encode(text)} for text in DOCUMENTS],
        "generate_until": [{"context": text, "ids": lm.tok_batch_encode([text])[0][0].tolist()} for text in PROMPTS],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--lm-eval-source", type=Path, help="v0.4.8's source tree (first on PYTHONPATH)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    answer_removed_auto_class()
    import lm_eval
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM
    from transformers import AutoTokenizer

    release = release_of(lm_eval, args.lm_eval_source)
    if (TOKENIZER / "tokenizer.json").read_bytes() != TOKENIZER_COPY.read_bytes():
        raise SystemExit(f"{TOKENIZER_COPY} is not a copy of {TOKENIZER / 'tokenizer.json'}")
    tokenizers = {
        "stories260K": AutoTokenizer.from_pretrained(str(TOKENIZER)),
        "stories260K without bos_token": AutoTokenizer.from_pretrained(str(TOKENIZER), bos_token=None),
    }
    cases = []
    for name, tokenizer in tokenizers.items():
        for model_type in MODEL_TYPES:
            case = record_one(HFLM, Instance, model_type, tokenizer)
            cases.append({"tokenizer": name, "bos_token": tokenizer.bos_token, **case})
    out = args.out or REPO / "test" / "fixtures" / "lm-eval" / "encoding-rules" / f"{release}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"lm_eval": release, "tokenizer_json": str(TOKENIZER_COPY.relative_to(REPO)), "cases": cases}
    out.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {out}: {len(cases)} cases")


if __name__ == "__main__":
    main()
