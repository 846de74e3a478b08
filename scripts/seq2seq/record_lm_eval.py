#!/usr/bin/env python3
"""Records what real lm-eval 0.4.13 (its seq2seq HF backend) and transformers do with the tiny encoder-decoder
models of build_fixtures.py: the test expectations of mlrb-eval's encoder-decoder path.

One change to lm-eval, and why: HFLM.__init__ calls model.tie_weights() after loading. transformers 5.18's
T5Config forces tie_word_embeddings to true in memory (it keeps the file's false only as scale_decoder_outputs),
so that call makes an untied Flan-T5 score with its embedding as LM head: another model than the files describe.
from_pretrained has already decided (it ties t5's head, whose checkpoint has none, and keeps Flan-T5's own), so
this script skips only lm-eval's one call. `untied_head` in each expectations file records what the unmodified
call would have given, to show the difference.

For NAME in t5, flan-t5, from test/fixtures/seq2seq/NAME/hf (the weights of the ONNX exports beside it):
  1. `lm_eval run --model hf --model_args pretrained=…,dtype=float32,backend=seq2seq` on CPU over MMLU (57 subjects,
     zero-shot, --limit 2) and 5 BLiMP paradigms (--limit 10), the hub datasets served from ../shared/data
     (scripts/lm_eval/record_0413_expectations.py): every request's context and continuation ids, loglikelihood and
     is_greedy (NAME-requests.jsonl) and the results files (NAME-{mmlu,blimp}-results.json).
  2. HFLM.loglikelihood, loglikelihood_rolling and generate_until (batch size 1) on edge cases: empty contexts,
     trailing whitespace, the prefix token's text in the data, a context longer than n_positions (NAME-edges.json).
  3. transformers' greedy generate() for prompts of several lengths, batch 1 each, without an EOS id and with one
     that the first prompt's run produces part-way, the smallest top-1 / top-2 logit gap on the way, and the
     float32 logits of prompt 0's first decoder position, for the sampling tests, and num_parameters()
     (NAME-generate.json).

Run from the repo root: /work/pyenv/bin/python scripts/seq2seq/record_lm_eval.py
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / 'scripts' / 'lm_eval'))
sys.path.insert(0, str(REPO / 'scripts' / 'gpu'))
sys.path.insert(0, str(HERE))
from record_0413_expectations import RequestRecorder, run_lm_eval, serve_datasets_locally  # noqa: E402
from lm_eval_loglik import skip_tie_weights  # noqa: E402
from tiny_t5 import FIXTURES, MODEL_NAMES  # noqa: E402

MMLU_LIMIT = 2
BLIMP_PARADIGMS = ['adjunct_island', 'anaphor_gender_agreement', 'causative', 'determiner_noun_agreement_1', 'wh_questions_object_gap']
BLIMP_LIMIT = 10
LONG = ('The committee reviewed every proposal in turn, weighing the costs of each plan against the benefits it promised, '
        'and after a long debate that ran well into the evening it chose the simplest of them all.')
EDGE_REQUESTS = [
    ['The cat sat on the', ' mat'],
    ['The cat sat on the ', 'mat'],
    ['Question: What is two plus two?\nAnswer:', ' four'],
    ['', 'The cat sat on the mat.'],
    ['', '</s>The cat sat'],
    ['</s>The cat sat', ' on the mat'],
    [LONG, ' The end.'],
    ['A', ' long continuation of several words that goes on'],
]
ROLLING_TEXTS = ['The cat sat on the mat.', LONG + ' ' + LONG, '']
GENERATE_CONTEXTS = ['Question: What is two plus two?\nAnswer:', 'The cat', LONG]
GENERATE_KWARGS = [
    {'until': ['\n\n', 'Question:'], 'max_gen_toks': 12, 'do_sample': False},
    {'until': [], 'max_gen_toks': 6, 'do_sample': False},
]
GREEDY_PROMPTS = ['The cat sat on the mat.', 'Question: What is two plus two?\nAnswer:', 'A', LONG]
MAX_NEW = 16


def edge_cases(hflm_class, hf_dir: Path) -> dict:
    from lm_eval.api.instance import Instance

    lm = hflm_class(pretrained=str(hf_dir), backend='seq2seq', dtype='float32', device='cpu', batch_size=1)
    encoded = []
    original = lm._loglikelihood_tokens

    def capture(requests, disable_tqdm=False, override_bs=None):
        encoded.extend((list(context), list(continuation)) for _, context, continuation in requests)
        return original(requests, disable_tqdm=disable_tqdm, override_bs=override_bs)

    lm._loglikelihood_tokens = capture
    instances = [Instance(request_type='loglikelihood', doc={}, arguments=tuple(pair), idx=0) for pair in EDGE_REQUESTS]
    scored = lm.loglikelihood(instances, disable_tqdm=True)
    lm._loglikelihood_tokens = original
    loglikelihood = [{'context': c, 'continuation': x, 'context_ids': ids[0], 'continuation_ids': ids[1], 'loglik': float(ll), 'is_greedy': bool(g)}
                     for (c, x), ids, (ll, g) in zip(EDGE_REQUESTS, encoded, scored, strict=True)]
    rolling = lm.loglikelihood_rolling([Instance(request_type='loglikelihood_rolling', doc={}, arguments=(text,), idx=0) for text in ROLLING_TEXTS],
                                       disable_tqdm=True)
    generations = []
    for kwargs in GENERATE_KWARGS:
        out = lm.generate_until([Instance(request_type='generate_until', doc={}, arguments=(context, dict(kwargs)), idx=0)
                                 for context in GENERATE_CONTEXTS], disable_tqdm=True)
        generations.append({'kwargs': kwargs, 'contexts': GENERATE_CONTEXTS, 'responses': out})
    return {
        'prefix_token_id': lm.prefix_token_id,
        'max_length': lm.max_length,
        'loglikelihood': loglikelihood,
        'rolling': [{'text': text, 'loglik': float(value)} for text, value in zip(ROLLING_TEXTS, rolling, strict=True)],
        'generate_until': generations,
    }


def untied_head(hflm_class, hf_dir: Path) -> dict:
    """The first edge request's loglikelihood with lm-eval's tie_weights() left in, against the files' model."""
    from lm_eval.api.instance import Instance

    lm = hflm_class(pretrained=str(hf_dir), backend='seq2seq', dtype='float32', device='cpu', batch_size=1)
    lm.model.__dict__.pop('tie_weights', None)
    lm.model.tie_weights()
    instance = Instance(request_type='loglikelihood', doc={}, arguments=tuple(EDGE_REQUESTS[0]), idx=0)
    return {'request': EDGE_REQUESTS[0], 'loglik_with_tie_weights': float(lm.loglikelihood([instance], disable_tqdm=True)[0][0])}


def greedy_runs(hf_dir: Path) -> dict:
    import torch
    from transformers import AutoTokenizer, T5ForConditionalGeneration

    tokenizer = AutoTokenizer.from_pretrained(hf_dir)
    model = T5ForConditionalGeneration.from_pretrained(hf_dir).eval()
    prompts = [tokenizer(text).input_ids for text in GREEDY_PROMPTS]

    def run(prompt: list[int], eos: int | None) -> tuple[list[int], float]:
        with torch.no_grad():
            out = model.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.int64), do_sample=False,
                                 max_new_tokens=MAX_NEW, eos_token_id=eos, output_scores=True, return_dict_in_generate=True)
        gaps = [float(s[0].topk(2).values[0] - s[0].topk(2).values[1]) for s in out.scores]
        return out.sequences[0, 1:].tolist(), min(gaps)  # position 0 is decoder_start_token_id

    plain = [run(prompt, None) for prompt in prompts]
    # The random models rarely produce </s>; an EOS id that the first prompt's run produces part-way (not earlier in
    # it) makes that prompt provably stop early, and others wherever they produce it.
    first = plain[0][0]
    eos = next(token for k, token in enumerate(first) if k >= 3 and token not in first[:k])
    with_eos = [run(prompt, eos)[0] for prompt in prompts]
    with torch.no_grad():
        first_logits = model(input_ids=torch.tensor([prompts[0]]), decoder_input_ids=torch.tensor([[model.config.decoder_start_token_id]])).logits[0, 0]
    return {'maxNewTokens': MAX_NEW, 'prompts': prompts, 'greedy': [ids for ids, _ in plain], 'minTopGap': min(gap for _, gap in plain),
            'eosTokenId': eos, 'eosGreedy': with_eos, 'firstLogits': [float(x) for x in first_logits], 'numParameters': model.num_parameters()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--shared', type=Path, default=REPO.parent / 'shared', help='the shared/ folder (data/)')
    a = ap.parse_args(argv)
    from lm_eval_0413 import import_lm_eval_0413

    import_lm_eval_0413()
    from lm_eval.models.huggingface import HFLM

    serve_datasets_locally(a.shared / 'data')
    skip_tie_weights(HFLM)
    out = FIXTURES / 'expectations'
    out.mkdir(parents=True, exist_ok=True)
    for name in MODEL_NAMES:
        hf_dir = FIXTURES / name / 'hf'
        # The recorder wraps HFLM's methods for the CLI runs only; the direct calls below use them unwrapped.
        unwrapped = HFLM.loglikelihood, HFLM._loglikelihood_tokens
        recorder = RequestRecorder(HFLM)
        with tempfile.TemporaryDirectory() as scratch:
            results = {
                'mmlu': run_lm_eval(hf_dir, Path(scratch) / 'mmlu', ['mmlu'], MMLU_LIMIT, ',backend=seq2seq'),
                'blimp': run_lm_eval(hf_dir, Path(scratch) / 'blimp', [f'blimp_{p}' for p in BLIMP_PARADIGMS], BLIMP_LIMIT, ',backend=seq2seq'),
            }
            for suite, file in results.items():
                text = file.read_text(encoding='utf-8').replace(str(hf_dir), f'seq2seq/{name}/hf')
                (out / f'{name}-{suite}-results.json').write_text(text, encoding='utf-8')
        with open(out / f'{name}-requests.jsonl', 'w', encoding='utf-8') as handle:
            for row in recorder.rows:
                handle.write(json.dumps(row) + '\n')
        HFLM.loglikelihood, HFLM._loglikelihood_tokens = unwrapped
        edges = edge_cases(HFLM, hf_dir)
        edges['untied_head'] = untied_head(HFLM, hf_dir)
        (out / f'{name}-edges.json').write_text(json.dumps(edges, indent=1) + '\n', encoding='utf-8')
        (out / f'{name}-generate.json').write_text(json.dumps(greedy_runs(hf_dir), indent=1) + '\n', encoding='utf-8')
        print(f'{name}: {len(recorder.rows)} requests, edge cases and generations written to {out}', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
