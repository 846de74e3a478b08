#!/usr/bin/env python3
"""Build a transformers LlamaForCausalLM and export it to ONNX the way optimum does (with or without KV cache).

Why this exists: issue 17 needs ONNX causal LMs whose exact logits we know, in fp32/fp16/bf16, at
two sizes: the real stories260K weights (tiny, checked against the hand-built model.onnx in shared/)
and a ~1.06B-parameter random Llama (big enough to make GPU timings mean something). The same
weights can be saved as a Hugging Face checkpoint (--save-hf) so lm-eval's HF backend scores exactly
the model the ONNX graph computes.

Graph contract (what mlrb-eval expects, and what optimum's `text-generation` export gives):
  inputs  input_ids int64 [batch, sequence], attention_mask int64 [batch, sequence]
  output  logits [batch, sequence, vocab] in the export dtype
With --with-past (optimum's `text-generation-with-past` convention, lets mlrb-eval run a shared
few-shot prefix once and reuse its KV):
  inputs  input_ids int64 [batch, sequence], attention_mask int64 [batch, past + sequence],
          past_key_values.{i}.key / .value [batch, kv_heads, past, head_dim] (model dtype), per layer
  outputs logits [batch, sequence, vocab], present.{i}.key / .value [batch, kv_heads, past + sequence, head_dim]
  No position_ids input: the model numbers the new tokens past .. past+sequence-1 (cache length), which
  is right for right-padded rows continuing a shared prefix. past = 0 (empty past tensors) is valid.
Exporter: torch.onnx.export TorchScript path (dynamo=False), opset 17, constant folding on.

Examples:
  python3 export_llama.py --from-stories /work/shared/models/stories260K --out /tmp/st32 --verify
  python3 export_llama.py --from-stories /work/shared/models/stories260K --out /tmp/st32p --with-past --verify
  python3 export_llama.py --random-config llama-1b --dtype float16 --device cuda --out /tmp/l1b16 --save-hf
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import sys
import time
from pathlib import Path

import numpy as np
import torch

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
# The GPT-2/Phi tokenizer (50,295 ids) for random configs. shared/ sits beside the checkout on a dev
# machine but does not travel to the GPU box by itself, so look in the usual places (first hit wins);
# --tokenizer-dir overrides.
_REPO = Path(__file__).resolve().parents[2]
GPT2_TOKENIZER_CANDIDATES = list(dict.fromkeys(  # de-duplicated, order kept
    Path(p).resolve() / "models" / "tiny-random-gpt2-past"
    for p in (os.environ.get("MLRB_SHARED", ""), _REPO / "shared", _REPO.parent / "shared", "/work/shared") if p
))
# Files copied beside model.onnx (and into hf/) when present in the source folder. vocab.json is
# kept for slow-tokenizer fallbacks of the GPT-2/CodeGen tokenizer class.
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json",
                   "merges.txt")


# ----------------------------------------------------------------------------------------------
# Model construction
# ----------------------------------------------------------------------------------------------

def random_config(name: str):
    """Configs for random models. llama-1b: TinyLlama-like shape, 19 layers -> ~1.06B params."""
    from transformers import LlamaConfig

    common = dict(
        vocab_size=50304,  # GPT-2/Phi tokenizer has 50,295 ids; 50304 = next multiple of 64
        hidden_act="silu", rms_norm_eps=1e-5, rope_theta=10000.0, attention_bias=False, mlp_bias=False,
        tie_word_embeddings=False, max_position_embeddings=2048, initializer_range=0.02,
        bos_token_id=50256, eos_token_id=50256, use_cache=False,
    )
    if name == "llama-1b":
        # per layer 45.09M (q,o 2048^2; k,v 2048*512; MLP 3*2048*5632), embeddings 2*103M:
        # 18 layers = 1.018B, 19 = 1.063B, 20 = 1.108B. 19 sits in the middle of 1.0-1.1B.
        return LlamaConfig(hidden_size=2048, intermediate_size=5632, num_hidden_layers=19,
                           num_attention_heads=32, num_key_value_heads=8, head_dim=64, **common)
    if name == "tiny":
        return LlamaConfig(hidden_size=64, intermediate_size=172, num_hidden_layers=2,
                           num_attention_heads=8, num_key_value_heads=4, head_dim=8, **common)
    raise SystemExit(f"unknown --random-config {name!r} (llama-1b, tiny)")


def build_model(config, dtype: torch.dtype, device: str, attn: str):
    """Instantiate directly in the target dtype on the target device (no fp32 CPU copy of 1B
    params first): the default dtype and a device context govern parameter creation."""
    from transformers import LlamaForCausalLM

    config._attn_implementation = attn
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(old)
    return model.eval()


def read_llama2c_legacy(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """Parse a llama2.c legacy (version 0) checkpoint: 7 int32 header fields then float32 arrays in
    run.c's order. Linear weights are stored as PyTorch (out_features, in_features) row-major."""
    raw = path.read_bytes()
    dim, hidden, n_layers, n_heads, n_kv, vocab, seq_len = struct.unpack("7i", raw[:28])
    shared = vocab > 0  # negative vocab_size marks an unshared classifier
    vocab = abs(vocab)
    head_dim = dim // n_heads
    kv_dim = n_kv * head_dim
    data = np.frombuffer(raw, dtype="<f4", offset=28)
    shapes = [
        ("tok_embeddings", (vocab, dim)),
        ("rms_att", (n_layers, dim)),
        ("wq", (n_layers, dim, dim)),
        ("wk", (n_layers, kv_dim, dim)),
        ("wv", (n_layers, kv_dim, dim)),
        ("wo", (n_layers, dim, dim)),
        ("rms_ffn", (n_layers, dim)),
        ("w1", (n_layers, hidden, dim)),
        ("w2", (n_layers, dim, hidden)),
        ("w3", (n_layers, hidden, dim)),
        ("rms_final", (dim,)),
        ("freq_cis_real", (seq_len, head_dim // 2)),  # precomputed RoPE tables: not weights, skipped
        ("freq_cis_imag", (seq_len, head_dim // 2)),
    ]
    if not shared:
        shapes.append(("wcls", (vocab, dim)))
    out, pos = {}, 0
    for name, shape in shapes:
        n = int(np.prod(shape))
        out[name] = data[pos:pos + n].reshape(shape)
        pos += n
    if pos != data.size:
        raise SystemExit(f"{path}: {data.size - pos} float32 values left over; not a legacy llama2.c file?")
    hdr = dict(dim=dim, hidden_dim=hidden, n_layers=n_layers, n_heads=n_heads, n_kv_heads=n_kv,
               vocab_size=vocab, seq_len=seq_len, shared_classifier=shared)
    return hdr, out


def rope_permute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """llama2.c (Meta layout) rotates interleaved pairs (x0,x1),(x2,x3)... inside each head; HF's
    rotate_half rotates (x_i, x_{i+d/2}). Reordering each head's output rows as [evens, odds] makes
    the HF model compute the same attention scores (same reordering as transformers' conversion)."""
    rows, cols = w.shape
    return w.reshape(n_heads, rows // n_heads // 2, 2, cols).transpose(0, 2, 1, 3).reshape(rows, cols)


def load_stories(src: Path, dtype, device, attn):
    from transformers import LlamaConfig

    config = LlamaConfig.from_pretrained(src)
    hdr, w = read_llama2c_legacy(src / "llama2c" / "stories260K.bin")
    want = dict(dim=config.hidden_size, hidden_dim=config.intermediate_size,
                n_layers=config.num_hidden_layers, n_heads=config.num_attention_heads,
                n_kv_heads=config.num_key_value_heads, vocab_size=config.vocab_size)
    bad = {k: (hdr[k], v) for k, v in want.items() if hdr[k] != v}
    if bad:
        raise SystemExit(f"checkpoint header disagrees with config.json (header, config): {bad}")
    if hdr["shared_classifier"] != bool(config.tie_word_embeddings):
        raise SystemExit("checkpoint classifier sharing disagrees with config.tie_word_embeddings")
    nh, nkv = hdr["n_heads"], hdr["n_kv_heads"]
    sd = {"model.embed_tokens.weight": w["tok_embeddings"], "model.norm.weight": w["rms_final"]}
    for i in range(hdr["n_layers"]):
        p = f"model.layers.{i}."
        sd[p + "input_layernorm.weight"] = w["rms_att"][i]
        sd[p + "post_attention_layernorm.weight"] = w["rms_ffn"][i]
        sd[p + "self_attn.q_proj.weight"] = rope_permute(w["wq"][i], nh)
        sd[p + "self_attn.k_proj.weight"] = rope_permute(w["wk"][i], nkv)
        sd[p + "self_attn.v_proj.weight"] = w["wv"][i]
        sd[p + "self_attn.o_proj.weight"] = w["wo"][i]
        sd[p + "mlp.gate_proj.weight"] = w["w1"][i]
        sd[p + "mlp.down_proj.weight"] = w["w2"][i]
        sd[p + "mlp.up_proj.weight"] = w["w3"][i]
    sd["lm_head.weight"] = w["tok_embeddings"] if hdr["shared_classifier"] else w["wcls"]
    model = build_model(config, dtype, device, attn)
    tensors = {k: torch.from_numpy(np.array(v)).to(device=device, dtype=dtype) for k, v in sd.items()}
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    # rotary inv_freq is a (non-persistent) buffer, so only real weights may be reported missing
    missing = [m for m in missing if "rotary_emb" not in m]
    if missing or unexpected:
        raise SystemExit(f"state dict mismatch: missing={missing} unexpected={unexpected}")
    if config.tie_word_embeddings:
        model.tie_weights()
    return model


# ----------------------------------------------------------------------------------------------
# Export
# ----------------------------------------------------------------------------------------------

class LogitsOnly(torch.nn.Module):
    """optimum's no-cache text-generation signature: (input_ids, attention_mask) -> logits.
    position_ids are left to the model (0..seq-1), as in optimum's export without past."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


class LogitsWithPast(torch.nn.Module):
    """optimum's text-generation-with-past signature: (input_ids, attention_mask, past_key_values.0.key,
    past_key_values.0.value, ...) -> (logits, present.0.key, present.0.value, ...).
    transformers 5 takes a Cache object, not tuples, so the flat past tensors are loaded into a fresh
    DynamicCache (update() concatenates onto an empty layer) and the model appends the new keys and
    values to it; its layers then hold the presents [batch, kv_heads, past + sequence, head_dim].
    position_ids are left to the model: past_len + arange(sequence), from the cache length."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.n_layers = model.config.num_hidden_layers

    def forward(self, input_ids, attention_mask, *past):
        from transformers import DynamicCache

        assert len(past) == 2 * self.n_layers, (len(past), self.n_layers)
        cache = DynamicCache()
        for i in range(self.n_layers):
            cache.update(past[2 * i], past[2 * i + 1], i)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, past_key_values=cache, use_cache=True)
        presents = []
        for layer in out.past_key_values.layers:
            presents += [layer.keys, layer.values]
        return (out.logits, *presents)


def kv_shape(config) -> tuple[int, int]:
    """(num_kv_heads, head_dim) of the model's KV cache. GPT-2's config has no num_key_value_heads
    (every head has its own keys and values)."""
    heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    return heads, head_dim


def past_names(n_layers: int) -> tuple[list[str], list[str]]:
    """(past input names, present output names), layer by layer, key before value."""
    past = [f"past_key_values.{i}.{kv}" for i in range(n_layers) for kv in ("key", "value")]
    return past, ["present." + n[len("past_key_values."):] for n in past]


def export_onnx(model, out: Path, device: str, opset: int, external_mb: float, with_past: bool = False) -> list[str]:
    """Export to out/model.onnx. The TorchScript exporter writes one file per tensor when the
    proto passes 2 GB, so we export into a scratch folder and re-save: a single model.onnx when the
    weights are small, model.onnx + model.onnx.data when they pass 1.5 GB."""
    tmp = out / ".export_tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    # Dummy inputs: batch 2, seq 8, with a right-padded row so the mask path is traced as data,
    # not as a constant.
    ids = torch.randint(3, min(model.config.vocab_size, 200), (2, 8), device=device, dtype=torch.int64)
    mask = torch.ones_like(ids)
    mask[1, 5:] = 0
    if with_past:
        # A past of 3 (not 0 or 1: tracing may specialise those sizes away); past = 0 is checked by --verify.
        past_len = 3
        heads, head_dim = kv_shape(model.config)
        dtype = next(model.parameters()).dtype
        past_in, present_out = past_names(model.config.num_hidden_layers)
        past = tuple(torch.randn(2, heads, past_len, head_dim, device=device, dtype=dtype) for _ in past_in)
        mask = torch.cat([torch.ones(2, past_len, device=device, dtype=torch.int64), mask], dim=1)
        total = "past_sequence_length + sequence_length"
        module, args = LogitsWithPast(model), (ids, mask, *past)
        input_names = ["input_ids", "attention_mask", *past_in]
        output_names = ["logits", *present_out]
        dynamic_axes = {"input_ids": {0: "batch_size", 1: "sequence_length"},
                        "attention_mask": {0: "batch_size", 1: total},
                        "logits": {0: "batch_size", 1: "sequence_length"}}
        dynamic_axes.update({n: {0: "batch_size", 2: "past_sequence_length"} for n in past_in})
        dynamic_axes.update({n: {0: "batch_size", 2: total} for n in present_out})
    else:
        module, args = LogitsOnly(model), (ids, mask)
        input_names, output_names = ["input_ids", "attention_mask"], ["logits"]
        dynamic_axes = {"input_ids": {0: "batch_size", 1: "sequence_length"},
                        "attention_mask": {0: "batch_size", 1: "sequence_length"},
                        "logits": {0: "batch_size", 1: "sequence_length"}}
    # A fresh wrapper is in training mode, and the exporter restores the wrapper's mode recursively after
    # tracing: without eval() the wrapped model comes back in training mode (dropout on for GPT-2).
    module.eval()
    with torch.no_grad():
        torch.onnx.export(
            module, args, str(tmp / "model.onnx"), dynamo=False, opset_version=opset,
            input_names=input_names, output_names=output_names, dynamic_axes=dynamic_axes,
            do_constant_folding=True,
        )
    import onnx

    weight_bytes = sum(f.stat().st_size for f in tmp.iterdir())
    for stale in ("model.onnx", "model.onnx.data"):
        (out / stale).unlink(missing_ok=True)
    if weight_bytes > external_mb * 1024**2:
        proto = onnx.load(str(tmp / "model.onnx"), load_external_data=True)
        onnx.save_model(proto, str(out / "model.onnx"), save_as_external_data=True,
                        all_tensors_to_one_file=True, location="model.onnx.data", size_threshold=1024)
        del proto
        os.chmod(out / "model.onnx.data", 0o644)  # onnx creates it 0600; others (CI, node) must read it
        files = ["model.onnx", "model.onnx.data"]
    else:
        shutil.move(str(tmp / "model.onnx"), out / "model.onnx")
        files = ["model.onnx"]
    shutil.rmtree(tmp, ignore_errors=True)
    return files


def copy_tokenizer(src: Path, dst: Path) -> list[str]:
    dst.mkdir(parents=True, exist_ok=True)
    copied = []
    for name in TOKENIZER_FILES:
        if (src / name).is_file():
            shutil.copyfile(src / name, dst / name)
            copied.append(name)
    if "tokenizer.json" not in copied:
        raise SystemExit(f"no tokenizer.json in {src}")
    return copied


# ----------------------------------------------------------------------------------------------
# Verification (CPU onnxruntime vs the torch model)
# ----------------------------------------------------------------------------------------------

def verify_batches(vocab: int, seed: int = 1234):
    """A few fixed sequences: single rows of several lengths and one right-padded batch (mlrb-eval
    and lm-eval both right-pad). Token ids avoid 0..2 only to keep them ordinary tokens."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for n in (1, 7, 33):
        ids = torch.randint(3, vocab, (1, n), generator=g)
        out.append((ids, torch.ones_like(ids)))
    ids = torch.randint(3, vocab, (3, 20), generator=g)
    mask = torch.ones_like(ids)
    mask[1, 12:] = 0
    mask[2, 4:] = 0
    ids[mask == 0] = 0  # pad id: its value must not matter at valid positions
    out.append((ids, mask))
    return out


def ort_session(path: Path):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


ORT_NUMPY = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(double)": np.float64}


def ort_feeds(sess, input_ids: np.ndarray, attention_mask: np.ndarray, past: dict | None = None) -> dict:
    """Feeds for a graph with or without KV inputs. Past inputs not given in `past` get an EMPTY past
    [batch, kv_heads, 0, head_dim] (what mlrb-eval feeds for rows without a reused prefix)."""
    feeds = {"input_ids": input_ids, "attention_mask": attention_mask}
    for inp in sess.get_inputs():
        if inp.name in feeds:
            continue
        if past is not None and inp.name in past:
            feeds[inp.name] = past[inp.name]
        elif inp.name.startswith("past_key_values."):
            if inp.type not in ORT_NUMPY:
                raise TypeError(f"{inp.name} is {inp.type}: no numpy dtype to build an empty past")
            _, heads, _, head_dim = inp.shape
            feeds[inp.name] = np.zeros((input_ids.shape[0], heads, 0, head_dim), dtype=ORT_NUMPY[inp.type])
        else:
            raise ValueError(f"unexpected graph input {inp.name}")
    return feeds


def log_softmax_np(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def past_reuse_cases(vocab: int, seed: int = 4321):
    """(prefix [1, P], rows [3, S], row mask [3, S]) for the prefix-reuse check: prefixes of 1 and 11
    tokens, three right-padded continuation rows each (9, 6 and 2 real tokens; pad id 0)."""
    g = torch.Generator().manual_seed(seed)
    cases = []
    for p_len in (1, 11):
        prefix = torch.randint(3, vocab, (1, p_len), generator=g)
        rows = torch.randint(3, vocab, (3, 9), generator=g)
        mask = torch.ones_like(rows)
        mask[1, 6:] = 0
        mask[2, 2:] = 0
        rows[mask == 0] = 0
        cases.append((prefix, rows, mask.numpy()))
    return cases


def ort_prefix_reuse(path: Path, cases):
    """mlrb-eval's shared-prefix scoring on ORT CPU: run each prefix alone (batch 1, empty past), take
    its presents, repeat them for the 3 rows and run the right-padded rows with attention_mask
    [3, P + S] (1 over the past and the real tokens). Returns the rows' logits [3, S, vocab] per case."""
    try:
        sess = ort_session(path)
        out_names = [o.name for o in sess.get_outputs()]
        present = [n for n in out_names if n.startswith("present.")]
        results = []
        for prefix, rows, row_mask in cases:
            p_ids = prefix.numpy()
            got = dict(zip(out_names, sess.run(out_names, ort_feeds(sess, p_ids, np.ones_like(p_ids)))))
            n_rows = rows.shape[0]
            past = {"past_key_values." + n[len("present."):]: np.repeat(got[n], n_rows, axis=0) for n in present}
            mask = np.concatenate([np.ones((n_rows, p_ids.shape[1]), dtype=np.int64), row_mask.astype(np.int64)], axis=1)
            results.append(sess.run(["logits"], ort_feeds(sess, rows.numpy(), mask, past))[0].astype(np.float32))
        return results
    except Exception as e:  # noqa: BLE001 - report, don't crash (bf16 on ORT CPU)
        return f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"


def torch_full_sequence(model, cases, device):
    """Reference for ort_prefix_reuse: the no-past model on prefix + each row's real tokens (batch 1),
    logits at the row's positions, zero-filled at padding -> [3, S, vocab] per case."""
    results = []
    with torch.no_grad():
        for prefix, rows, row_mask in cases:
            p_len = prefix.shape[1]
            out = np.zeros((rows.shape[0], rows.shape[1], model.config.vocab_size), dtype=np.float32)
            for r in range(rows.shape[0]):
                n = int(row_mask[r].sum())
                ids = torch.cat([prefix[0], rows[r, :n]]).unsqueeze(0).to(device)
                logits = model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=False).logits
                out[r, :n] = logits[0, p_len:].float().cpu().numpy()
            results.append(out)
    return results


def verify(model, out: Path, reference_onnx: Path | None, device: str) -> dict:
    """Max |diff| over valid (mask=1) positions, of raw logits and of log-softmax:
      torch_vs_exported_ort_cpu   the torch model in its dtype vs the exported graph on ORT CPU
      fp32_torch_vs_exported      the same model upcast to fp32 in torch vs the exported graph
                                  (what fp16/bf16 costs; equals the first line for fp32)
      fp32_torch_vs_reference     stories only: fp32 torch vs shared/.../model.onnx on ORT CPU
                                  (< 1e-4 for --dtype float32: the weight conversion is right)
      exported_vs_reference       stories only: the export vs the fp32 reference graph, both on ORT
    For a --with-past graph the lines above feed an EMPTY past (past_sequence_length = 0), and two more
    check prefix reuse (prefixes of 1 and 11 tokens run alone, presents repeated for 3 right-padded rows),
    against the no-past torch model on prefix + row:
      past_reuse_torch_vs_exported_ort_cpu   torch in the export dtype
      past_reuse_fp32_torch_vs_exported      torch upcast to fp32
    A graph ORT CPU cannot run (bf16 kernels are missing there) is reported as an error string.
    Upcasts the model in place, so call it last."""
    res: dict = {}
    batches = verify_batches(model.config.vocab_size)

    def torch_logits():
        with torch.no_grad():
            return [model(input_ids=i.to(device), attention_mask=m.to(device), use_cache=False)
                    .logits.float().cpu().numpy() for i, m in batches]

    def ort_logits(path):
        try:
            sess = ort_session(path)
            return [sess.run(["logits"], ort_feeds(sess, i.numpy(), m.numpy()))[0]
                    .astype(np.float32) for i, m in batches]
        except Exception as e:  # noqa: BLE001 - report, don't crash (bf16 on ORT CPU)
            return f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"

    def diff(a, b, masks=None):
        if isinstance(a, str) or isinstance(b, str):
            return {"error": a if isinstance(a, str) else b}
        d_logit = d_lsm = 0.0
        for m, x, y in zip(masks or [m for _, m in batches], a, b):
            valid = np.asarray(m).astype(bool)
            d_logit = max(d_logit, float(np.abs(x - y)[valid].max()))
            d_lsm = max(d_lsm, float(np.abs(log_softmax_np(x) - log_softmax_np(y))[valid].max()))
        return {"max_abs_logit": d_logit, "max_abs_logsoftmax": d_lsm}

    # (for a --with-past graph every line above feeds an empty past, past_sequence_length = 0)
    import onnx  # read the inputs from the proto: an ORT CPU session fails on bf16 graphs

    graph_inputs = onnx.load(str(out / "model.onnx"), load_external_data=False).graph.input
    with_past = any(i.name.startswith("past_key_values.") for i in graph_inputs)
    if with_past:
        cases = past_reuse_cases(model.config.vocab_size)
        reuse = ort_prefix_reuse(out / "model.onnx", cases)
        reuse_masks = [row_mask for _, _, row_mask in cases]
    native = torch_logits()
    exported = ort_logits(out / "model.onnx")
    res["torch_vs_exported_ort_cpu"] = diff(native, exported)
    if with_past:
        res["past_reuse_torch_vs_exported_ort_cpu"] = diff(torch_full_sequence(model, cases, device), reuse, reuse_masks)
    model.float()
    fp32 = torch_logits()
    res["fp32_torch_vs_exported"] = diff(fp32, exported)
    if with_past:
        res["past_reuse_fp32_torch_vs_exported"] = diff(torch_full_sequence(model, cases, device), reuse, reuse_masks)
    if reference_onnx is not None:
        ref = ort_logits(reference_onnx)
        res["fp32_torch_vs_reference"] = diff(fp32, ref)
        res["exported_vs_reference"] = diff(exported, ref)  # both on ORT CPU: the dtype's whole cost
    return res


# ----------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--from-stories", metavar="DIR", type=Path,
                     help="folder with config.json, tokenizer files, llama2c/stories260K.bin, model.onnx")
    src.add_argument("--random-config", metavar="NAME", choices=["llama-1b", "tiny"],
                     help="seeded random Llama: llama-1b (~1.06B params) or tiny (tests)")
    ap.add_argument("--out", type=Path, required=True, help="output folder (created)")
    ap.add_argument("--dtype", choices=list(DTYPES), default="float32",
                    help="dtype the model is built in, so the ONNX graph computes in it")
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                    help="where the model is built and traced (cuda for the 1B model)")
    ap.add_argument("--seed", type=int, default=0, help="torch.manual_seed for random init")
    ap.add_argument("--attn", choices=["eager", "sdpa"], default="eager",
                    help="attention implementation traced into the graph (eager: plain MatMul/Softmax)")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--external-data-mb", type=float, default=1536,
                    help="weights above this many MiB go to model.onnx.data (default 1.5 GiB; protobuf caps at 2 GiB)")
    ap.add_argument("--save-hf", action="store_true",
                    help="also save_pretrained (safetensors) + tokenizer files into OUT/hf for lm-eval's HF backend")
    ap.add_argument("--tokenizer-dir", type=Path, default=None,
                    help="tokenizer source for random configs (default: models/tiny-random-gpt2-past under "
                         "$MLRB_SHARED, REPO/shared, REPO/../shared or /work/shared)")
    ap.add_argument("--with-past", action="store_true",
                    help="export with KV cache inputs/outputs (optimum's past_key_values.{i}.key/value -> "
                         "present.{i}.key/value) so mlrb-eval can reuse a shared prefix's KV")
    ap.add_argument("--verify", action="store_true",
                    help="run the export on ORT CPU against the torch model (and stories' model.onnx)")
    ap.add_argument("--no-export", action="store_true", help="skip ONNX (e.g. only --save-hf / --verify)")
    a = ap.parse_args(argv)

    if a.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda but torch.cuda.is_available() is False")
    t0 = time.time()
    dtype = DTYPES[a.dtype]
    a.out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(a.seed)
    if a.from_stories:
        model = load_stories(a.from_stories, dtype, a.device, a.attn)
        tok_src, reference = a.from_stories, a.from_stories / "model.onnx"
    else:
        # resolve the tokenizer first: failing after building 1B params wastes GPU minutes
        tok_src = a.tokenizer_dir or next((c for c in GPT2_TOKENIZER_CANDIDATES if (c / "tokenizer.json").is_file()), None)
        if tok_src is None or not (tok_src / "tokenizer.json").is_file():
            raise SystemExit(f"no tokenizer.json in {tok_src}; pass --tokenizer-dir (default search: "
                             + ", ".join(map(str, GPT2_TOKENIZER_CANDIDATES)) + ")")
        reference = None
        model = build_model(random_config(a.random_config), dtype, a.device, a.attn)
    model.config.use_cache = a.with_past  # config.json says whether the graph has KV inputs (as optimum's does)
    model.config.dtype = a.dtype  # recorded in config.json ("dtype" in transformers 5)
    n_params = sum(p.numel() for p in model.parameters())
    t_build = time.time() - t0

    files = []
    t1 = time.time()
    if not a.no_export:
        files += export_onnx(model, a.out, a.device, a.opset, a.external_data_mb, with_past=a.with_past)
    t_export = time.time() - t1
    model.config.save_pretrained(a.out)
    files.append("config.json")
    files += copy_tokenizer(tok_src, a.out)
    if a.save_hf:
        hf = a.out / "hf"
        model.save_pretrained(hf, safe_serialization=True)
        copy_tokenizer(tok_src, hf)
        files.append("hf/")

    summary = {
        "source": str(a.from_stories) if a.from_stories else a.random_config,
        "params": n_params, "dtype": a.dtype, "device": a.device, "attn": a.attn, "opset": a.opset,
        "with_past": a.with_past,
        "out": str(a.out), "files": files,
        "onnx_bytes": sum((a.out / f).stat().st_size for f in files if f.startswith("model.onnx")),
        "seconds_build": round(t_build, 2), "seconds_export": round(t_export, 2),
    }
    if a.verify and not a.no_export:
        t2 = time.time()
        summary["verify"] = verify(model, a.out, reference, a.device)
        summary["seconds_verify"] = round(time.time() - t2, 2)
    summary["seconds"] = round(time.time() - t0, 2)
    print(json.dumps(summary))


if __name__ == "__main__":
    sys.exit(main())
