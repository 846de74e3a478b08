#!/usr/bin/env python3
"""Build the models of the bench's "real peer" section, each in two formats from ONE set of weights:
an ONNX graph for mlrb-eval and a Hugging Face checkpoint for lm-eval's HF backend, so both tools
score the same model and their log-likelihoods can be compared request by request.

  gpt2-small   transformers GPT2LMHeadModel with GPT-2's real shape (GPT2Config defaults: 768 wide,
               12 layers, 12 heads, 1,024 positions), seeded random init, vocabulary VOCAB_SIZE;
               TorchScript export (dynamo=False), opset 14, eager attention, weights inline (~650 MB).
  stories260K  the real llama2.c stories260K weights, converted and exported by
               scripts/gpu/export_llama.py --from-stories --save-hf (called, not re-implemented).

Each OUT_ROOT/<name>/ holds model.onnx, config.json and the tokenizer files (what mlrb-eval loads)
and hf/ (save_pretrained safetensors + tokenizer: what lm-eval's HFLM loads). A folder is built in a
hidden sibling and renamed into place, so a reader sees the old complete folder or the new complete
one, never a half-written model. gpt2-small is built first (other work waits on its model.onnx).

Prints one JSON line per model (sizes, seconds, export-vs-torch differences, tokenizer check).

  /work/pyenv/bin/python scripts/bench/build_peer_models.py [--out-root /work/models] [--only gpt2-small]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
EXPORT_LLAMA = REPO / "scripts" / "gpu" / "export_llama.py"
sys.path.insert(0, str(EXPORT_LLAMA.parent))
import export_llama  # noqa: E402  (its exporter, tokenizer copy and verification are reused as they are)

# The GPT-2 tokenizer in shared/ has 50,295 ids: GPT-2's 50,257 plus 38 added whitespace-run tokens
# (50257-50294, the CodeGen/Phi additions). An id at or above vocab_size would index past the
# embedding, so the vocabulary must hold all 50,295; 50,304 is the next multiple of 64 (as nanoGPT
# pads GPT-2), the same vocabulary as the bench's synthetic 124M model and the roofline's LM-head shape.
VOCAB_SIZE = 50_304
GPT2_OPSET = 14
MODELS = ("gpt2-small", "stories260K")


def default_shared() -> Path:
    for candidate in (os.environ.get("MLRB_SHARED"), REPO / "shared", REPO.parent / "shared", "/work/shared"):
        if candidate and (Path(candidate) / "models").is_dir():
            return Path(candidate)
    raise SystemExit("no shared/ folder with models/ found; pass --shared DIR")


def replace_folder(built: Path, target: Path) -> None:
    """Moves a finished folder into place. rename() cannot replace a non-empty folder, so the old one
    is first renamed aside: the target is missing for the instant between two renames, never partial."""
    aside = target.with_name(f".{target.name}.old-{os.getpid()}")
    if target.exists():
        target.rename(aside)
    built.rename(target)
    shutil.rmtree(aside, ignore_errors=True)


def check_hf_tokenizer(hf_dir: Path, vocab_size: int) -> dict:
    """lm-eval's HFLM loads the tokenizer with AutoTokenizer from the checkpoint folder; mlrb-eval reads
    tokenizer.json with the tokenizers library. Both must give the same ids, and every id must fit."""
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    hf = AutoTokenizer.from_pretrained(hf_dir)
    raw = Tokenizer.from_file(str(hf_dir / "tokenizer.json"))
    samples = ["The cat sat on the mat.", " A", "\n\nAnswer:", "    indented  code\t\tline", "Ünïcödé — ok?"]
    mismatches = [s for s in samples if hf.encode(s, add_special_tokens=False) != raw.encode(s, add_special_tokens=False).ids]
    if len(hf) > vocab_size:
        raise SystemExit(f"{hf_dir}: the tokenizer has {len(hf)} ids, more than vocab_size {vocab_size}")
    if mismatches:
        raise SystemExit(f"{hf_dir}: AutoTokenizer and tokenizer.json disagree on {mismatches!r}")
    return {"class": type(hf).__name__, "ids": len(hf), "samples_identical": len(samples)}


def build_gpt2_small(work: Path, shared: Path, seed: int) -> dict:
    from transformers import GPT2Config, GPT2LMHeadModel

    t0 = time.time()
    config = GPT2Config(vocab_size=VOCAB_SIZE, bos_token_id=50256, eos_token_id=50256, use_cache=False)
    config._attn_implementation = "eager"  # plain MatMul/Softmax nodes, as export_llama.py traces by default
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(config).eval()
    t_build = time.time() - t0
    files = export_llama.export_onnx(model, work, "cpu", GPT2_OPSET, external_mb=1536)
    t_export = time.time() - t0 - t_build
    tokenizer_src = shared / "models" / "tiny-random-gpt2-past"
    model.config.save_pretrained(work)
    export_llama.copy_tokenizer(tokenizer_src, work)
    model.save_pretrained(work / "hf", safe_serialization=True)
    export_llama.copy_tokenizer(tokenizer_src, work / "hf")
    return {
        "params": sum(p.numel() for p in model.parameters()),
        "onnx_bytes": sum((work / f).stat().st_size for f in files),
        "files": files,
        "seconds_build": round(t_build, 2),
        "seconds_export": round(t_export, 2),
        "tokenizer": check_hf_tokenizer(work / "hf", VOCAB_SIZE),
        # Last: verify() upcasts the model in place (a no-op here: it is float32 already).
        "verify": export_llama.verify(model, work, None, "cpu"),
    }


def build_stories(work: Path, shared: Path) -> dict:
    command = [sys.executable, str(EXPORT_LLAMA), "--from-stories", str(shared / "models" / "stories260K"),
               "--out", str(work), "--save-hf", "--verify"]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    vocab_size = json.loads((work / "config.json").read_text())["vocab_size"]
    summary["tokenizer"] = check_hf_tokenizer(work / "hf", vocab_size)
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-root", type=Path, default=Path("/work/models"), help="parent of the model folders")
    ap.add_argument("--shared", type=Path, default=None, help="shared/ (models/tiny-random-gpt2-past, models/stories260K)")
    ap.add_argument("--only", choices=MODELS, action="append", help="build only this model (repeatable)")
    ap.add_argument("--seed", type=int, default=0, help="torch.manual_seed before gpt2-small's random init")
    a = ap.parse_args(argv)
    shared = a.shared or default_shared()
    a.out_root.mkdir(parents=True, exist_ok=True)
    for name in MODELS:  # this order: gpt2-small first
        if a.only and name not in a.only:
            continue
        t0 = time.time()
        work = a.out_root / f".{name}.tmp-{os.getpid()}"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        try:
            summary = build_gpt2_small(work, shared, a.seed) if name == "gpt2-small" else build_stories(work, shared)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        for file in work.rglob("*"):  # save_pretrained writes safetensors 0600; other users (CI, node) must read them
            if file.is_file():
                file.chmod(0o644)
        target = a.out_root / name
        replace_folder(work, target)
        print(json.dumps({"model": name, **summary, "out": str(target), "seconds": round(time.time() - t0, 2)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
