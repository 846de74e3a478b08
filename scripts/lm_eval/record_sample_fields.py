#!/usr/bin/env python3
"""Records the per-document samples real lm-eval 0.4.13 writes (`--log_samples`) for every suite mlrb-eval scores,
so a test can hold ours to them field for field: doc, target, arguments, resps, filtered_resps, filter, metrics,
the three hashes and each metric's value.

Why: the scores can agree while the samples differ (WinoGrande's `target` is the rest of the sentence after the
blank in lm-eval, where a gold index is easy to log instead), and tools read the samples files.

What it runs: `lm_eval run --model hf --log_samples` on stories260K as a transformers checkpoint (the weights of
../shared/models/stories260K/model.onnx, exported by scripts/gpu/export_llama.py --from-stories --save-hf), on
CPU in float32, --limit LIMIT documents per task, zero-shot, one run per data folder below. Every hub dataset
lm-eval asks for is served from the repository's fixtures by replacing `datasets.load_dataset` (anything else is
refused, so nothing reaches for the network); a folder without a train split (SuperGLUE's, WikiText's) serves its
validation or test file as `train`, which a zero-shot run only reads to build its (unused) few-shot source. BabyLM 2024's
suites are not in lm-eval: they run from its evaluation pipeline's `_template_yaml`s (written out below, as
github.com/babylm/evaluation-pipeline-2024 has them) through `--include_path`, on the small evaluation_data
folder committed beside the output.

Output (OUT, default test/fixtures/lm-eval/0.4.13/stories260K-samples.json): {lm_eval, limit, runs: [{data,
tasks, samples: {task: [sample as written]}}]}, where `data` is the folder mlrb-eval reads for the same tasks.

Run from the repo root (lm_eval 0.4.13 in the interpreter; scripts/gpu/stubs supplies what a --no-deps install lacks):
  /work/pyenv/bin/python scripts/lm_eval/record_sample_fields.py [--hf DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIMIT = 3
TASK_FIXTURES = Path("test/fixtures/tasks")
HUB_FIXTURES = Path("test/fixtures/hub/parquet")
BABYLM_DATA = Path("test/fixtures/lm-eval/0.4.13/evaluation_data")

# (the folder mlrb-eval's --data names, the --tasks of both runs)
RUNS = [
    (HUB_FIXTURES / "mmlu-subjects", ["mmlu_anatomy"]),
    (HUB_FIXTURES / "blimp", ["blimp_adjunct_island"]),
    (HUB_FIXTURES / "superglue", ["boolq", "cb", "copa", "multirc", "record", "sglue_rte", "wic", "wsc"]),
    (TASK_FIXTURES / "hub/hellaswag", ["hellaswag"]),
    (TASK_FIXTURES / "hub/ai2_arc", ["arc_easy", "arc_challenge"]),
    (TASK_FIXTURES / "hub/piqa", ["piqa"]),
    (TASK_FIXTURES / "hub/winogrande", ["winogrande"]),
    (TASK_FIXTURES / "wikitext", ["wikitext"]),
    (TASK_FIXTURES / "gsm8k/hub", ["gsm8k"]),
    (BABYLM_DATA, ["blimp_anaphor_gender_agreement_filtered", "blimp_supplement_qa_congruence_easy", "ewok_agent-properties_filtered"]),
]

# The hub (dataset_path, dataset_name) each lm-eval YAML asks for, and the fixture folder that holds its parquet.
HUB_FOLDERS = {
    ("Rowan/hellaswag", None): TASK_FIXTURES / "hub/hellaswag/data",
    ("allenai/ai2_arc", "ARC-Easy"): TASK_FIXTURES / "hub/ai2_arc/ARC-Easy",
    ("allenai/ai2_arc", "ARC-Challenge"): TASK_FIXTURES / "hub/ai2_arc/ARC-Challenge",
    ("baber/piqa", None): TASK_FIXTURES / "hub/piqa/data",
    ("allenai/winogrande", "winogrande_xl"): TASK_FIXTURES / "hub/winogrande/winogrande_xl",
    ("EleutherAI/wikitext_document_level", "wikitext-2-raw-v1"): TASK_FIXTURES / "wikitext/wikitext-2-raw-v1",
    ("openai/gsm8k", "main"): TASK_FIXTURES / "gsm8k/hub/main",
}
HUB_FAMILIES = {"aps/super_glue": HUB_FIXTURES / "superglue", "cais/mmlu": HUB_FIXTURES / "mmlu-subjects", "nyu-mll/blimp": HUB_FIXTURES / "blimp"}

# BabyLM 2024's evaluation pipeline, lm_eval/tasks/{blimp_filtered,blimp_supplement,ewok_filtered}/_template_yaml
# (their `group:` key aside, which this lm-eval reads as a group definition; samples are per task).
BABYLM_PAIR_TEMPLATE = {
    "dataset_path": "json",
    "output_type": "multiple_choice",
    "validation_split": "train",
    "doc_to_text": "",
    "doc_to_target": 0,
    "doc_to_choice": "{{[sentence_good, sentence_bad]}}",
    "num_fewshot": 0,
    "should_decontaminate": True,
    "doc_to_decontamination_query": "{{sentence_good}} {{sentence_bad}}",
    "metric_list": [{"metric": "acc"}],
    "metadata": {"version": 1.0},
}
BABYLM_TASKS = {
    "blimp_anaphor_gender_agreement_filtered": (BABYLM_PAIR_TEMPLATE, "blimp_filtered/anaphor_gender_agreement.jsonl"),
    "blimp_supplement_qa_congruence_easy": (BABYLM_PAIR_TEMPLATE, "supplement_filtered/qa_congruence_easy.jsonl"),
    "ewok_agent-properties_filtered": (
        {**BABYLM_PAIR_TEMPLATE, "doc_to_text": "{{Context1}}", "doc_to_choice": "{{[Target1, Target2]}}", "doc_to_decontamination_query": "{{Context1}} {{Target1}}"},
        "ewok_filtered/agent-properties.jsonl",
    ),
}


def parquet_files(folder: Path) -> dict:
    files = {p.name.split("-")[0]: str(REPO / p) for p in sorted(folder.glob("*.parquet"))}
    if not files:
        raise RuntimeError(f"no parquet files in {folder}")
    for split in ("validation", "test"):  # a zero-shot run reads `train` only for its (unused) few-shot source
        if "train" not in files and split in files:
            files["train"] = files[split]
    return files


def serve_fixtures() -> None:
    import datasets

    real_load_dataset = datasets.load_dataset

    def load_dataset(path, name=None, **kwargs):
        if path == "json":  # BabyLM's tasks name their own files
            return real_load_dataset(path, name, **kwargs)
        folder = HUB_FAMILIES[path] / name if path in HUB_FAMILIES else HUB_FOLDERS.get((path, name))
        if folder is None:
            raise RuntimeError(f"record_sample_fields serves only the fixtures' datasets, not {path} {name}")
        return real_load_dataset("parquet", data_files=parquet_files(REPO / folder))

    datasets.load_dataset = load_dataset


def write_babylm_yamls(folder: Path) -> None:
    for task, (template, data_file) in BABYLM_TASKS.items():
        config = {**template, "task": task, "dataset_kwargs": {"data_files": str(REPO / BABYLM_DATA / data_file)}}
        (folder / f"{task}.yaml").write_text(json.dumps(config, indent=1), encoding="utf-8")


def run_lm_eval(hf_dir: Path, out_dir: Path, tasks: list[str], include: Path) -> dict:
    from lm_eval.__main__ import cli_evaluate

    sys.argv = [
        "lm_eval", "run", "--model", "hf", "--model_args", f"pretrained={hf_dir},dtype=float32", "--device", "cpu",
        "--batch_size", "8", "--tasks", ",".join(tasks), "--limit", str(LIMIT), "--output_path", str(out_dir),
        "--log_samples", "--include_path", str(include),
    ]
    cli_evaluate()
    samples = {}
    for task in tasks:
        written = sorted(out_dir.rglob(f"samples_{task}_*.jsonl"))
        if len(written) != 1:
            raise SystemExit(f"expected one samples file for {task} under {out_dir}, found {written}")
        samples[task] = [json.loads(line) for line in written[0].read_text(encoding="utf-8").splitlines() if line.strip()]
    return samples


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared", help="the shared/ folder (models/stories260K)")
    ap.add_argument("--out", type=Path, default=REPO / "test" / "fixtures" / "lm-eval" / "0.4.13" / "stories260K-samples.json")
    ap.add_argument("--hf", type=Path, help="stories260K as an HF checkpoint (default: exported into a temp folder)")
    a = ap.parse_args(argv)

    from lm_eval_0413 import import_lm_eval_0413, stories_checkpoint

    lm_eval = import_lm_eval_0413()
    os.chdir(REPO)
    with tempfile.TemporaryDirectory() as scratch:
        hf_dir = a.hf if a.hf is not None else stories_checkpoint(a.shared, scratch)
        include = Path(scratch) / "babylm-tasks"
        include.mkdir()
        write_babylm_yamls(include)
        serve_fixtures()
        runs = []
        for index, (data, tasks) in enumerate(RUNS):
            samples = run_lm_eval(hf_dir, Path(scratch) / f"run{index}", tasks, include)
            runs.append({"data": str(data), "tasks": tasks, "samples": samples})
    a.out.write_text(json.dumps({"lm_eval": lm_eval.__version__, "limit": LIMIT, "runs": runs}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{sum(len(s) for run in runs for s in run['samples'].values())} samples of {sum(len(run['tasks']) for run in runs)} tasks written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
