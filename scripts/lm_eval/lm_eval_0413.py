"""What the scripts that run real lm-eval 0.4.13 end to end share: importing it as a --no-deps install allows,
offline, and stories260K as the transformers checkpoint its HF backend scores.

  import_lm_eval_0413()            stubs for the modules a --no-deps install lacks (scripts/gpu/stubs), a table
                                   writer when pytablewriter is missing, HF_*_OFFLINE set; refuses another version
  stories_checkpoint(shared, tmp)  scripts/gpu/export_llama.py --from-stories --save-hf into tmp: the weights of
                                   ../shared/models/stories260K/model.onnx, which mlrb-eval scores
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def import_lm_eval_0413():
    sys.path.insert(0, str(REPO / "scripts" / "gpu"))
    sys.path.insert(0, str(REPO / "scripts" / "lm_eval"))
    from lm_eval_loglik import add_stubs  # stubs only the modules that are really missing (sacrebleu, requests)

    add_stubs()
    if importlib.util.find_spec("pytablewriter") is None:  # the CLI prints make_table's table at the end
        from render_table import install_recording_writer

        install_recording_writer()
    import lm_eval

    if lm_eval.__version__ != "0.4.13":
        raise SystemExit(f"these expectations are lm-eval 0.4.13's; this is lm-eval {lm_eval.__version__}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    return lm_eval


def stories_checkpoint(shared: Path, scratch: str) -> Path:
    subprocess.run([sys.executable, str(REPO / "scripts" / "gpu" / "export_llama.py"), "--from-stories",
                    str(shared / "models" / "stories260K"), "--out", f"{scratch}/stories", "--save-hf", "--no-export"], check=True)
    return Path(scratch) / "stories" / "hf"
