#!/usr/bin/env python3
"""Records what real lm-eval 0.4.13 does for its `wikitext` task (loglikelihood_rolling) on stories260K.

Why: the task's numbers rest on three things that are easy to get subtly wrong: the detokenized target text,
the rolling windows HFLM.loglikelihood_rolling cuts it into, and the weighted aggregations of word/byte
perplexity and bits per byte. The reference is lm-eval itself: its unmodified task YAML, preprocess functions,
HFLM and metrics, run end to end through simple_evaluate.

What it does:
  1. Writes a small fixture in the hub layout of EleutherAI/wikitext_document_level (config
     wikitext-2-raw-v1, a `page` column): test/fixtures/tasks/wikitext/wikitext-2-raw-v1/test-00000-of-00001.parquet.
     One document is long enough to need several windows at stories260K's 512-token context.
  2. Runs lm-eval's `wikitext` task with the HF backend on CPU, its datasets.load_dataset served from that
     parquet, recording every window HFLM scores (through HFLM._loglikelihood_tokens) and the samples.

Output: test/fixtures/lm-eval/0.4.13/stories260K-wikitext.json: per document the summed loglikelihood, word and
byte counts, and its windows (context ids, continuation ids, loglikelihood), plus the task's three metrics.

Run from the repo root:
  PYTHONPATH=scripts/lm_eval/stubs python scripts/lm_eval/record_wikitext_expectations.py \
      --hf STORIES260K_HF_DIR   (scripts/gpu/export_llama.py --from-stories ... --save-hf writes one)
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "test" / "fixtures" / "tasks" / "wikitext" / "wikitext-2-raw-v1" / "test-00000-of-00001.parquet"
OUT = REPO / "test" / "fixtures" / "lm-eval" / "0.4.13" / "stories260K-wikitext.json"

# wikitext-raw style: " @-@ ", " @,@ ", " , ", " . ", headings "= = ... = =", spaced brackets and quotes.
_STORY = (
    " Once upon a time , there was a little girl named Lily . She liked to play in the park with her dog , "
    "a big brown dog named Max . One day , Lily saw a red ball ( a very shiny one ) under a tree . "
    "\" Look , Max ! \" she said . Max ran to the ball and brought it back . Lily 's mom gave them 3 @,@ 000 "
    "hugs and a well @-@ earned treat that cost 2 @.@ 5 coins . They were happy : the sun was warm ; the "
    "grass was green . \n"
)
DOCUMENTS = [
    " = Lily and Max = \n \n" + _STORY,
    " = = The park = = \n \n Tom and Sue went to the park . It was a sunny day ! Was it fun ? Yes , it was . \n",
    " = Long story = \n \n" + _STORY * 6 + " = = = End = = = \n \n The end . \n",
]


def write_fixture() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"page": DOCUMENTS}), FIXTURE)


def serve_fixture() -> None:
    import datasets

    def load_dataset(path, name=None, **_kwargs):
        if (path, name) != ("EleutherAI/wikitext_document_level", "wikitext-2-raw-v1"):
            raise RuntimeError(f"record_wikitext_expectations serves only wikitext-2-raw-v1, not {path} {name}")
        test = datasets.Dataset.from_parquet(str(FIXTURE))
        return datasets.DatasetDict({"train": test, "validation": test, "test": test})

    datasets.load_dataset = load_dataset


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hf", type=Path, required=True, help="stories260K as an HF checkpoint")
    a = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    import lm_eval
    from lm_eval.models.huggingface import HFLM
    from lm_eval.utils import get_rolling_token_windows

    if lm_eval.__version__ != "0.4.13":
        raise SystemExit(f"these expectations are lm-eval 0.4.13's; this is lm-eval {lm_eval.__version__}")
    write_fixture()
    serve_fixture()

    windows: list[dict] = []
    scored = HFLM._loglikelihood_tokens

    def recording(lm, requests, disable_tqdm=False, override_bs=None):
        results = scored(lm, requests, disable_tqdm=disable_tqdm, override_bs=override_bs)
        for (_key, context, continuation), (loglik, _greedy) in zip(requests, results, strict=True):
            windows.append({"context": list(context), "continuation": list(continuation), "loglikelihood": loglik})
        return results

    HFLM._loglikelihood_tokens = recording
    lm = HFLM(pretrained=str(a.hf), device="cpu", batch_size=1)
    out = lm_eval.simple_evaluate(model=lm, tasks=["wikitext"], log_samples=True)

    samples = sorted(out["samples"]["wikitext"], key=lambda s: s["doc_id"])
    documents = []
    cursor = 0
    for sample in samples:
        loglik = sample["resps"][0][0]
        # HFLM scores the windows in document order; lm-eval's own windowing says how many are each document's.
        count = len(list(get_rolling_token_windows(token_list=lm.tok_encode(sample["target"]),
                                                   prefix_token=lm.prefix_token_id, max_seq_len=lm.max_length,
                                                   context_len=1)))
        mine, cursor = windows[cursor:cursor + count], cursor + count
        words, nbytes = sample["word_perplexity"][1], sample["byte_perplexity"][1]
        documents.append({"doc_id": sample["doc_id"], "target": sample["target"], "loglikelihood": loglik,
                          "words": words, "bytes": nbytes, "windows": mine})
    if cursor != len(windows):
        raise SystemExit(f"{len(windows) - cursor} recorded windows were not matched to a document")
    metrics = {k.split(",")[0]: v for k, v in out["results"]["wikitext"].items() if k.split(",")[0] in
               ("word_perplexity", "byte_perplexity", "bits_per_byte")}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"lm_eval_version": lm_eval.__version__, "model": "stories260K",
                               "max_length": lm.max_length, "prefix_token_id": lm.prefix_token_id,
                               "metrics": metrics, "documents": documents}, indent=1) + "\n")
    print(json.dumps(metrics))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
