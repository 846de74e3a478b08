"""Record lm-eval's metadata.version of every task and group mlrb-eval reproduces, read from the task YAMLs in
the lm_eval wheel (0.4.13; these YAMLs carry the same versions as 0.4.4-0.4.8 for these tasks).

Usage: PYTHONPATH=/tmp/lmeval /work/pyenv/bin/python scripts/lm_eval/task_versions.py OUT.json

Each YAML is read with its `include:` chain (the template's metadata applies unless the file sets its own);
`!function` tags are ignored, since only names and versions are read. Values keep Python's types (1.0 vs 2).
"""

import json
import sys
from pathlib import Path

import yaml

import lm_eval


class Loader(yaml.SafeLoader):
    pass


Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def read(path):
    with open(path, encoding="utf-8") as f:
        config = yaml.load(f, Loader=Loader) or {}
    include = config.pop("include", None)
    if include:
        base = read(path.parent / include)
        base.update(config)
        config = base
    return config


def main(out):
    tasks_dir = Path(lm_eval.__file__).parent / "tasks"
    versions = {}
    folders = [tasks_dir / "mmlu" / "default", tasks_dir / "blimp"] + [
        tasks_dir / "super_glue" / name for name in ("boolq", "cb", "copa", "multirc", "record", "rte", "wic", "wsc")
    ]
    for folder in folders:
        for path in sorted(folder.iterdir()):
            if path.suffix != ".yaml" or path.name in ("seq2seq.yaml", "t5-prompt.yaml"):
                continue
            config = read(path)
            name = config.get("task") if isinstance(config.get("task"), str) else config.get("group")
            version = (config.get("metadata") or {}).get("version")
            if isinstance(name, str) and version is not None:
                versions[name] = version
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"lm_eval_version": lm_eval.__version__ if hasattr(lm_eval, "__version__") else "0.4.13", "versions": dict(sorted(versions.items()))}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
