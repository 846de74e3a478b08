#!/usr/bin/env python3
"""Score loglikelihood requests with lm-eval's own HF backend (HFLM) and time it.

Why: issue 17 compares mlrb-eval (ONNX Runtime, CPU/CUDA) with the reference implementation both on
numbers and on speed. This runs exactly lm-eval's code path for `loglikelihood` requests (its
tokenization, batching, right padding, `auto` batch size, log-softmax and greedy check) on the HF
checkpoint that export_llama.py --save-hf wrote from the same weights as the ONNX graph.

Input: JSONL, one request per line: {"context": str, "continuation": str}
       (lm-eval puts the word-boundary space in the continuation: context "Q: ...", continuation " A").
Output: --out-json  {seconds_load, seconds_loglikelihood, requests, batch_size, ..., gpu_name, peak_rss_mib}
        --out-jsonl one [loglikelihood, is_greedy] per request, in input order.

lm_eval 0.4.13 is installed --no-deps (see WHEELS.txt / fetch_wheels.sh); modules it imports that the
GPU box lacks are served by tiny stubs in ./stubs, added to sys.path only when the real package is
missing, so a full lm-eval install is used as is.

Example:
  python3 lm_eval_loglik.py --model /tmp/l1b16/hf --requests req.jsonl --device cuda --dtype float16 \
      --batch-size auto --out-json hf_timing.json --out-jsonl hf_ll.jsonl
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
STUBS = HERE / "stubs"


def add_stubs() -> list[str]:
    """Put ./stubs at the END of sys.path for each stubbed module that is really missing. Appending
    (not prepending) means an installed real package always wins; we only add the folder when at
    least one module needs it, and report which ones did."""
    stubbed = sorted(p.stem for p in STUBS.glob("*.py")) + sorted(
        p.name for p in STUBS.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    missing = [m for m in stubbed if importlib.util.find_spec(m) is None]
    if missing:
        sys.path.append(str(STUBS))
    return missing


def peak_rss_mib() -> float:
    """High-water mark of this process's resident memory so far. On Linux VmHWM: ru_maxrss keeps the peak
    of the image this process was exec'd from, so a run started by a large parent reports the parent's."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # KiB on Linux


def skip_tie_weights(hflm_class) -> None:
    """HFLM.__init__ calls model.tie_weights() after loading. transformers 5's T5Config forces
    tie_word_embeddings true in memory, so that call makes an untied Flan-T5 score with its embedding as the
    LM head: another model than its files. from_pretrained has already tied what the checkpoint ties; this
    makes only lm-eval's one call a no-op (docs/encoder-decoder.md)."""
    original = hflm_class._create_model

    def create_model(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self._model.tie_weights = lambda *_args, **_kwargs: None

    hflm_class._create_model = create_model


def parse_kv(items: list[str]) -> dict:
    """--hflm-arg key=value -> HFLM kwargs; values are parsed as JSON when they look like JSON
    (true/false/numbers), else kept as strings."""
    out = {}
    for it in items:
        k, _, v = it.partition("=")
        try:
            out[k] = json.loads(v)
        except json.JSONDecodeError:
            out[k] = v
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="HF checkpoint folder (export_llama.py --save-hf writes OUT/hf)")
    ap.add_argument("--requests", required=True, type=Path, help="JSONL of {context, continuation}")
    ap.add_argument("--device", default="cuda", help="cuda | cpu | cuda:N (HFLM device)")
    ap.add_argument("--dtype", default="auto", help="auto | float32 | float16 | bfloat16 (HFLM dtype)")
    ap.add_argument("--batch-size", default="auto", help="int, 'auto' or 'auto:N' (HFLM batch_size)")
    ap.add_argument("--max-batch-size", type=int, default=64, help="cap for batch_size=auto (HFLM default 64)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N requests")
    ap.add_argument("--threads", type=int, default=None,
                    help="torch intra-op threads (torch.set_num_threads), e.g. 2 to run as MLRB ran lm-eval on CPU")
    ap.add_argument("--repeat", type=int, default=1,
                    help="call loglikelihood this many times; every call's seconds are reported "
                         "(the first includes CUDA warm-up and auto batch-size search)")
    ap.add_argument("--hflm-arg", action="append", default=[], metavar="KEY=VALUE",
                    help="extra HFLM kwarg, e.g. add_bos_token=true or max_length=2048 (repeatable)")
    ap.add_argument("--skip-tie-weights", action="store_true",
                    help="skip HFLM's model.tie_weights() call, which ties an untied T5 head under transformers 5")
    ap.add_argument("--out-json", type=Path, required=True)
    ap.add_argument("--out-jsonl", type=Path, required=True)
    a = ap.parse_args(argv)

    stubbed = add_stubs()
    import torch
    if a.threads is not None:
        torch.set_num_threads(a.threads)
    try:
        import lm_eval
        from lm_eval.api.instance import Instance
        from lm_eval.models.huggingface import HFLM
    except ImportError as e:
        raise SystemExit(f"cannot import lm_eval ({e}); install the carried wheel: python3 -m pip install "
                         "--no-deps --no-index --target /tmp/lmeval lm_eval-0.4.13-py3-none-any.whl and "
                         "export PYTHONPATH=/tmp/lmeval") from e

    reqs = []
    with open(a.requests, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                r = json.loads(line)
                if not isinstance(r.get("context"), str) or not isinstance(r.get("continuation"), str):
                    raise SystemExit(f"{a.requests}:{n}: need string fields context and continuation")
                reqs.append((r["context"], r["continuation"]))
    if a.limit is not None:
        reqs = reqs[: a.limit]
    bs = a.batch_size if a.batch_size.startswith("auto") else int(a.batch_size)

    def sync():
        if torch.cuda.is_available() and str(a.device).startswith("cuda"):
            torch.cuda.synchronize()

    if a.skip_tie_weights:
        skip_tie_weights(HFLM)
    t0 = time.perf_counter()
    lm = HFLM(pretrained=a.model, device=a.device, dtype=a.dtype, batch_size=bs,
              max_batch_size=a.max_batch_size, **parse_kv(a.hflm_arg))
    sync()
    seconds_load = time.perf_counter() - t0

    # idx/doc are bookkeeping for lm-eval's task layer; the model only reads .args.
    instances = [Instance(request_type="loglikelihood", doc={}, arguments=(c, x), idx=0) for c, x in reqs]
    times, results = [], None
    for _ in range(max(1, a.repeat)):
        t1 = time.perf_counter()
        res = lm.loglikelihood(instances)
        sync()
        times.append(time.perf_counter() - t1)
        results = results or res

    a.out_jsonl.parent.mkdir(parents=True, exist_ok=True)
    with open(a.out_jsonl, "w", encoding="utf-8") as f:
        for ll, greedy in results:
            f.write(json.dumps([float(ll), bool(greedy)]) + "\n")
    cuda = torch.cuda.is_available() and str(a.device).startswith("cuda")
    summary = {
        "seconds_load": round(seconds_load, 3),
        "seconds_loglikelihood": round(times[0], 3),
        "seconds_loglikelihood_all": [round(t, 3) for t in times],
        "requests": len(reqs),
        "batch_size": a.batch_size,
        # what `auto` settled on (HFLM records detected sizes per schedule; empty for a fixed size)
        "batch_sizes_detected": {str(k): v for k, v in getattr(lm, "batch_sizes", {}).items()},
        "device": str(lm.device) if hasattr(lm, "device") else a.device,
        "dtype": str(next(lm.model.parameters()).dtype).replace("torch.", ""),
        "max_length": lm.max_length,
        "model": a.model,
        "torch_version": torch.__version__,
        "transformers_version": __import__("transformers").__version__,
        "lm_eval_version": getattr(lm_eval, "__version__", "?"),
        "gpu_name": torch.cuda.get_device_name(0) if cuda else None,
        "peak_gpu_mem_gib": round(torch.cuda.max_memory_allocated() / 1024**3, 3) if cuda else None,
        "stubbed_modules": stubbed,
        "cpu_threads": torch.get_num_threads(),
        "peak_rss_mib": peak_rss_mib(),
    }
    a.out_json.parent.mkdir(parents=True, exist_ok=True)
    a.out_json.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary))


if __name__ == "__main__":
    sys.exit(main())
