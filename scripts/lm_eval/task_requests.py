"""Record what lm-eval itself builds from the repo's hub-layout fixtures: every request (context, continuation) of
every document, and the acc / acc_norm its process_results gives for a fixed set of log-likelihoods, so tests can
hold mlrb-eval's prompts and metrics to lm-eval's without Python.

Tasks come from the YAMLs (and their utils.py) in the lm_eval wheel (0.4.13). For these tasks the templates,
preprocessing and request building are those of v0.4.4-v0.4.8; what changed since is the dataset_path of
hellaswag, piqa and winogrande (the bare names `hellaswag`, `piqa`, `winogrande` then), which only says where the
hub rows are downloaded from and is replaced here by the local parquet files anyway. EWoK is not in lm-eval: its
config is BabyLM 2024's evaluation pipeline's ewok_filtered `_template_yaml`, written out below.

Usage (repo root; record_expectations.sh runs it): PYTHONPATH=<lm_eval 0.4.13>:scripts/lm_eval/stubs python scripts/lm_eval/task_requests.py OUT.json
"""

import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="lmeval-datasets-"))

import lm_eval  # noqa: E402
from lm_eval.api.task import ConfigurableTask  # noqa: E402
from lm_eval.tasks._yaml_loader import load_yaml  # noqa: E402

TASKS_DIR = Path(lm_eval.__file__).parent / "tasks"
TASK_FIXTURES = Path("test/fixtures/tasks")
HUB_FIXTURES = Path("test/fixtures/hub/parquet")
FEWSHOT_SEED = 1234

# BabyLM 2024's lm_eval/tasks/ewok_filtered/_template_yaml (its `group:` key aside, which this lm-eval would read
# as a group definition), for one of the fixture's domains.
EWOK_CONFIG = {
    "task": "ewok_agent-properties_filtered",
    "dataset_path": "json",
    "output_type": "multiple_choice",
    "validation_split": "train",
    "doc_to_text": "{{Context1}}",
    "doc_to_target": 0,
    "doc_to_choice": "{{[Target1, Target2]}}",
    "num_fewshot": 0,
    "metric_list": [{"metric": "acc"}],
    "metadata": {"version": 1.0},
}


def shard(folder, split):
    return str(folder / f"{split}-00000-of-00001.parquet")


# (suite as mlrb-eval names it, its --data folder, the task, its config, the data files, the few-shot counts)
CASES = [
    ("hellaswag", TASK_FIXTURES / "hub/hellaswag", "hellaswag", "hellaswag/hellaswag.yaml", {s: shard(TASK_FIXTURES / "hub/hellaswag/data", s) for s in ("validation", "train")}, [0, 2]),
    ("arc_easy", TASK_FIXTURES / "hub/ai2_arc", "arc_easy", "arc/arc_easy.yaml", {s: shard(TASK_FIXTURES / "hub/ai2_arc/ARC-Easy", s) for s in ("test", "train")}, [0, 2]),
    ("arc_challenge", TASK_FIXTURES / "hub/ai2_arc", "arc_challenge", "arc/arc_challenge.yaml", {s: shard(TASK_FIXTURES / "hub/ai2_arc/ARC-Challenge", s) for s in ("test", "train")}, [0, 2]),
    ("piqa", TASK_FIXTURES / "hub/piqa", "piqa", "piqa/piqa.yaml", {s: shard(TASK_FIXTURES / "hub/piqa/data", s) for s in ("validation", "train")}, [0, 2]),
    ("winogrande", TASK_FIXTURES / "hub/winogrande", "winogrande", "winogrande/default.yaml", {s: shard(TASK_FIXTURES / "hub/winogrande/winogrande_xl", s) for s in ("validation", "train")}, [0, 2]),
    ("ewok_filtered", TASK_FIXTURES / "release/evaluation_data", "ewok_agent-properties_filtered", EWOK_CONFIG, {"train": str(TASK_FIXTURES / "release/evaluation_data/ewok_filtered/agent-properties.jsonl")}, [0]),
    ("mmlu", HUB_FIXTURES / "mmlu-subjects", "mmlu_anatomy", "mmlu/default/mmlu_anatomy.yaml", {s: shard(HUB_FIXTURES / "mmlu-subjects/anatomy", s) for s in ("test", "dev")}, [0, 1]),
    ("blimp", HUB_FIXTURES / "blimp", "blimp_adjunct_island", "blimp/adjunct_island.yaml", {"train": shard(HUB_FIXTURES / "blimp/adjunct_island", "train")}, [0]),
    ("superglue", HUB_FIXTURES / "superglue", "boolq", "super_glue/boolq/default.yaml", {"validation": shard(HUB_FIXTURES / "superglue/boolq", "validation")}, [0]),
    ("superglue", HUB_FIXTURES / "superglue", "cb", "super_glue/cb/default.yaml", {"validation": shard(HUB_FIXTURES / "superglue/cb", "validation")}, [0]),
    ("superglue", HUB_FIXTURES / "superglue", "sglue_rte", "super_glue/rte/default.yaml", {"validation": shard(HUB_FIXTURES / "superglue/rte", "validation")}, [0]),
    ("superglue", HUB_FIXTURES / "superglue", "wic", "super_glue/wic/default.yaml", {"validation": shard(HUB_FIXTURES / "superglue/wic", "validation")}, [0]),
]


def templates(config):
    """The doc_to_* fields as the YAML spells them (the loader, not resolving `!function`, gives its file path)."""

    def spelled(value):
        if isinstance(value, str) and value.startswith(str(TASKS_DIR)):
            return f"!function {Path(value).name}"
        return value

    return {key: spelled(config.get(key)) for key in ("doc_to_text", "doc_to_target", "doc_to_choice")}


def synthetic_logliks(doc_id, choices):
    """Log-likelihoods that make acc and acc_norm disagree on some documents: longer choices score lower overall."""
    return [-(0.35 * len(choice)) - ((doc_id + index) % 3) * 0.8 for index, choice in enumerate(choices)]


def record(suite, data_dir, name, source, data_files, num_fewshot):
    if isinstance(source, dict):
        config, raw = dict(source), dict(source)
    else:
        config = load_yaml(TASKS_DIR / source)
        raw = load_yaml(TASKS_DIR / source, resolve_func=False)
    data_path = "json" if str(next(iter(data_files.values()))).endswith(".jsonl") else "parquet"
    config.update({"dataset_path": data_path, "dataset_name": None, "dataset_kwargs": {"data_files": data_files}, "num_fewshot": num_fewshot})
    # A split the fixture lacks (SuperGLUE's train, ARC's validation) is one the config must not name.
    for key in ("training_split", "validation_split", "test_split", "fewshot_split"):
        if config.get(key) is not None and config[key] not in data_files:
            config[key] = None
    config.pop("tag", None)
    config.pop("group", None)
    task = ConfigurableTask(config=config)
    task.set_fewshot_seed(seed=FEWSHOT_SEED)
    task.build_all_requests(rank=0, world_size=1)
    by_doc = {}
    for instance in task.instances:
        by_doc.setdefault(instance.doc_id, []).append(instance)
    docs = []
    for doc_id, instances in sorted(by_doc.items()):
        instances.sort(key=lambda instance: instance.idx)
        doc = instances[0].doc
        choices = task.doc_to_choice(doc)
        logliks = synthetic_logliks(doc_id, choices)
        results = task.process_results(doc, [(loglik, False) for loglik in logliks])
        docs.append(
            {
                "doc_id": doc_id,
                "arguments": [list(instance.arguments) for instance in instances],
                "logliks": logliks,
                "metrics": {metric: results[metric] for metric in ("acc", "acc_norm") if metric in results},
            }
        )
    version = (raw.get("metadata") or {}).get("version")
    return {"suite": suite, "dataDir": str(data_dir), "task": name, "numFewshot": num_fewshot, "version": version, "templates": templates(raw), "docs": docs}


def main(out):
    recorded = [record(suite, data_dir, name, source, files, shots) for suite, data_dir, name, source, files, counts in CASES for shots in counts]
    with open(out, "w", encoding="utf-8") as handle:
        json.dump({"lm_eval": lm_eval.__version__ if hasattr(lm_eval, "__version__") else "0.4.13", "cases": recorded}, handle, ensure_ascii=False, indent=1)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
