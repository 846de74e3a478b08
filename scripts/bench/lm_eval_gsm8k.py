#!/usr/bin/env python3
"""lm-eval 0.4.13's gsm8k (HF backend, torch on the CPU) on a local gsm8k release folder, timed: the peer of the
gsm8k rows of bench/gsm8k-generation.ts.

It runs lm-eval's unmodified `gsm8k` task through simple_evaluate with HFLM (fp32, batch size 1, lm-eval's default;
2 torch threads), its datasets.load_dataset("openai/gsm8k", "main") answered from DATA/test.jsonl and
DATA/train.jsonl (the original release's layout, which mlrb-eval reads too), and writes OUT: lm-eval's version,
the seconds from interpreter start to the end of simple_evaluate, and per document its response text, for the
bench to check against mlrb-eval's.

  PYTHONPATH=scripts/lm_eval/stubs /work/pyenv/bin/python scripts/bench/lm_eval_gsm8k.py --hf HF_DIR --data DATA \
      --num-fewshot 5 --out OUT.json
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

STARTED = time.perf_counter()


def serve_release(data: Path) -> None:
    """Answers the YAML's load_dataset("openai/gsm8k", "main") from DATA's test.jsonl and train.jsonl."""
    import datasets

    def load_dataset(path, name=None, **_kwargs):
        if (path, name) != ("openai/gsm8k", "main"):
            raise RuntimeError(f"lm_eval_gsm8k serves only openai/gsm8k main, not {path} {name}")
        return datasets.DatasetDict({split: datasets.Dataset.from_json(str(data / f"{split}.jsonl")) for split in ("train", "test")})

    datasets.load_dataset = load_dataset


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hf", type=Path, required=True, help="the model as a Hugging Face checkpoint")
    ap.add_argument("--data", type=Path, required=True, help="a folder with gsm8k's test.jsonl and train.jsonl")
    ap.add_argument("--num-fewshot", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="lmeval-datasets-"))
    import torch

    torch.set_num_threads(a.threads)
    import lm_eval
    from lm_eval.models.huggingface import HFLM

    serve_release(a.data)
    lm = HFLM(pretrained=str(a.hf), device="cpu", batch_size=1, dtype="float32")
    out = lm_eval.simple_evaluate(model=lm, tasks=["gsm8k"], num_fewshot=a.num_fewshot, log_samples=True, fewshot_random_seed=1234)
    seconds = time.perf_counter() - STARTED
    responses = {}
    for sample in out["samples"]["gsm8k"]:
        responses[sample["doc_id"]] = sample["resps"][0][0]
    a.out.write_text(json.dumps({"lm_eval_version": lm_eval.__version__, "torch_version": torch.__version__, "seconds": seconds,
                                 "responses": [responses[key] for key in sorted(responses)]}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
