#!/usr/bin/env python3
"""Record MLRB's wikitext perplexity of the fixture model(s) with transformers, as the independent reference for
mlrb-eval's `model-metrics` perplexity (test/model-metrics/perplexity.native.test.ts). The procedure is MLRB's
(agent_eval/benchmarks/perplexity.py, called from agent_eval/cli.py with n_ctx=256), re-implemented from its
facts:
  - dataset rows (wikitext-2-raw-v1, test) joined into one string, an empty row standing for " \\n";
  - the whole string tokenized once with the tokenizer's defaults (a Llama tokenizer adds BOS in front);
  - floor(tokens / 256) windows that do not overlap (a shorter tail is dropped); the first token of each
    window is replaced by BOS and the window is run through the model on its own;
  - the logits at window positions 128 .. 254 score the tokens at positions 129 .. 255 (127 per window) as
    -log(softmax(logits)[token]), the softmax taken in numpy on the float32 logits (the sums here are kept
    in float64; MLRB adds float32 values into a Python float, a difference far below the test tolerance);
  - NLL and token count accumulate across windows; after each window the running perplexity
    exp(nll / count) is appended to a list. MLRB's headline "perplexity" is the MEAN of that list (and
    median, min, max, p90, p95 of it are printed); exp(nll / count) after the last window is the plain
    perplexity of all scored tokens.
The dataset rows are made from the committed raw text as the hub's wikitext builder makes them from
wiki.test.raw: one row per line, newline kept, a line of only whitespace becoming "". The same rows are written
as a hub-layout parquet file, so the test reads both layouts.

  /work/pyenv/bin/python scripts/model_metrics/record_perplexity_expectations.py [--stories DIR]

--stories (default /work/models/stories260K/hf when present) adds the real stories260K weights; its figure is
checked against ../shared/models/stories260K/model.onnx, which the test skips without ../shared.
"""
from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "test" / "fixtures" / "model-metrics"
RAW_TEXT = FIXTURES / "wikitext-2-raw" / "wiki.test.raw"
HUB_SHARD = FIXTURES / "wikitext-hub" / "wikitext-2-raw-v1" / "test-00000-of-00001.parquet"
OUT = FIXTURES / "perplexity-expectations.json"
WINDOW = 256  # MLRB's cli.py: calculate_perplexity(n_ctx=256)


def hub_rows(raw: str) -> list[str]:
    """The hub builder's rows: each line of the file (Python's text-mode reading), blank ones as ""."""
    # Iterating a text file splits after each "\n" only (str.splitlines would also split at \x0b, \x1c, U+2028 …).
    return [line if line.strip() else "" for line in io.StringIO(raw)]


def joined_text(rows: list[str]) -> str:
    return "".join(" \n" if row == "" else row for row in rows)


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - np.max(logits))
    return shifted / shifted.sum(axis=0)


def mlrb_perplexity(model_dir: Path, text: str) -> dict:
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32, attn_implementation="eager").eval()
    tokens = tokenizer(text, return_tensors="pt").input_ids[0]
    bos = tokenizer.bos_token_id
    first_scored = min(512, WINDOW // 2)
    nll, count, running, window_nll = 0.0, 0, [], []
    for index in range(len(tokens) // WINDOW):
        start = index * WINDOW
        window = tokens[start: start + WINDOW].clone()
        window[0] = bos
        with torch.no_grad():
            logits = model(window.unsqueeze(0)).logits[0].numpy()
        this_window = 0.0
        for position in range(first_scored, WINDOW - 1):
            probability = softmax(logits[position])[int(tokens[start + position + 1])]
            this_window += float(-np.log(probability))
            count += 1
        nll += this_window
        window_nll.append(this_window)
        running.append(float(np.exp(nll / count)))
    values = np.asarray(running)
    return {
        "token_count": int(len(tokens)),
        "first_tokens": [int(t) for t in tokens[:16]],
        "bos_token_id": int(bos),
        "windows": len(running),
        "scored_tokens": count,
        "window_nll": window_nll,
        "running_perplexity": running,
        "perplexity": float(np.exp(nll / count)),
        "mlrb_summary": {
            "avg": float(np.mean(values)), "median": float(np.median(values)), "min": float(np.min(values)),
            "max": float(np.max(values)), "p90": float(np.percentile(values, 90)), "p95": float(np.percentile(values, 95)),
        },
    }


def write_hub_shard(rows: list[str]) -> None:
    HUB_SHARD.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"text": pa.array(rows, type=pa.string())}), HUB_SHARD)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stories", type=Path, default=Path("/work/models/stories260K/hf"),
                    help="stories260K's Hugging Face folder (skipped when absent)")
    a = ap.parse_args(argv)
    rows = hub_rows(RAW_TEXT.read_text(encoding="utf-8"))
    text = joined_text(rows)
    write_hub_shard(rows)
    models = {"tiny-llama": FIXTURES / "tiny-llama" / "hf"}
    if (a.stories / "model.safetensors").is_file():
        models["stories260K"] = a.stories
    results = {name: mlrb_perplexity(path, text) for name, path in models.items()}
    OUT.write_text(json.dumps({"window_tokens": WINDOW, "text_characters": len(text), "models": results}, indent=2) + "\n")
    for name, result in results.items():
        print(name, result["windows"], "windows", "perplexity", result["perplexity"], "mlrb avg", result["mlrb_summary"]["avg"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
