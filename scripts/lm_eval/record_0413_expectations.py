#!/usr/bin/env python3
"""Records what real lm-eval 0.4.13 does on stories260K, as test expectations for `--lm-eval-version 0.4.13`.

Why: lm-eval 0.4.13 builds different token ids than the 0.4.4-0.4.8 releases mlrb-eval follows by default (it
lets the tokenizer add BOS, PR #3347), and writes a somewhat different results file. The reference for our
0.4.13 mode is lm-eval 0.4.13 itself, run end to end through its own CLI, task YAMLs, request building,
tokenization and HF backend, never a re-implementation of its rules.

What it runs:
  1. scripts/gpu/export_llama.py --from-stories --save-hf: the stories260K weights as a transformers checkpoint
     (the same weights as ../shared/models/stories260K/model.onnx, which mlrb-eval scores).
  2. `lm_eval run --model hf` on CPU over MMLU (all 57 subjects, zero-shot, --limit MMLU_LIMIT questions each) and
     some BLiMP paradigms (--limit BLIMP_LIMIT pairs each). lm-eval wants the hub; its `datasets.load_dataset`
     is served from the local copies in ../shared/data instead, with the hub's column names and types, so its
     unmodified task YAMLs (cais/mmlu, nyu-mll/blimp) run as they do against the hub.
  3. HFLM.loglikelihood on a few edge requests (empty context, context ending in whitespace, text that starts
     with the BOS string) for the stories260K tokenizer and the GPT-2 tokenizer of tiny-random-gpt2-past, through
     HFLM's real tok_encode / _encode_pair / loglikelihood with the model call left out.

Outputs (OUT, default test/fixtures/lm-eval/0.4.13):
  stories260K-requests.jsonl  one line per request in lm-eval's order: task, doc, choice, sha256 of the
                              context text, the context's token count, first ids and sha256 of its ids, the
                              continuation ids, loglikelihood and is_greedy. Context ids are hashed to keep
                              the file small (first 16 hex digits of sha256); the head shows the BOS.
  stories260K-{mmlu,blimp}-results.json  the results files lm-eval wrote (samples not logged), as it wrote them
                              but for the checkpoint's temporary path, written as `stories260K-hf`.
  edge-requests.json          the edge requests and their (context ids, continuation ids) per tokenizer.

Run from the repo root (lm_eval 0.4.13 installed in the interpreter, or its wheel on PYTHONPATH; modules its
imports need but a --no-deps install lacks come from scripts/gpu/stubs):
  /work/pyenv/bin/python scripts/lm_eval/record_0413_expectations.py
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MMLU_LIMIT = 3
BLIMP_PARADIGMS = ["adjunct_island", "anaphor_gender_agreement", "causative", "determiner_noun_agreement_1",
                   "wh_questions_object_gap"]
BLIMP_LIMIT = 20
# Edge requests: (context, continuation). "<s>" is the stories260K BOS text, "<|endoftext|>" GPT-2's.
EDGE_REQUESTS = [
    ["Once upon a time", " there was"],
    ["Once upon a time ", "there was"],
    ["Once upon a time\n\n", "There was"],
    ["", "Once upon a time"],
    ["", " a cat"],
    ["", "<s>Once upon a time"],
    ["<s>Once upon a time", " there was"],
    ["", "<|endoftext|>Once upon a time"],
    ["<|endoftext|>Once upon a time", " there was"],
]


def sha256(text: str) -> str:
    """The first 16 hex digits (64 bits) of sha256: plenty to tell two prompts apart, and half the file."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def ids_sha256(ids: list[int]) -> str:
    return sha256(",".join(str(i) for i in ids))


# ----------------------------------------------------------------------------------------------
# The hub datasets lm-eval asks for, served from ../shared/data
# ----------------------------------------------------------------------------------------------

def mmlu_dataset(data: Path, subject: str):
    """cais/mmlu's columns: question, subject, choices (list of 4), answer (ClassLabel A-D -> int)."""
    import datasets

    features = datasets.Features({
        "question": datasets.Value("string"),
        "subject": datasets.Value("string"),
        "choices": datasets.Sequence(datasets.Value("string")),
        "answer": datasets.ClassLabel(names=["A", "B", "C", "D"]),
    })
    splits = {}
    for split in ("test", "dev"):
        with open(data / "mmlu" / split / f"{subject}_{split}.csv", encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        splits[split] = datasets.Dataset.from_dict({
            "question": [row["question"] for row in rows],
            "subject": [subject] * len(rows),
            "choices": [[row[f"choice{i}"] for i in range(4)] for row in rows],
            "answer": [int(row["answer"]) for row in rows],
        }, features=features)
    return datasets.DatasetDict(splits)


def blimp_dataset(data: Path, paradigm: str):
    """nyu-mll/blimp: one `train` split of the paradigm's pairs (lm-eval reads sentence_good / sentence_bad)."""
    import datasets

    with open(data / "blimp" / f"{paradigm}.jsonl", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    columns = ["sentence_good", "sentence_bad", "field", "linguistics_term", "UID"]
    return datasets.DatasetDict({"train": datasets.Dataset.from_dict({c: [row[c] for row in rows] for c in columns})})


def serve_datasets_locally(data: Path) -> None:
    """Replace datasets.load_dataset (which lm-eval's ConfigurableTask.download calls) for the two hub datasets
    these tasks use; anything else is refused, so nothing silently reaches for the network."""
    import datasets

    def load_dataset(path, name=None, **_kwargs):
        if path == "cais/mmlu":
            return mmlu_dataset(data, name)
        if path == "nyu-mll/blimp":
            return blimp_dataset(data, name)
        raise RuntimeError(f"record_0413_expectations serves only cais/mmlu and nyu-mll/blimp, not {path}")

    datasets.load_dataset = load_dataset


# ----------------------------------------------------------------------------------------------
# What HFLM builds and returns, recorded on the way through
# ----------------------------------------------------------------------------------------------

class RequestRecorder:
    """Wraps HFLM.loglikelihood (sees the Instances, in lm-eval's order) and HFLM._loglikelihood_tokens (sees
    the token ids lm-eval built for them, in the same order) and keeps both with the results."""

    def __init__(self, hflm_class):
        self.rows: list[dict] = []
        original_loglikelihood = hflm_class.loglikelihood
        original_tokens = hflm_class._loglikelihood_tokens
        recorder = self

        def loglikelihood(lm, requests, disable_tqdm=False):
            recorder._instances = list(requests)
            return original_loglikelihood(lm, requests, disable_tqdm=disable_tqdm)

        def loglikelihood_tokens(lm, requests, disable_tqdm=False, override_bs=None):
            results = original_tokens(lm, requests, disable_tqdm=disable_tqdm, override_bs=override_bs)
            for instance, (_, context_ids, continuation_ids), (loglik, greedy) in zip(
                    recorder._instances, requests, results, strict=True):
                context, _continuation = instance.args
                recorder.rows.append({
                    "task": instance.task_name,
                    "doc": instance.doc_id,
                    "choice": instance.idx,
                    "context_sha256": sha256(context),
                    "context_length": len(context_ids),
                    "context_head": list(context_ids[:3]),
                    "context_ids_sha256": ids_sha256(list(context_ids)),
                    "continuation_ids": list(continuation_ids),
                    "loglik": float(loglik),
                    "is_greedy": bool(greedy),
                })
            return results

        hflm_class.loglikelihood = loglikelihood
        hflm_class._loglikelihood_tokens = loglikelihood_tokens


def run_lm_eval(hf_dir: Path, out_dir: Path, tasks: list[str], limit: int, model_args: str = "") -> Path:
    """lm-eval's own CLI (`lm_eval run`), in this process so the patches above apply. `model_args` adds to
    pretrained= and dtype= (",backend=seq2seq" for an encoder-decoder)."""
    from lm_eval.__main__ import cli_evaluate

    sys.argv = [
        "lm_eval", "run", "--model", "hf", "--model_args", f"pretrained={hf_dir},dtype=float32{model_args}",
        "--device", "cpu", "--batch_size", "16", "--tasks", ",".join(tasks),
        "--limit", str(limit), "--output_path", str(out_dir),
    ]
    cli_evaluate()
    written = sorted(out_dir.rglob("results_*.json"))
    if len(written) != 1:
        raise SystemExit(f"expected one results file under {out_dir}, found {written}")
    return written[0]


def edge_tokenizations(tokenizer_dirs: dict[str, Path]) -> dict:
    """HFLM's own request building (tok_encode, _encode_pair, loglikelihood, prefix_token_id) for EDGE_REQUESTS,
    on an HFLM that holds only a tokenizer: _loglikelihood_tokens is where the model would run, so it returns
    what it was given instead."""
    from transformers import AutoTokenizer
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    class TokenizerOnlyHFLM(HFLM):
        def __init__(self, tokenizer):  # HFLM.__init__ would load a model; set only what tokenization reads.
            self.tokenizer = tokenizer
            self.backend = "causal"
            self.add_bos_token = None
            self.custom_prefix_token_id = None
            self.enable_thinking = None

        def _loglikelihood_tokens(self, requests, disable_tqdm=False, override_bs=None):
            return [(list(context_ids), list(continuation_ids)) for _, context_ids, continuation_ids in requests]

    out = {}
    for name, folder in tokenizer_dirs.items():
        lm = TokenizerOnlyHFLM(AutoTokenizer.from_pretrained(folder))
        instances = [Instance(request_type="loglikelihood", doc={}, arguments=tuple(pair), idx=0) for pair in EDGE_REQUESTS]
        encoded = lm.loglikelihood(instances, disable_tqdm=True)
        out[name] = {
            "prefix_token_id": lm.prefix_token_id,
            "requests": [{"context": c, "continuation": x, "context_ids": ids[0], "continuation_ids": ids[1]}
                         for (c, x), ids in zip(EDGE_REQUESTS, encoded, strict=True)],
        }
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared", help="the shared/ folder (data/, models/)")
    ap.add_argument("--out", type=Path, default=REPO / "test" / "fixtures" / "lm-eval" / "0.4.13")
    ap.add_argument("--hf", type=Path, help="stories260K as an HF checkpoint (default: exported into a temp folder)")
    a = ap.parse_args(argv)

    from lm_eval_0413 import import_lm_eval_0413, stories_checkpoint

    import_lm_eval_0413()
    from lm_eval.models.huggingface import HFLM

    models = a.shared / "models"
    with tempfile.TemporaryDirectory() as scratch:
        hf_dir = a.hf if a.hf is not None else stories_checkpoint(a.shared, scratch)
        serve_datasets_locally(a.shared / "data")
        recorder = RequestRecorder(HFLM)
        # --limit is one number for every task of a run, so BLiMP runs on its own with its own limit.
        results = {
            "mmlu": run_lm_eval(hf_dir, Path(scratch) / "mmlu", ["mmlu"], MMLU_LIMIT),
            "blimp": run_lm_eval(hf_dir, Path(scratch) / "blimp", [f"blimp_{p}" for p in BLIMP_PARADIGMS], BLIMP_LIMIT),
        }
        a.out.mkdir(parents=True, exist_ok=True)
        with open(a.out / "stories260K-requests.jsonl", "w", encoding="utf-8") as handle:
            for row in recorder.rows:
                handle.write(json.dumps(row) + "\n")
        for suite, file in results.items():
            # The checkpoint sits in a temporary folder: its path is replaced so that re-recording changes nothing
            # but the run facts (date, timings, environment).
            text = file.read_text(encoding="utf-8").replace(str(hf_dir), "stories260K-hf")
            (a.out / f"stories260K-{suite}-results.json").write_text(text, encoding="utf-8")
    edges = edge_tokenizations({"stories260K": hf_dir if a.hf else models / "stories260K",
                                "tiny-random-gpt2-past": models / "tiny-random-gpt2-past"})
    (a.out / "edge-requests.json").write_text(json.dumps(edges, indent=1) + "\n", encoding="utf-8")
    print(f"{len(recorder.rows)} requests, results and edge cases written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
