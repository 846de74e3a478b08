#!/usr/bin/env python3
"""Records the token ids real lm-eval feeds a model for 0-shot gsm8k, and the text it generates from them, in one
release: the installed lm-eval 0.4.13, or v0.4.8 from its source (--lm-eval-source).

Why: at 0 shots the whole context reaches the model, so whether lm-eval puts BOS before it shows in the very first
generated word (at 5 shots stories260K's 512 positions cut every context to its last 256 tokens and the BOS with
it). The two releases differ there: v0.4.4–v0.4.8's HFLM.tok_batch_encode passes add_special_tokens=False for a
causal model (True for Gemma), v0.4.13's leaves it to the tokenizer (stories260K's adds <s>; GPT-2's adds nothing)
unless the first context already starts with the BOS text. mlrb-eval follows each under its --lm-eval-version;
test/e2e/gsm8k-lm-eval-generations.e2e.test.ts holds it to these recordings.

What it runs: lm-eval's unmodified `gsm8k` task, HF backend on CPU (fp32, batch size 1), 0-shot, through
simple_evaluate, its datasets.load_dataset served from the committed hub-layout fixture (serve_fixture of
record_gsm8k_generations.py); HFLM._model_generate is wrapped to keep the context ids it gets. Then, with the GPT-2
tokenizer of ../shared/models/tiny-random-gpt2-past (no transformers checkpoint to generate with), lm-eval's own
HFLM.tok_batch_encode on the same contexts, called on a stand-in holding that tokenizer, backend "causal" and
HFLM's default add_bos_token for the release (0.4.8: False, 0.4.13: None), its pad token set as HFLM sets it
(configure_pad_token), without truncation (the contexts are
far shorter than any window).

v0.4.8 on this Python: its module-level imports of `evaluate` and `sqlitedict` are stubbed (scripts/lm_eval/stubs;
neither is called by this run), and transformers 5 no longer has AutoModelForVision2Seq, which v0.4.8's
hf_vlms.py reads at import: the name is answered with AutoModelForImageTextToText (the multimodal model is unused).

Output (OUT, default test/fixtures/lm-eval/<release>/stories260K-gsm8k-0shot-ids.json): the release, the model's
max_length and max_gen_toks, per document the context, its ids as fed to generate() and the response (`resps`),
and per document the GPT-2 tokenizer's context ids.

Run from the repo root:
  git -C LM_EVAL_REPO archive v0.4.8 lm_eval pyproject.toml | tar -x -C /tmp/lm-eval-0.4.8
  PYTHONPATH=scripts/lm_eval/stubs /work/pyenv/bin/python scripts/lm_eval/record_gsm8k_context_ids.py --hf HF_DIR
  PYTHONPATH=/tmp/lm-eval-0.4.8:scripts/lm_eval/stubs /work/pyenv/bin/python \\
      scripts/lm_eval/record_gsm8k_context_ids.py --hf HF_DIR --lm-eval-source /tmp/lm-eval-0.4.8
  (HF_DIR: stories260K as a transformers checkpoint, scripts/gpu/export_llama.py --from-stories ... --save-hf)
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import tempfile
import types
from pathlib import Path

from lm_eval_releases import answer_removed_auto_class, release_of

REPO = Path(__file__).resolve().parents[2]
GPT2_TOKENIZER = REPO.parent / "shared" / "models" / "tiny-random-gpt2-past"


def record_context_ids(hflm_class) -> list[dict]:
    """Wraps HFLM._model_generate to keep each call's context ids and output ids; returns the list it fills."""
    calls: list[dict] = []
    generate = hflm_class._model_generate

    def recording(self, context, max_length, stop, **generation_kwargs):
        output = generate(self, context, max_length, stop, **generation_kwargs)
        if context.shape[0] != 1:
            raise SystemExit("record_gsm8k_context_ids expects batch size 1")
        calls.append({"context_ids": context[0].tolist(), "output_ids": output[0].tolist()})
        return output

    hflm_class._model_generate = recording
    return calls


def gpt2_context_ids(hflm_class, contexts: list[str]) -> list[list[int]]:
    """lm-eval's own tok_batch_encode with the GPT-2 tokenizer and the release's default add_bos_token."""
    from lm_eval.models.utils import configure_pad_token
    from transformers import AutoTokenizer

    # HFLM gives a tokenizer without a pad token one (GPT-2's: its EOS) before it pads a batch.
    tokenizer = configure_pad_token(AutoTokenizer.from_pretrained(str(GPT2_TOKENIZER)))
    default_add_bos = inspect.signature(hflm_class.__init__).parameters["add_bos_token"].default
    stand_in = types.SimpleNamespace(tokenizer=tokenizer, backend="causal", add_bos_token=default_add_bos)
    return [hflm_class.tok_batch_encode(stand_in, [context])[0][0].tolist() for context in contexts]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hf", type=Path, required=True, help="stories260K as an HF checkpoint")
    ap.add_argument("--lm-eval-source", type=Path, help="a folder holding lm-eval's lm_eval package and pyproject.toml (v0.4.8)")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="lmeval-datasets-"))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from record_gsm8k_generations import serve_fixture

    answer_removed_auto_class()
    import lm_eval
    from lm_eval.models.huggingface import HFLM

    release = release_of(lm_eval, a.lm_eval_source)
    serve_fixture()
    lm = HFLM(pretrained=str(a.hf), device="cpu", batch_size=1, dtype="float32")
    calls = record_context_ids(HFLM)
    out = lm_eval.simple_evaluate(model=lm, tasks=["gsm8k"], num_fewshot=0, log_samples=True, fewshot_random_seed=1234)
    documents: dict[int, dict] = {}
    for sample in out["samples"]["gsm8k"]:
        documents.setdefault(sample["doc_id"], {"doc_id": sample["doc_id"], "context": sample["arguments"][0][0],
                                                "resps": sample["resps"][0][0]})
    # HFLM generates longest context first; a call belongs to the document whose response starts its decoded text.
    for call in calls:
        text = lm.tok_decode(call["output_ids"][len(call["context_ids"]):])
        owners = [doc for doc in documents.values() if text.startswith(doc["resps"])]
        if len(owners) != 1:
            raise SystemExit(f"a generation matches {len(owners)} documents' responses: {text[:80]!r}")
        owners[0]["context_ids"] = call["context_ids"]
    ordered = [documents[key] for key in sorted(documents)]
    gpt2 = gpt2_context_ids(HFLM, [doc["context"] for doc in ordered])
    result = {"lm_eval_version": release, "model": "stories260K", "max_length": lm.max_length, "max_gen_toks": lm.max_gen_toks,
              "documents": [{**doc, "gpt2_context_ids": ids} for doc, ids in zip(ordered, gpt2, strict=True)]}
    target = a.out or REPO / "test" / "fixtures" / "lm-eval" / release / "stories260K-gsm8k-0shot-ids.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=1) + "\n")
    for doc in result["documents"]:
        print(release, doc["doc_id"], doc["context_ids"][:3], doc["gpt2_context_ids"][:3], repr(doc["resps"][:40]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
