"""Records transformers' `generate(stop_strings=…, tokenizer=…)` ids on the generation fixtures' models.

The engine ends a generation at the token whose text completes a stop string (src/generate/generated-text.ts),
as transformers' StopStringCriteria does. This script rebuilds the seeded GPT-2 and Llama of
record_greedy_expectations.py (checking that their greedy ids are still the recorded ones, so the ONNX exports
in test/fixtures/generate are these models), picks stop strings from the middle of some prompts' greedy text
(printable ASCII: StopStringCriteria matches on token strings, where a lone byte-fallback token has no text of
its own), and records, per prompt (batch 1, greedy, no EOS), the ids that generate() returns with them.

Run: /work/pyenv/bin/python scripts/generate/record_stop_string_expectations.py
     (writes test/fixtures/generate/stop-string-expectations.json)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from transformers import PreTrainedTokenizerFast

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_greedy_expectations import MAX_NEW, OUT, build, greedy  # noqa: E402

# (prompt index, stop length) per stop string: taken from those prompts' greedy text, so they stop part-way.
STOP_SOURCES = [(1, 3), (3, 2), (5, 4)]


def printable_middle(text: str, length: int) -> str:
    """The first printable-ASCII run of `length` characters at or after the middle of `text`."""
    for start in list(range(len(text) // 2, len(text) - length + 1)) + list(range(0, len(text) // 2)):
        piece = text[start:start + length]
        if all(' ' <= c <= '~' for c in piece) and piece.strip() == piece:
            return piece
    raise ValueError(f'no printable run of {length} in {text!r}')


def generate_with_stops(model: torch.nn.Module, tokenizer: PreTrainedTokenizerFast, prompt: list[int], stops: list[str]) -> list[int]:
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    with torch.no_grad():
        out = model.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.int64), do_sample=False,
                             max_new_tokens=MAX_NEW, stop_strings=stops, tokenizer=tokenizer)
    return out[0, len(prompt):].tolist()


def main() -> None:
    expectations = json.loads((OUT / 'expectations.json').read_text())
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(OUT / 'tokenizer.json'))
    recorded: dict = {'maxNewTokens': MAX_NEW, 'prompts': expectations['prompts'], 'models': {}}
    for arch in ('gpt2', 'llama'):
        model = build(arch)
        runs = [greedy(model, prompt, None)[0] for prompt in expectations['prompts']]
        if runs != expectations['models'][arch]['greedy']:
            raise SystemExit(f'{arch}: the rebuilt model no longer gives the recorded greedy ids; rerun record_greedy_expectations.py')
        texts = [tokenizer.decode(ids, skip_special_tokens=True) for ids in runs]
        stops = [printable_middle(texts[index], length) for index, length in STOP_SOURCES]
        ids = [generate_with_stops(model, tokenizer, prompt, stops) for prompt in expectations['prompts']]
        recorded['models'][arch] = {'stopStrings': stops, 'ids': ids}
        print(arch, stops, [len(run) for run in ids], file=sys.stderr)
    (OUT / 'stop-string-expectations.json').write_text(json.dumps(recorded, indent=1) + '\n')


if __name__ == '__main__':
    main()
