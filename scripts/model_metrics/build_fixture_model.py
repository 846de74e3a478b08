#!/usr/bin/env python3
"""Build the model-metrics fixture model: a very small Llama with the stories260K tokenizer (512 ids), committed
in two formats from ONE set of weights, so the perplexity test needs neither ../shared nor Python:

  test/fixtures/model-metrics/tiny-llama/model.onnx + config.json + tokenizer files   what mlrb-eval loads
  test/fixtures/model-metrics/tiny-llama/hf/  (save_pretrained safetensors + tokenizer) what transformers loads
                                                (record_perplexity_expectations.py's reference)

Shape: 2 layers, width 32, 4 heads (2 KV heads, head dim 8), MLP 64, 512 positions, tied embeddings (~30K
parameters, a few hundred KB). Seeded random init would predict nearly uniformly, and a perplexity near the
vocabulary size hardly moves when a window is scored at the wrong positions; so the model is first trained for
a few hundred Adam steps on the fixture text, which makes its predictions sharp and position-dependent.

The exporter is scripts/gpu/export_llama.py's (called, not re-implemented): input_ids + attention_mask in,
logits out, opset 17, eager attention.

  /work/pyenv/bin/python scripts/model_metrics/build_fixture_model.py [--tokenizer-dir DIR] [--seed 0]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "gpu"))
import export_llama  # noqa: E402

OUT = REPO / "test" / "fixtures" / "model-metrics" / "tiny-llama"
TEXT = REPO / "test" / "fixtures" / "model-metrics" / "wikitext-2-raw" / "wiki.test.raw"
TOKENIZER_CANDIDATES = [REPO / "shared" / "models" / "stories260K", REPO.parent / "shared" / "models" / "stories260K",
                        Path("/work/shared/models/stories260K")]


def tiny_config():
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=512, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                       num_key_value_heads=2, head_dim=8, max_position_embeddings=512, rms_norm_eps=1e-5,
                       rope_theta=10000.0, tie_word_embeddings=True, bos_token_id=1, eos_token_id=2, use_cache=False)


def train(model, tokenizer_dir: Path, steps: int, seed: int) -> float:
    """Next-token training on random 128-token slices of the fixture text; returns the last loss."""
    from transformers import AutoTokenizer

    ids = AutoTokenizer.from_pretrained(tokenizer_dir)(TEXT.read_text(encoding="utf-8")).input_ids
    data = torch.tensor(ids, dtype=torch.long)
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    loss = torch.tensor(float("nan"))
    for _ in range(steps):
        starts = torch.randint(0, len(data) - 129, (8,), generator=generator)
        batch = torch.stack([data[s: s + 129] for s in starts])
        loss = model(batch, labels=batch).loss  # transformers shifts the labels itself
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    return float(loss)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokenizer-dir", type=Path, default=None, help="stories260K's folder (tokenizer.json, tokenizer_config.json)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=400)
    a = ap.parse_args(argv)
    tokenizer_dir = a.tokenizer_dir or next((c for c in TOKENIZER_CANDIDATES if (c / "tokenizer.json").is_file()), None)
    if tokenizer_dir is None:
        raise SystemExit("no stories260K tokenizer found; pass --tokenizer-dir")
    torch.manual_seed(a.seed)
    model = export_llama.build_model(tiny_config(), torch.float32, "cpu", "eager")
    last_loss = train(model, tokenizer_dir, a.steps, a.seed)
    OUT.mkdir(parents=True, exist_ok=True)
    files = export_llama.export_onnx(model, OUT, "cpu", 17, external_mb=1536)
    model.config.save_pretrained(OUT)
    files += export_llama.copy_tokenizer(tokenizer_dir, OUT)
    model.save_pretrained(OUT / "hf", safe_serialization=True)
    export_llama.copy_tokenizer(tokenizer_dir, OUT / "hf")
    for file in OUT.rglob("*"):
        if file.is_file():
            file.chmod(0o644)
    summary = {"params": sum(p.numel() for p in model.parameters()), "last_train_loss": round(last_loss, 4), "files": files,
               "verify": export_llama.verify(model, OUT, None, "cpu")}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
