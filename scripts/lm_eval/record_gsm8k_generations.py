#!/usr/bin/env python3
"""Records the text real lm-eval 0.4.13 generates for its `gsm8k` task on stories260K, as test expectations.

Why: mlrb-eval's gsm8k path (prompts, stops, filters, exact_match) is checked piece by piece against lm-eval's code
(record_gsm8k_expectations.py), and its greedy ids against transformers; this closes the loop end to end. The
reference is lm-eval itself: its unmodified gsm8k YAML, request building, HFLM.generate_until (context encoding,
left truncation to max_length - max_gen_toks, greedy generate with stop sequences, decoding, cutting at the
stops), filters, metric and aggregation, run through simple_evaluate.

What it runs: lm-eval's `gsm8k` task with the HF backend on CPU (fp32, batch size 1), its datasets.load_dataset
served from the committed hub-layout fixture test/fixtures/tasks/gsm8k/hub (test split scored, train split for
the few-shot examples, drawn by lm-eval's default sampler with seed 1234), 0- and 2-shot, samples logged.

Output (OUT, default test/fixtures/lm-eval/0.4.13/stories260K-gsm8k-generations.json): lm-eval's version, the
model's max_length and max_gen_toks, and per shot count the aggregate metrics (exact_match and its stderr per
filter) and per document the context, the raw response (`resps`), and per filter the filtered response and
exact_match. Also per document how many tokens HFLM generated and the smallest gap between the top two logits
over them (transformers, one forward pass over context + generation): how close greedy decoding came to a tie,
which says how much numeric difference between ONNX Runtime and torch the equality of texts can withstand.

Run from the repo root (lm_eval 0.4.13 installed --no-deps; its missing imports stubbed):
  PYTHONPATH=scripts/lm_eval/stubs /work/pyenv/bin/python scripts/lm_eval/record_gsm8k_generations.py \
      --hf STORIES260K_HF_DIR   (scripts/gpu/export_llama.py --from-stories ... --save-hf writes one)
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HUB = REPO / "test" / "fixtures" / "tasks" / "gsm8k" / "hub" / "main"
OUT = REPO / "test" / "fixtures" / "lm-eval" / "0.4.13" / "stories260K-gsm8k-generations.json"
SHOT_COUNTS = [0, 2]
FILTERS = ["strict-match", "flexible-extract"]


def serve_fixture() -> None:
    """Answers the YAML's load_dataset("openai/gsm8k", "main") (v0.4.8's YAML: "gsm8k") from the fixture's parquet files."""
    import datasets

    def load_dataset(path, name=None, **_kwargs):
        if path not in ("openai/gsm8k", "gsm8k") or name != "main":
            raise RuntimeError(f"record_gsm8k_generations serves only openai/gsm8k main, not {path} {name}")
        return datasets.DatasetDict(
            {split: datasets.Dataset.from_parquet(str(HUB / f"{split}-00000-of-00001.parquet")) for split in ("train", "test")})

    datasets.load_dataset = load_dataset


def record_generations(lm) -> list[dict]:
    """Wraps HFLM._model_generate to keep each generation's ids; returns the list it fills."""
    from lm_eval.models.huggingface import HFLM

    generations: list[dict] = []
    generate = HFLM._model_generate

    def recording(self, context, max_length, stop, **generation_kwargs):
        output = generate(self, context, max_length, stop, **generation_kwargs)
        if output.shape[0] != 1:
            raise SystemExit("record_gsm8k_generations expects batch size 1")
        generations.append({"context_length": context.shape[1], "ids": output[0]})
        return output

    HFLM._model_generate = recording
    return generations


def top2_gap(lm, generation: dict) -> tuple[int, float]:
    """(generated token count, smallest top-1 minus top-2 logit over the positions that chose them)."""
    import torch

    with torch.no_grad():
        logits = lm.model(generation["ids"][None, :]).logits[0]
    start = generation["context_length"]
    chosen = logits[start - 1:generation["ids"].shape[0] - 1]
    top2 = torch.topk(chosen, 2, dim=-1).values
    return chosen.shape[0], float((top2[:, 0] - top2[:, 1]).min())


def record_run(lm, num_fewshot: int, generations: list[dict]) -> dict:
    import lm_eval

    generations.clear()

    out = lm_eval.simple_evaluate(model=lm, tasks=["gsm8k"], num_fewshot=num_fewshot, log_samples=True,
                                  fewshot_random_seed=1234)
    results = out["results"]["gsm8k"]
    metrics = {f"{metric},{flt}": results[f"{metric},{flt}"] for flt in FILTERS
               for metric in ("exact_match", "exact_match_stderr")}
    documents: dict[int, dict] = {}
    for sample in out["samples"]["gsm8k"]:
        doc = documents.setdefault(sample["doc_id"], {
            "doc_id": sample["doc_id"],
            "context": sample["arguments"][0][0],
            "target": sample["target"],
            "resps": sample["resps"][0][0],
            "filters": {},
        })
        if sample["resps"][0][0] != doc["resps"]:
            raise SystemExit(f"document {sample['doc_id']}: the filters saw different responses")
        doc["filters"][sample["filter"]] = {"filtered_resps": sample["filtered_resps"][0],
                                            "exact_match": sample["exact_match"]}
    # HFLM generates in its own order (longest context first); a generation belongs to the document whose
    # response is the start of its decoded text.
    for generation in generations:
        text = lm.tok_decode(generation["ids"][generation["context_length"]:].tolist())
        owners = [doc for doc in documents.values() if text.startswith(doc["resps"])]
        if len(owners) != 1:
            raise SystemExit(f"a generation matches {len(owners)} documents' responses: {text[:80]!r}")
        owners[0]["generated_tokens"], owners[0]["min_top2_logit_gap"] = top2_gap(lm, generation)
    return {"metrics": metrics, "documents": [documents[key] for key in sorted(documents)]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hf", type=Path, required=True, help="stories260K as an HF checkpoint")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="lmeval-datasets-"))
    import lm_eval
    from lm_eval.models.huggingface import HFLM

    if lm_eval.__version__ != "0.4.13":
        raise SystemExit(f"these expectations are lm-eval 0.4.13's; this is lm-eval {lm_eval.__version__}")
    serve_fixture()
    lm = HFLM(pretrained=str(a.hf), device="cpu", batch_size=1, dtype="float32")
    generations = record_generations(lm)
    runs = {str(k): record_run(lm, k, generations) for k in SHOT_COUNTS}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps({"lm_eval_version": lm_eval.__version__, "model": "stories260K",
                                 "max_length": lm.max_length, "max_gen_toks": lm.max_gen_toks,
                                 "runs": runs}, indent=1) + "\n")
    for k, run in runs.items():
        print(k, json.dumps(run["metrics"]),
              [(doc["generated_tokens"], round(doc["min_top2_logit_gap"], 4)) for doc in run["documents"]])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
