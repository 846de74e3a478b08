"""Tiny weights files in the formats people hand over instead of ONNX, written by their own libraries, for the
test that mlrb-eval names the format and the export command (test/model/checkpoint-hints.test.ts).

  torch.save (zip, torch >= 1.6) -> test/fixtures/checkpoints/pytorch_model.bin
  torch.save (legacy pickle)     -> test/fixtures/checkpoints/legacy.pt
  gguf's GGUFWriter              -> test/fixtures/checkpoints/model.gguf

Safetensors files written by transformers are already among the fixtures (test/fixtures/model-metrics/tiny-llama).
Run: PIP_INDEX_URL=file:///opt/pypi/simple /work/pyenv/bin/pip install --no-deps --target /tmp/gguf gguf
     PYTHONPATH=/tmp/gguf /work/pyenv/bin/python scripts/model/build_checkpoint_fixtures.py
"""

import pathlib

import numpy as np
import torch
import gguf

out = pathlib.Path(__file__).resolve().parents[2] / "test" / "fixtures" / "checkpoints"
out.mkdir(parents=True, exist_ok=True)
weights = {"lm_head.weight": torch.arange(6, dtype=torch.float32).reshape(2, 3)}
torch.save(weights, out / "pytorch_model.bin")
torch.save(weights, out / "legacy.pt", _use_new_zipfile_serialization=False)

writer = gguf.GGUFWriter(str(out / "model.gguf"), "llama")
writer.add_tensor("output.weight", np.arange(6, dtype=np.float32).reshape(2, 3))
writer.write_header_to_file()
writer.write_kv_data_to_file()
writer.write_tensors_to_file()
writer.close()
for path in sorted(out.iterdir()):
    print(path.name, path.stat().st_size, path.read_bytes()[:8].hex())
