"""Builds the check-track eligibility fixtures (test/fixtures/edge/track/): a small Phi as the compression base, and the
same model handed in unchanged, once in FP16 (meets every rule: nothing needs to be removed to fit 12 GB) and once in
bfloat16 (breaks "The model must be submitted in FP16 or FP32 format").

  base.onnx            PhiForCausalLM (transformers, seeded; vocab 256, hidden 32, 4 heads, 2 layers, partial rotary
                       0.5), float32, exported with TorchScript at opset 17: the base's weights, for lineage.
  phi-fp16/            the same model in float16, with config.json and a byte-level tokenizer.json (one token per byte).
  phi-bf16/            the same model in bfloat16.

The manifest records what each is and, for phi-fp16, the peak RSS delta of plain onnxruntime on 2,000 tokens of the
package's text (as build_dram_fixtures.py measures), and for phi-bf16 whether plain onnxruntime can load it.

Run: /work/pyenv/bin/python scripts/edge/build_track_fixtures.py   (writes test/fixtures/edge/track/)
"""
from __future__ import annotations

import copy
import gzip
import json
import subprocess
import sys
import warnings
from pathlib import Path

import onnx
import torch
from transformers import PhiConfig, PhiForCausalLM

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_dram_fixtures import MEASURE, KIT_TOKENS, byte_tokenizer, export_with_mask, text_ids  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / 'test' / 'fixtures' / 'edge' / 'track'
VOCAB = 256
warnings.filterwarnings('ignore')


def export(model: PhiForCausalLM, path: Path) -> None:
    export_with_mask(model, path, opset=17)


def loads_in_plain_ort(path: Path) -> str:
    """'yes', or onnxruntime's first line of refusal."""
    probe = 'import onnxruntime, sys; onnxruntime.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])'
    result = subprocess.run([sys.executable, '-c', probe, str(path)], capture_output=True, text=True)
    return 'yes' if result.returncode == 0 else result.stderr.strip().splitlines()[-1][:300]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(31)
    config = PhiConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                       max_position_embeddings=2048, partial_rotary_factor=0.5, tie_word_embeddings=False,
                       bos_token_id=None, eos_token_id=None)
    config._attn_implementation = 'eager'
    model = PhiForCausalLM(config).eval()
    with torch.no_grad():  # random init leaves norms at 1 and 0: perturbed, every weight carries information
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.02)
    export(model, OUT / 'base.onnx')
    facts = {'base': {'file': 'base.onnx.gz', 'dtype': 'float32', 'params': model.num_parameters()}}
    for name, dtype in (('phi-fp16', torch.float16), ('phi-bf16', torch.bfloat16)):
        folder = OUT / name
        folder.mkdir(exist_ok=True)
        export(copy.deepcopy(model).to(dtype), folder / 'model.onnx')
        config.save_pretrained(str(folder))
        byte_tokenizer(folder / 'tokenizer.json')
        entry = {'file': f'{name}/model.onnx.gz', 'dtype': str(dtype).removeprefix('torch.'), 'loadsInPlainOrt': loads_in_plain_ort(folder / 'model.onnx')}
        if entry['loadsInPlainOrt'] == 'yes':
            ids = text_ids(folder / 'tokenizer.json', KIT_TOKENS)
            result = subprocess.run([sys.executable, '-c', MEASURE, json.dumps({'model': str(folder / 'model.onnx'), 'ids': ids})],
                                    capture_output=True, text=True, check=True)
            entry['plainOrtPeakDeltaBytes'] = {'text2000': json.loads(result.stdout)['peakDeltaBytes']}
        facts[name] = entry
    for path in [OUT / 'base.onnx', *OUT.glob('*/model.onnx')]:
        with open(path, 'rb') as source, gzip.GzipFile(str(path) + '.gz', 'wb', compresslevel=9, mtime=0) as target:
            target.write(source.read())
        path.unlink()
    manifest = {'generator': 'scripts/edge/build_track_fixtures.py', 'torch': torch.__version__, 'onnx': onnx.__version__, 'fixtures': facts}
    (OUT / 'manifest.json').write_text(json.dumps(manifest, indent=1) + '\n')
    print(json.dumps(facts, indent=1), file=sys.stderr)


if __name__ == '__main__':
    main()
