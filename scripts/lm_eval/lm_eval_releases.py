"""
What the recording scripts that run two lm-eval releases side by side share: the releases they record, how to tell
which one was imported (installed 0.4.13, or v0.4.8 put first on PYTHONPATH from its tag's source), and the one name
transformers 5 dropped that v0.4.8 reads on import.
"""

import re
from pathlib import Path

RELEASES = {"0.4.8", "0.4.13"}


def answer_removed_auto_class() -> None:
    """transformers 5 dropped AutoModelForVision2Seq, which v0.4.8's hf_vlms.py reads when lm_eval is imported."""
    import transformers

    lazy = type(transformers)
    original = lazy.__getattr__

    def getattr_with_alias(module, name):
        return original(module, "AutoModelForImageTextToText" if name == "AutoModelForVision2Seq" else name)

    lazy.__getattr__ = getattr_with_alias


def release_of(lm_eval, source: Path | None) -> str:
    version = getattr(lm_eval, "__version__", None)
    if version is None and source is not None:
        match = re.search(r'^version = "([^"]+)"', (source / "pyproject.toml").read_text(), re.MULTILINE)
        version = match.group(1) if match else None
    if version not in RELEASES:
        raise SystemExit(f"these recordings are lm-eval {sorted(RELEASES)}'s; this is lm-eval {version}")
    if source is not None and Path(lm_eval.__file__).resolve().parent != (source / "lm_eval").resolve():
        raise SystemExit(f"--lm-eval-source {source} is not the lm_eval imported ({lm_eval.__file__}); put it first on PYTHONPATH")
    return version
