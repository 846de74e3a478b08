"""A GPT-2-small-sized ONNX export (124M parameters, weights inline) to measure load and scoring memory with.

Random weights (seeded): memory depends on the graph and the weight bytes, not on their values.
    /work/pyenv/bin/python scripts/memory/export-gpt2-small.py OUT_DIR [TOKENIZER_JSON]
writes OUT_DIR/model.onnx (TorchScript exporter, opset 14, inputs input_ids + attention_mask, output logits),
OUT_DIR/config.json and, when given, a copy of the tokenizer.
"""
import shutil
import sys
from pathlib import Path

import torch
from transformers import GPT2Config, GPT2LMHeadModel


class LogitsOnly(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    config = GPT2Config(n_embd=768, n_layer=12, n_head=12, vocab_size=50257, n_positions=1024)
    model = GPT2LMHeadModel(config).eval()
    ids = torch.ones(1, 8, dtype=torch.int64)
    torch.onnx.export(
        LogitsOnly(model), (ids, torch.ones_like(ids)), str(out / "model.onnx"),
        input_names=["input_ids", "attention_mask"], output_names=["logits"],
        dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}},
        opset_version=14, dynamo=False,
    )
    config.save_pretrained(out)
    if len(sys.argv) > 2:
        shutil.copy(sys.argv[2], out / "tokenizer.json")


if __name__ == "__main__":
    main()
