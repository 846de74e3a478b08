#!/usr/bin/env python3
"""Build the models of the bench's generation section from the real-peer models' weights.

scripts/bench/build_peer_models.py writes OUT_ROOT/{gpt2-small,stories260K}: a no-past model.onnx and
hf/ (the same weights as a Hugging Face checkpoint). This script, run after it, adds for each model:

  OUT_ROOT/<name>-kv/         the SAME weights (loaded from <name>/hf) exported WITH past in optimum's
                              convention: inputs input_ids, attention_mask [batch, past + sequence],
                              past_key_values.{i}.key/.value [batch, kv_heads, past, head_dim]; outputs
                              logits, present.{i}.key/.value [batch, kv_heads, past + sequence, head_dim].
                              Laid out as transformers.js 4.x loads a local model: config.json (model_type,
                              use_cache true), generation_config.json, the tokenizer files and
                              onnx/model.onnx (dtype fp32 reads that name; config and tokenizer files are
                              also copied beside it, where mlrb-eval looks). No use_cache_branch or merged
                              decoder: transformers.js feeds an empty past (past length 0) on the first step.
                              (transformers.js 4.3.1 cannot generate with the no-past graph: after the first
                              step it feeds only the new token whatever use_cache says.)
  OUT_ROOT/<name>-kv/generation-reference.json
                              the bench's prompts (token ids, all of one length so no row is padded) and
                              transformers' greedy continuation of each (torch, float32, EOS ignored), so the
                              bench checks every peer's ids without Python.

Each export is verified against transformers (export_llama.verify: logits with an empty past, and prefix
reuse through the presents) and its greedy ids are decoded once more through ONNX Runtime with the KV
cache and compared with transformers'. One JSON line per model.

  /work/pyenv/bin/python scripts/bench/build_generation_models.py [--out-root /work/models] [--only gpt2-small]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "gpu"))
sys.path.insert(0, str(REPO / "scripts" / "bench"))
import export_llama  # noqa: E402  (its with-past exporter and verification are reused as they are)
from build_peer_models import GPT2_OPSET, MODELS, replace_folder  # noqa: E402

# The no-past stories260K graph comes from export_llama.py's default opset; each KV graph uses its model's.
OPSET = {"gpt2-small": GPT2_OPSET, "stories260K": 17}
# Texts of the bench's prompts; each is encoded by the model's tokenizer (its special tokens added) and all
# are cut to the shortest one's length, so a batch of them needs no padding (peers disagree on how padded
# rows get their positions; equal lengths keep every peer's greedy ids comparable with transformers').
PROMPT_TEXTS = (
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the park.",
    "The cat sat on the mat and looked at the bird in the tree. The bird sang a happy song.",
    "Tom had a big red ball. He liked to kick it high in the sky with his best friend Sam.",
    "One day, a small dog found a shiny stone near the river. He picked it up with his mouth.",
    "In the morning the sun was bright and warm, so Mom said they could go to the beach.",
    "There was a tall tree in the garden. Every day a bird came to sit on its highest branch.",
    "Ben wanted to build a tower of blocks. He put one block on top of another, very slowly.",
    "The old man walked to the store to buy some bread, milk and a big green apple for lunch.",
)
MAX_NEW_TOKENS = 64

warnings.filterwarnings("ignore")  # the TorchScript tracer's warnings about the cache are known and harmless here


def load_hf(hf_dir: Path):
    from transformers import AutoModelForCausalLM

    # eager: plain MatMul/Softmax nodes, as the no-past exports were traced
    model = AutoModelForCausalLM.from_pretrained(hf_dir, dtype=torch.float32, attn_implementation="eager").eval()
    return model


def bench_prompts(hf_dir: Path) -> list[list[int]]:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(hf_dir)
    encoded = [tokenizer.encode(text) for text in PROMPT_TEXTS]
    length = min(len(ids) for ids in encoded)
    return [ids[:length] for ids in encoded]


def torch_greedy(model, prompts: list[list[int]]) -> list[list[int]]:
    """transformers' own generate, greedy, every row MAX_NEW_TOKENS long (EOS does not stop it)."""
    from transformers import GenerationConfig

    config = GenerationConfig(do_sample=False, max_new_tokens=MAX_NEW_TOKENS, min_new_tokens=0,
                              eos_token_id=None, pad_token_id=0, use_cache=True)
    ids = torch.tensor(prompts, dtype=torch.int64)
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), generation_config=config)
    generated = out[:, ids.shape[1]:].tolist()
    if any(len(row) != MAX_NEW_TOKENS for row in generated):
        raise SystemExit(f"transformers stopped early: {[len(row) for row in generated]}")
    return generated


def ort_kv_greedy(onnx_path: Path, prompts: list[list[int]]) -> tuple[list[list[int]], float]:
    """The KV graph decoding greedily on ORT CPU (prefill, then one token per step through the presents);
    also returns the smallest top-1 − top-2 logit gap met, to tell a near tie from a wrong graph."""
    session = export_llama.ort_session(onnx_path)
    names = [o.name for o in session.get_outputs()]
    ids = np.asarray(prompts, dtype=np.int64)
    mask = np.ones_like(ids)
    feeds = export_llama.ort_feeds(session, ids, mask)
    generated: list[list[int]] = [[] for _ in prompts]
    min_gap = float("inf")
    for _ in range(MAX_NEW_TOKENS):
        outputs = dict(zip(names, session.run(None, feeds)))
        last = outputs["logits"][:, -1, :]
        top2 = np.sort(last, axis=-1)[:, -2:]
        min_gap = min(min_gap, float((top2[:, 1] - top2[:, 0]).min()))
        next_ids = last.argmax(-1).astype(np.int64)
        for row, token in zip(generated, next_ids):
            row.append(int(token))
        mask = np.concatenate([mask, np.ones((len(prompts), 1), dtype=np.int64)], axis=1)
        feeds = {"input_ids": next_ids[:, None], "attention_mask": mask}
        feeds.update({name.replace("present.", "past_key_values.", 1): value
                      for name, value in outputs.items() if name.startswith("present.")})
    return generated, min_gap


def first_difference(a: list[list[int]], b: list[list[int]]) -> dict | None:
    for row, (x, y) in enumerate(zip(a, b)):
        for step, (p, q) in enumerate(zip(x, y)):
            if p != q:
                return {"row": row, "step": step, "transformers": p, "ort": q}
    return None


def build(name: str, out_root: Path) -> dict:
    source = out_root / name
    hf_dir = source / "hf"
    if not (hf_dir / "config.json").is_file() or not (source / "model.onnx").is_file():
        raise SystemExit(f"{source}: build it first: {sys.executable} scripts/bench/build_peer_models.py --out-root {out_root}")
    t0 = time.time()
    model = load_hf(hf_dir)
    work = out_root / f".{name}-kv.tmp-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    (work / "onnx").mkdir(parents=True)
    try:
        files = export_llama.export_onnx(model, work / "onnx", "cpu", OPSET[name], external_mb=1536, with_past=True)
        t_export = time.time() - t0
        model.config.use_cache = True  # config.json says the graph has KV inputs, as optimum's does
        model.generation_config.use_cache = True
        # transformers.js reads these from the folder; mlrb-eval (our engine) from beside the graph, so onnx/ gets them too
        for folder in (work, work / "onnx"):
            model.config.save_pretrained(folder)
            model.generation_config.save_pretrained(folder)
            export_llama.copy_tokenizer(hf_dir, folder)
        prompts = bench_prompts(hf_dir)
        expected = torch_greedy(model, prompts)
        ort_ids, min_gap = ort_kv_greedy(work / "onnx" / "model.onnx", prompts)
        reference = {
            "source": "transformers generate, greedy, float32 torch, eos ignored (scripts/bench/build_generation_models.py)",
            "maxNewTokens": MAX_NEW_TOKENS,
            "prompts": prompts,
            "greedy": expected,
        }
        (work / "generation-reference.json").write_text(json.dumps(reference) + "\n")
        # export_llama.verify needs model.onnx at the folder's top: point it at onnx/ (last: it upcasts in place)
        verified = export_llama.verify(model, work / "onnx", None, "cpu")
        for file in work.rglob("*"):
            if file.is_file():
                file.chmod(0o644)
        replace_folder(work, out_root / f"{name}-kv")
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return {
        "model": f"{name}-kv",
        "out": str(out_root / f"{name}-kv"),
        "onnx_bytes": sum((out_root / f"{name}-kv" / "onnx" / f).stat().st_size for f in files),
        "seconds_export": round(t_export, 2),
        "prompt_tokens": len(prompts[0]),
        "rows": len(prompts),
        "verify": verified,
        "greedy_ort_kv_equals_transformers": ort_ids == expected,
        "greedy_first_difference": first_difference(expected, ort_ids),
        "greedy_min_top2_gap": min_gap,
        "seconds": round(time.time() - t0, 2),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-root", type=Path, default=Path("/work/models"), help="parent of the model folders")
    ap.add_argument("--only", choices=MODELS, action="append", help="build only this model (repeatable)")
    a = ap.parse_args(argv)
    for name in MODELS:
        if a.only and name not in a.only:
            continue
        print(json.dumps(build(name, a.out_root)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
