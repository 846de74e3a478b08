#!/usr/bin/env python3
"""Builds the encoder-decoder test fixtures: the tiny T5 and Flan-T5 models of tiny_t5.py as transformers
checkpoints and as ONNX exports in optimum's three layouts (export_onnx.py), and checks every export against the
transformers model it came from before writing anything the tests read.

Writes, for NAME in t5, flan-t5 (test/fixtures/seq2seq/NAME/):
  hf/       config.json, model.safetensors, generation_config.json, tokenizer.json, tokenizer_config.json
            (what real lm-eval and transformers load: scripts/seq2seq/record_lm_eval.py)
  nopast/   encoder_model.onnx, decoder_model.onnx
  past/     encoder_model.onnx, decoder_model.onnx (with presents), decoder_with_past_model.onnx
  merged/   encoder_model.onnx, decoder_model_merged.onnx
  each export folder also holds config.json, tokenizer.json and tokenizer_config.json, as optimum writes them.

The checks (float32, ONNX Runtime on the CPU against torch): encoder states of padded batches; decoder logits
for whole sequences; and greedy decoding step by step through the with-past decoder (and the merged one, both
branches) against the no-past decoder's logits over the whole prefix. Tolerance 1e-4.

Run: /work/pyenv/bin/python scripts/seq2seq/build_fixtures.py
"""
from __future__ import annotations

import shutil
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from export_onnx import export_decoder, export_decoder_with_past, export_encoder, merge_decoders, past_names  # noqa: E402
from tiny_t5 import FIXTURES, MODEL_NAMES, build_model, save_checkpoint, train_tokenizer  # noqa: E402

warnings.filterwarnings('ignore')
TOLERANCE = 1e-4
SIDE_FILES = ('config.json', 'tokenizer.json', 'tokenizer_config.json')


def session(path: Path) -> ort.InferenceSession:
    return ort.InferenceSession(str(path), providers=['CPUExecutionProvider'])


def close(what: str, ours: np.ndarray, reference: torch.Tensor) -> None:
    difference = float(np.abs(ours - reference.numpy()).max())
    if difference > TOLERANCE:
        raise SystemExit(f'{what}: the export differs from transformers by {difference}')


def check_exports(model, folder: Path) -> None:
    torch.manual_seed(0)
    ids = torch.randint(3, 400, (3, 11))
    mask = torch.ones_like(ids)
    mask[1, 8:] = 0
    mask[2, 3:] = 0
    decoder_ids = torch.randint(3, 400, (3, 6))
    decoder_ids[:, 0] = 0
    with torch.no_grad():
        states = model.get_encoder()(input_ids=ids, attention_mask=mask).last_hidden_state
        logits = model(input_ids=ids, attention_mask=mask, decoder_input_ids=decoder_ids).logits
    feeds = {'input_ids': ids.numpy(), 'attention_mask': mask.numpy()}
    for layout in ('nopast', 'past', 'merged'):
        encoder = session(folder / layout / 'encoder_model.onnx')
        close(f'{layout} encoder', encoder.run(None, feeds)[0], states)
    decoder_feeds = {'encoder_attention_mask': mask.numpy(), 'input_ids': decoder_ids.numpy(), 'encoder_hidden_states': states.numpy()}
    close('nopast decoder', session(folder / 'nopast' / 'decoder_model.onnx').run(['logits'], decoder_feeds)[0], logits)
    with_presents = session(folder / 'past' / 'decoder_model.onnx')
    with_past = session(folder / 'past' / 'decoder_with_past_model.onnx')
    merged = session(folder / 'merged' / 'decoder_model_merged.onnx')
    layers, heads, head_dim = model.config.num_decoder_layers, model.config.num_heads, model.config.d_kv
    presents = past_names(layers, 'present')
    empty_past = {name: np.zeros((3, heads, 0, head_dim), dtype=np.float32) for name in past_names(layers, 'past_key_values')}
    named = lambda sess, feeds: dict(zip([output.name for output in sess.get_outputs()], sess.run(None, feeds)))  # noqa: E731
    for name, run_first, run_next in (
        ('past', lambda feeds: named(with_presents, feeds), lambda feeds: named(with_past, feeds)),
        ('merged', lambda feeds: named(merged, {**feeds, **empty_past, 'use_cache_branch': np.array([False])}),
         lambda feeds: named(merged, {**feeds, 'encoder_hidden_states': states.numpy(), 'use_cache_branch': np.array([True])})),
    ):
        first = run_first({**decoder_feeds, 'input_ids': decoder_ids[:, :1].numpy()})
        close(f'{name} first decoder step', first['logits'], logits[:, :1])
        kv = {key: first[key] for key in presents}
        for step in range(1, decoder_ids.shape[1]):
            feeds = {'encoder_attention_mask': mask.numpy(), 'input_ids': decoder_ids[:, step:step + 1].numpy(),
                     **{'past_key_values' + key[len('present'):]: value for key, value in kv.items()}}
            out = run_next(feeds)
            close(f'{name} decoder step {step}', out['logits'], logits[:, step:step + 1])
            # The cross-attention KV of the first step stays; the self-attention KV grows by one position.
            kv.update({key: out[key] for key in presents if '.decoder.' in key})


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        tokenizer = train_tokenizer(Path(scratch) / 'spm')
        for name in MODEL_NAMES:
            folder = FIXTURES / name
            shutil.rmtree(folder, ignore_errors=True)
            save_checkpoint(name, tokenizer, folder / 'hf')
            model = build_model(name)
            for layout in ('nopast', 'past', 'merged'):
                (folder / layout).mkdir(parents=True)
                for side in SIDE_FILES:
                    shutil.copyfile(folder / 'hf' / side, folder / layout / side)
                export_encoder(model, folder / layout / 'encoder_model.onnx')
            export_decoder(model, folder / 'nopast' / 'decoder_model.onnx', with_presents=False)
            export_decoder(model, folder / 'past' / 'decoder_model.onnx', with_presents=True)
            export_decoder_with_past(model, folder / 'past' / 'decoder_with_past_model.onnx')
            merge_decoders(folder / 'past' / 'decoder_model.onnx', folder / 'past' / 'decoder_with_past_model.onnx',
                           folder / 'merged' / 'decoder_model_merged.onnx')
            check_exports(model, folder)
            print(f'{name}: exports agree with transformers within {TOLERANCE}', file=sys.stderr)


if __name__ == '__main__':
    main()
