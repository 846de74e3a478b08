#!/usr/bin/env python3
"""Records what lm-eval 0.4.13 itself does with its `gsm8k` task on the repo's GSM8K fixture, as test expectations
for mlrb-eval's generate_until path (test/eval/generate-until/gsm8k-lm-eval.test.ts). No model runs: the model's
side is a set of hand-written responses fed through lm-eval's own filter ensembles and exact_match.

What it records (OUT, default test/fixtures/lm-eval/gsm8k-expectations.json):
  yaml          the task's fields as lm_eval/tasks/gsm8k/gsm8k.yaml states them (version, templates, splits,
                generation_kwargs, filter_list, metric_list, num_fewshot).
  config        ConfigurableTask.dump_config() for the 5-shot task: what a results file's `configs.gsm8k` holds.
  requests      per few-shot count (0, 2, 5): every document's generate_until arguments (context and kwargs), from
                ConfigurableTask.build_all_requests with fewshot seed 1234, over the hub parquet fixture. The
                release JSONL fixture holds the same rows; the tests read both layouts.
  responses     per document, several model outputs (RESPONSES): the filtered response of each filter ensemble
                (task.apply_filters) and the exact_match that task.process_results gives for it.
  aggregate     for the first response of every document: lm-eval's mean and mean_stderr per filter.
  exactMatch    exact_match_hf_evaluate on tricky (prediction, reference) pairs under gsm8k's options and others.
  regex         Python's re.findall / re.sub on patterns and inputs where Python's and JS's regexes disagree.
  pythonSpaces  the code points re's \s matches in a str pattern (str.isspace()), which JS's \s does not equal.
  stops         HFLM's stop handling: handle_stop_sequences(until, eos) and postprocess_generated_text.

Run from the repo root with the lm_eval 0.4.13 wheel importable (record_expectations.sh unpacks it to /tmp/lmeval):
  PYTHONPATH=/tmp/lmeval:scripts/lm_eval/stubs /work/pyenv/bin/python scripts/lm_eval/record_gsm8k_expectations.py [OUT]
"""

import json
import os
import re
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="lmeval-datasets-"))

import lm_eval  # noqa: E402
from lm_eval.api.metrics import exact_match_hf_evaluate, mean, mean_stderr  # noqa: E402
from lm_eval.api.task import ConfigurableTask  # noqa: E402
from lm_eval.models.utils import handle_stop_sequences, postprocess_generated_text  # noqa: E402
from lm_eval.tasks._yaml_loader import load_yaml  # noqa: E402

YAML = Path(lm_eval.__file__).parent / "tasks" / "gsm8k" / "gsm8k.yaml"
HUB = Path("test/fixtures/tasks/gsm8k/hub/main")
FEWSHOT_SEED = 1234
SHOT_COUNTS = [0, 2, 5]

# Model outputs that reach the edges of the two filters and of exact_match's normalisation. Each document gets
# every one of them (the gold answers differ, so the same text scores differently per document).
RESPONSES = [
    " She baked 96 rolls and sold 75, so 21 are left.\n#### 21",
    " The answer is 21.",
    " #### 16,200",
    " It pays $16,200.",
    " It pays $16,200 in total.\n",
    " At midnight it was -7 degrees.\n#### -7",
    " It was \u22127 degrees.",
    " Each gets 2.5 kg.\n#### 2.50",
    " Each gets 2.5 kg.\n#### 2.5.",
    " ####21",
    " #### 5 and later #### 21",
    " 3 * 4 = <<3*4=12>>12, then 5 + 12 = 17.",
    " The total is 1,200.00 dollars",
    " 16200",
    "",
    " no number here",
    " ####  21",
    " #### 21\n\nQuestion: what next?",
    " - 7",
    " 7.",
    " answer: .5",
    " 2.5 kg, that is 2,5 in Europe.",
]

EXACT_MATCH_OPTIONS = {
    "gsm8k": {"ignore_case": True, "ignore_punctuation": False, "regexes_to_ignore": [",", "\\$", "(?s).*#### ", "\\.$"]},
    "punctuation": {"ignore_case": False, "ignore_punctuation": True, "regexes_to_ignore": None},
    "numbers": {"ignore_case": True, "ignore_punctuation": False, "ignore_numbers": True, "regexes_to_ignore": None},
}
EXACT_MATCH_PAIRS = [
    ["21", "She baked 96.\n#### 21"],
    ["21.", "Work.\n#### 21"],
    ["21.\n", "Work.\n#### 21"],
    ["21..", "#### 21."],
    ["$1,000", "#### 1,000"],
    ["1000", "#### 1,000"],
    ["a\n#### 5", "b\r\n#### 5"],
    ["x #### y #### 5", "#### 5"],
    ["7\u0000", "#### 7"],
    ["7\u0000.", "#### 7"],
    ["\u0130", "#### i\u0307"],
    ["\u03a3\u0391\u03a3", "#### \u03c3\u03b1\u03c2"],
    ["STRASSE", "#### stra\u00dfe"],
    ["Hello, World!", "hello world"],
    ["a1b2", "A3B4"],
    ["", "#### "],
    ["\u00bd", "#### \u00bd"],
    ["X\u0130", "#### xi"],
    ["\u0130X", "#### i\u0307x"],
    ["\u0391\u03a3.", "#### \u03b1\u03c2"],
    ["\u01c5", "#### \u01c6"],
    ["\u1e9e", "#### \u00df"],
    ["\u00abHi\u00bb, 5!", "#### \u00abhi\u00bb 5"],
]

REGEX_CASES = [
    ["a*|b", "ab"],
    ["x*", "\U0001F600a"],
    ["", "\U0001F600"],
    ["\\.$", "12.\n"],
    ["\\.$", "12.\n\n"],
    ["\\.$", "1.2.3."],
    ["(?m)^\\d+$", "12\r\n34\n56"],
    ["a.b", "a\rb a\nb a\u2028b"],
    ["(?s)a.b", "a\nb"],
    ["\\d+", "7 \u0662\u0661 \uff13"],
    ["\\s+", "a\u001cb\ufeffc\u0085d"],
    ["\\S+", "a\u001cb\ufeffc"],
    ["[]a]+", "]a]b"],
    ["[^]a]+", "]a]bc"],
    ["x{,2}y", "xxxy y"],
    ["a{", "a{b"],
    ["a{1,2", "a{1,2"],
    ["(?P<d>[0-9])(?P=d)", "1223"],
    ["\\A\\d", "1a\n2"],
    ["\\d\\Z", "1a2\n"],
    ["#### (\\-?[0-9\\.\\,]+)", "#### -1,234.5\n#### 7"],
    ["(-?[$0-9.,]{2,})|(-?[0-9]+)", "I had $3, then 4 more, total 7."],
    ["(?s).*#### ", "a\n#### b\n#### 9"],
    ["(?i)answer: (\\w)", "ANSWER: x"],
]

STOP_CASES = [
    [["Question:", "</s>", "<|im_end|>"], "</s>", " 21.\nQuestion: next</s>"],
    [["Question:", "</s>", "<|im_end|>"], "<|endoftext|>", " 21<|im_end|> Question:"],
    [["Question:"], "Question:", " a Question: b"],
    [["\n\n", ""], "", " a\n\nb"],
    [[], "</s>", " a</s>b"],
    [["b", "a"], "</s>", "xxabxx"],
]


def load_config(num_fewshot):
    config = load_yaml(YAML)
    config.update(
        {
            "dataset_path": "parquet",
            "dataset_name": None,
            "dataset_kwargs": {"data_files": {split: str(HUB / f"{split}-00000-of-00001.parquet") for split in ("test", "train")}},
            "num_fewshot": num_fewshot,
        }
    )
    config.pop("tag", None)
    return config


def build_task(num_fewshot):
    task = ConfigurableTask(config=load_config(num_fewshot))
    task.set_fewshot_seed(seed=FEWSHOT_SEED)
    task.build_all_requests(rank=0, world_size=1)
    return task


def record_requests(task):
    instances = sorted(task.instances, key=lambda instance: instance.doc_id)
    return [{"docId": instance.doc_id, "context": instance.arguments[0], "kwargs": instance.arguments[1]} for instance in instances]


def record_responses(task):
    instances = sorted(task.instances, key=lambda instance: instance.doc_id)
    filter_names = [pipeline.name for pipeline in task._filters]
    by_doc = []
    first = {name: [] for name in filter_names}
    for response_index, response in enumerate(RESPONSES):
        for instance in instances:
            instance.resps = [response]
            instance.filtered_resps = {}
        task.apply_filters()
        for instance in instances:
            if response_index == 0:
                by_doc.append({"docId": instance.doc_id, "target": task.doc_to_target(instance.doc), "outcomes": []})
            outcome = {"response": response, "filtered": {}, "exact_match": {}}
            for name in filter_names:
                filtered = instance.filtered_resps[name]
                score = task.process_results(instance.doc, [filtered])["exact_match"]
                outcome["filtered"][name] = filtered
                outcome["exact_match"][name] = float(score)
                if response_index == 0:
                    first[name].append(float(score))
            by_doc[instance.doc_id]["outcomes"].append(outcome)
    aggregate = {name: {"exact_match": mean(scores), "exact_match_stderr": mean_stderr(scores)} for name, scores in first.items()}
    return by_doc, aggregate


def record_exact_match():
    cases = []
    for name, options in EXACT_MATCH_OPTIONS.items():
        for prediction, reference in EXACT_MATCH_PAIRS:
            score = exact_match_hf_evaluate(predictions=[prediction], references=[reference], **options)["exact_match"]
            cases.append({"options": name, "prediction": prediction, "reference": reference, "score": float(score)})
    return {"options": EXACT_MATCH_OPTIONS, "cases": cases}


def record_regex():
    cases = []
    for pattern, text in REGEX_CASES:
        compiled = re.compile(pattern)
        findall = [list(match) if isinstance(match, tuple) else match for match in compiled.findall(text)]
        cases.append({"pattern": pattern, "input": text, "findall": findall, "sub": compiled.sub("<>", text)})
    return cases


def record_stops():
    cases = []
    for until, eos, generated in STOP_CASES:
        stops = handle_stop_sequences(list(until), eos=eos)
        cases.append({"until": until, "eos": eos, "generated": generated, "stops": stops, "text": postprocess_generated_text(generated, stops, None)})
    return cases


def json_safe(value):
    return json.loads(json.dumps(value, default=str))


def main(out):
    raw = load_yaml(YAML, resolve_func=False)
    tasks = {shots: build_task(shots) for shots in SHOT_COUNTS}
    responses, aggregate = record_responses(tasks[5])
    recorded = {
        "lm_eval": "0.4.13",
        "yaml": json_safe(raw),
        "config": json_safe(tasks[5].dump_config()),
        "requests": {str(shots): record_requests(task) for shots, task in tasks.items()},
        "responses": responses,
        "aggregate": aggregate,
        "exactMatch": record_exact_match(),
        "regex": record_regex(),
        "pythonSpaces": [point for point in range(sys.maxunicode + 1) if re.match(r"\s", chr(point))],
        "stops": record_stops(),
    }
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(recorded, handle, ensure_ascii=False, indent=1)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "test/fixtures/lm-eval/gsm8k-expectations.json")
