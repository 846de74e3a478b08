"""Builds test/fixtures/tasks: a few hand-written rows of HellaSwag, ARC (Easy and Challenge), PIQA, WinoGrande and
BabyLM's EWoK, each in its release's own format and (but EWoK, which BabyLM ships only as JSONL) in the Hugging Face
hub's parquet layout, so tests can check that both layouts give the same documents and that lm-eval builds the
same requests from them (scripts/lm_eval/task_requests.py). No real copy of these datasets is here; the rows are
written to reach the edges of each task's preprocessing, not to be real questions.

The two sides are written as each dataset's own tooling writes them, independently of mlrb-eval's readers:
  release  rowanz/hellaswag's data/hellaswag_{val,train}.jsonl (label an int);
           AI2's ARC-V1-Feb2018-2/ARC-{Easy,Challenge}/ARC-*-{Test,Train}.jsonl (question {stem, choices});
           PIQA's {valid,train}.jsonl with {valid,train}-labels.lst beside them;
           winogrande_1.1/{dev,train_xl}.jsonl (qID, sentence, option1, option2, answer);
           BabyLM 2024's evaluation_data/ewok_filtered/<domain>.jsonl (ewok-core-1.0's rows, each followed by its
           swapped copy, as the pipeline's dl_and_filter.py writes them).
  hub      what the datasets builders yield, with their Arrow types: Rowan/hellaswag (ind int32, label a string)
           under data/, allenai/ai2_arc under ARC-Easy/ and ARC-Challenge/ (choices a struct of lists), PIQA
           (ybisk/piqa, baber/piqa: label int64) under data/, allenai/winogrande under winogrande_xl/ (answer a
           string); snappy compression, as the hub's files use.

    /work/pyenv/bin/python scripts/data/build_task_fixtures.py [--out test/fixtures/tasks]
"""

import argparse
import json
import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq

# ---------------------------------------------------------------- HellaSwag


def hellaswag_row(ind, activity_label, ctx_a, ctx_b, endings, label, split="val"):
    return {
        "ind": ind,
        "activity_label": activity_label,
        "ctx_a": ctx_a,
        "ctx_b": ctx_b,
        "ctx": f"{ctx_a} {ctx_b}".strip(),
        "split": split,
        "split_type": "indomain",
        "label": label,
        "endings": endings,
        "source_id": f"fixture~{ind}",
    }


HELLASWAG = {
    "validation": [
        hellaswag_row(
            24,
            "Removing ice from car",
            "Then, the man writes over the snow covering the window of a car, and a woman wearing winter clothes smiles.",
            "then",
            [
                ", the man adds wax to the windshield and cuts it.",
                ", a person board a ski lift, while two men supporting the head of the person.",
                ", the man puts on a christmas coat, knitted with netting.",
                ", the man continues removing the snow on his car.",
            ],
            3,
        ),
        # WikiHow artefacts: " [title]" becomes ". ", other [...] go, double spaces collapse once; ctx_b is
        # capitalized (the rest of it lower-cased).
        hellaswag_row(
            101,
            "Home and Garden",
            "[header] How to grow tomatoes [title] Choose a sunny spot.  [step] Tomatoes need sun.",
            "ALSO water them [substeps] DAILY.",
            [" You can use  a hose [title] Water in the morning. ", "Plant them in shade.", "[step] Use fertilizer.", "Ignore   them."],
            0,
        ),
        # capitalize() title-cases: ß becomes Ss; an empty ctx_b leaves a trailing space that strip() removes.
        hellaswag_row(7, "Walking", "A woman walks down the street.", "ßtraße signs are EVERYWHERE.", ["She stops.", "She runs.", "She sings."], 2),
        hellaswag_row(8, "Sitting", "  A man sits down.", "", ["He stands up.", "He reads a [very] long book.", "He sleeps.", "He eats."], 1),
    ],
    "train": [
        hellaswag_row(1, "Cooking", "A chef chops onions.", "she", ["adds salt.", "leaves.", "cries.", "sings."], 0, "train"),
        hellaswag_row(2, "Biking", "A boy rides a bike.", "he", ["falls.", "stops [title] at home.", "waves.", "flies."], 2, "train"),
        hellaswag_row(3, "Swimming", "People swim in a pool.", "a lifeguard", ["whistles.", "sleeps.", "dives.", "runs."], 0, "train"),
    ],
}
HELLASWAG_RELEASE_FILES = {"validation": "hellaswag_val.jsonl", "train": "hellaswag_train.jsonl"}
HELLASWAG_SCHEMA = pa.schema(
    [
        ("ind", pa.int32()),
        ("activity_label", pa.string()),
        ("ctx_a", pa.string()),
        ("ctx_b", pa.string()),
        ("ctx", pa.string()),
        ("endings", pa.list_(pa.string())),
        ("source_id", pa.string()),
        ("split", pa.string()),
        ("split_type", pa.string()),
        ("label", pa.string()),
    ]
)

# ---------------------------------------------------------------- ARC


def arc_row(qid, stem, choices, answer_key):
    return {"id": qid, "question": {"stem": stem, "choices": [{"text": t, "label": l} for l, t in choices]}, "answerKey": answer_key}


ARC = {
    "ARC-Easy": {
        "test": [
            arc_row("Mercury_7175875", "Which of these is a source of light?", [("A", "the Moon"), ("B", "a mirror"), ("C", "the Sun"), ("D", "a window")], "C"),
            # Some questions label their choices 1-4: the target is still the key's position among the labels.
            arc_row("NYSEDREGENTS_2015_4_8", "Which tool measures mass?", [("1", "a ruler"), ("2", "a balance"), ("3", "a thermometer"), ("4", "a clock")], "2"),
            arc_row("Mercury_SC_401", "Plants need which gas? ", [("A", "oxygen"), ("B", "helium"), ("C", "neon"), ("D", "argon"), ("E", "carbon dioxide")], "E"),
        ],
        "train": [
            arc_row("T1", "What melts ice?", [("A", "heat"), ("B", "cold"), ("C", "dark")], "A"),
            arc_row("T2", "Which is a mammal?", [("1", "a shark"), ("2", "a whale"), ("3", "a trout"), ("4", "an eel")], "2"),
            arc_row("T3", "What do bees make?", [("A", "milk"), ("B", "silk"), ("C", "honey"), ("D", "wax paper")], "C"),
        ],
    },
    "ARC-Challenge": {
        "test": [
            arc_row("Mercury_SC_415702", "George wants to warm his hands quickly by rubbing them. Which skin surface will produce the most heat?", [("A", "dry palms"), ("B", "wet palms"), ("C", "palms covered with oil"), ("D", "palms covered with lotion")], "A"),
            arc_row("MCAS_2000_4_6", "Which unit is used for volume?", [("1", "liter"), ("2", "meter"), ("3", "gram")], "1"),
        ],
        "train": [
            arc_row("C1", "Which force pulls objects down?", [("A", "friction"), ("B", "gravity"), ("C", "magnetism"), ("D", "tension")], "B"),
            arc_row("C2", "Which is renewable?", [("1", "coal"), ("2", "oil"), ("3", "wind"), ("4", "gas")], "3"),
        ],
    },
}
ARC_RELEASE_SPLITS = {"test": "Test", "train": "Train"}
ARC_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("question", pa.string()),
        ("choices", pa.struct([("text", pa.list_(pa.string())), ("label", pa.list_(pa.string()))])),
        ("answerKey", pa.string()),
    ]
)

# ---------------------------------------------------------------- PIQA

PIQA = {
    "validation": [
        ({"goal": "How do I ready a guinea pig cage for it's new occupants?", "sol1": "Line the cage with ripped paper strips.", "sol2": "Line the cage with ripped jeans."}, 0),
        ({"goal": "To make a cake moist,", "sol1": "add sand.", "sol2": "add  an extra egg yolk."}, 1),
        ({"goal": "Open a jar ", "sol1": "Tap the lid with a spoon, then twist.", "sol2": "Freeze the jar overnight."}, 0),
    ],
    "train": [
        ({"goal": "Dry wet shoes", "sol1": "Stuff them with newspaper.", "sol2": "Put them in the fridge."}, 0),
        ({"goal": "Keep bread fresh", "sol1": "Leave it open.", "sol2": "Store it in a bag."}, 1),
        ({"goal": "Clean a window", "sol1": "Use vinegar and water.", "sol2": "Use mud."}, 0),
    ],
}
PIQA_RELEASE_FILES = {"validation": ("valid.jsonl", "valid-labels.lst"), "train": ("train.jsonl", "train-labels.lst")}
PIQA_SCHEMA = pa.schema([("goal", pa.string()), ("sol1", pa.string()), ("sol2", pa.string()), ("label", pa.int64())])

# ---------------------------------------------------------------- WinoGrande


def winogrande_row(qid, sentence, option1, option2, answer):
    return {"qID": qid, "sentence": sentence, "option1": option1, "option2": option2, "answer": answer}


WINOGRANDE = {
    "validation": [
        winogrande_row("3QHITW7OYO7Q6B6ISU2UMJB84ZLAQE-2", "Sarah was a much better surgeon than Maria so _ always got the harder cases.", "Sarah", "Maria", "1"),
        # The blank just before the full stop: the continuation is "." alone.
        winogrande_row("fixture-2", "The trophy doesn't fit into the brown suitcase because the _.", "trophy is too large", "suitcase is too small", "2"),
        # Text after the blank keeps its inner spacing; only the ends are stripped.
        winogrande_row("fixture-3", "Ian volunteered to eat Dennis's menudo after already having a bowl because _ despised eating  intestine. ", "Ian", "Dennis", "2"),
    ],
    "train": [
        winogrande_row("t-1", "John moved the couch from the garage to the backyard to create space. The _ is small.", "garage", "backyard", "1"),
        winogrande_row("t-2", "The dog chased the cat, so _ was tired.", "the dog", "the cat", "1"),
        winogrande_row("t-3", "Anna gave Beth a gift because _ was kind.", "Anna", "Beth", "2"),
    ],
}
WINOGRANDE_RELEASE_FILES = {"validation": "dev.jsonl", "train": "train_xl.jsonl"}
WINOGRANDE_SCHEMA = pa.schema([("sentence", pa.string()), ("option1", pa.string()), ("option2", pa.string()), ("answer", pa.string())])

# ---------------------------------------------------------------- EWoK


def ewok_item(domain, context1, context2, target1, target2):
    return {
        "Domain": domain,
        "ContextDiff": "fixture",
        "ContextType": "concrete",
        "TargetDiff": "fixture",
        "TargetType": "concrete",
        "Context1": context1,
        "Context2": context2,
        "Target1": target1,
        "Target2": target2,
    }


EWOK = {
    "agent-properties": [
        ewok_item("agent-properties", "Ali is a baker.", "Ali is a pilot.", "Ali makes bread.", "Ali flies planes."),
        ewok_item("agent-properties", "The cat is hungry.", "The cat is full.", "The cat wants food.", "The cat ignores food."),
    ],
    "spatial-relations": [
        ewok_item("spatial-relations", "The cup is on the table.", "The cup is under the table.", "The cup is above the floor.", "The cup touches the floor."),
    ],
}

# ---------------------------------------------------------------- writers


def write_jsonl(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_parquet(folder, split, rows, schema):
    os.makedirs(folder, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, os.path.join(folder, f"{split}-00000-of-00001.parquet"), compression="snappy")


def build_hellaswag(out):
    for split, rows in HELLASWAG.items():
        write_jsonl(os.path.join(out, "release", "hellaswag", HELLASWAG_RELEASE_FILES[split]), rows)
        # Rowan/hellaswag's builder: the same fields, the label as a string.
        hub_rows = [{**row, "label": str(row["label"])} for row in rows]
        write_parquet(os.path.join(out, "hub", "hellaswag", "data"), split, hub_rows, HELLASWAG_SCHEMA)


def build_arc(out):
    for config, splits in ARC.items():
        for split, rows in splits.items():
            write_jsonl(os.path.join(out, "release", "ARC-V1-Feb2018-2", config, f"{config}-{ARC_RELEASE_SPLITS[split]}.jsonl"), rows)
            # allenai/ai2_arc's builder: the stem as `question`, the choices as {text: [...], label: [...]}.
            hub_rows = [
                {
                    "id": row["id"],
                    "question": row["question"]["stem"],
                    "choices": {"text": [c["text"] for c in row["question"]["choices"]], "label": [c["label"] for c in row["question"]["choices"]]},
                    "answerKey": row["answerKey"],
                }
                for row in rows
            ]
            write_parquet(os.path.join(out, "hub", "ai2_arc", config), split, hub_rows, ARC_SCHEMA)


def build_piqa(out):
    for split, pairs in PIQA.items():
        questions, labels = PIQA_RELEASE_FILES[split]
        write_jsonl(os.path.join(out, "release", "piqa", questions), [row for row, _ in pairs])
        with open(os.path.join(out, "release", "piqa", labels), "w", encoding="utf-8") as handle:
            handle.write("".join(f"{label}\n" for _, label in pairs))
        write_parquet(os.path.join(out, "hub", "piqa", "data"), split, [{**row, "label": label} for row, label in pairs], PIQA_SCHEMA)


def build_winogrande(out):
    for split, rows in WINOGRANDE.items():
        write_jsonl(os.path.join(out, "release", "winogrande", WINOGRANDE_RELEASE_FILES[split]), rows)
        # allenai/winogrande's builder drops qID.
        hub_rows = [{key: row[key] for key in ("sentence", "option1", "option2", "answer")} for row in rows]
        write_parquet(os.path.join(out, "hub", "winogrande", "winogrande_xl"), split, hub_rows, WINOGRANDE_SCHEMA)


def build_ewok(out):
    for domain, items in EWOK.items():
        rows = []
        for item in items:
            rows.append(item)
            swapped = dict(item)
            swapped["Context1"], swapped["Context2"] = item["Context2"], item["Context1"]
            swapped["Target1"], swapped["Target2"] = item["Target2"], item["Target1"]
            rows.append(swapped)
        write_jsonl(os.path.join(out, "release", "evaluation_data", "ewok_filtered", f"{domain}.jsonl"), rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="test/fixtures/tasks")
    args = parser.parse_args()
    for side in ("release", "hub"):
        shutil.rmtree(os.path.join(args.out, side), ignore_errors=True)
    build_hellaswag(args.out)
    build_arc(args.out)
    build_piqa(args.out)
    build_winogrande(args.out)
    build_ewok(args.out)


if __name__ == "__main__":
    main()
