"""Builds test/fixtures/hub: a few rows of the shared release-layout data, and the same rows in the Hugging Face
hub's parquet layouts (cais/mmlu, nyu-mll/blimp, aps/super_glue), so tests can check that both layouts give the
same documents and scores.

The hub side is written here as the hub's own tooling writes it, independently of mlrb-eval's readers:
  - column names, order and Arrow types of the `datasets` features (ClassLabel -> int64, idx -> int32,
    Sequence(string) -> list<string>, Sequence(dict) -> struct of lists, MultiRC's idx -> struct);
  - the `super_glue` builder's conversions: ClassLabel indices from the release's labels, MultiRC flattened
    to one row per answer, ReCoRD to one row per query with sorted entity / answer sets, `wsc.fixed` with the
    builder's span fix (`_fix_wst`), `wsc` without it;
  - snappy compression (pyarrow's default, as the hub's parquet files use).
ReCoRD is not in ../shared, so its one release row is written here by hand. codecs/ holds CB again under zstd,
gzip, brotli and lz4; hostile/ holds files a reader must refuse (a missing column, a label out of range, three
MMLU choices, an unknown subject, and a 10 kB zstd bomb that claims a 300 MiB page).

    /work/pyenv/bin/python scripts/data/build_hub_fixtures.py [--shared ../shared/data] [--out test/fixtures/hub]
"""

import argparse
import csv
import io
import json
import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq

MMLU_SUBJECTS = ["abstract_algebra", "anatomy", "sociology"]
MMLU_TEST_ROWS = 5
BLIMP_PARADIGMS = ["adjunct_island", "anaphor_gender_agreement", "causative"]
BLIMP_ROWS = 5
SUPERGLUE_ROWS = 4
# WSC row 5 of ../shared has span1_text "The table" where the text says "the table": the fix must recase it.
WSC_ROWS = [0, 1, 2, 3, 5]

LETTERS = ["A", "B", "C", "D"]


def shard(folder, split):
    return os.path.join(folder, f"{split}-00000-of-00001.parquet")


def write_parquet(path, rows, schema):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path, compression="snappy")


def read_jsonl(path, take=None):
    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return rows if take is None else [rows[i] for i in take]


def write_jsonl(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- MMLU


MMLU_SCHEMA = pa.schema(
    [("question", pa.string()), ("subject", pa.string()), ("choices", pa.list_(pa.string())), ("answer", pa.int64())]
)


def read_mmlu_csv(path):
    """Both spellings of the release CSV: a header row with answers 0-3, or none with answers A-D."""
    with open(path, encoding="utf-8", newline="") as handle:
        records = list(csv.reader(handle))
    if records and records[0] == ["question", "choice0", "choice1", "choice2", "choice3", "answer"]:
        return records[0], records[1:]
    return None, records


def mmlu_answer(value):
    return LETTERS.index(value) if value in LETTERS else int(value)


def build_mmlu(shared, out):
    release = os.path.join(out, "release", "mmlu")
    by_split = {"test": [], "dev": []}
    for subject in MMLU_SUBJECTS:
        for split, take in (("test", MMLU_TEST_ROWS), ("dev", None)):
            header, records = read_mmlu_csv(os.path.join(shared, "mmlu", split, f"{subject}_{split}.csv"))
            records = records[:take] if take is not None else records
            target = os.path.join(release, split, f"{subject}_{split}.csv")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            if header is not None:
                writer.writerow(header)
            writer.writerows(records)
            with open(target, "w", encoding="utf-8", newline="") as handle:
                handle.write(buffer.getvalue())
            rows = [
                {"question": r[0], "subject": subject, "choices": r[1:5], "answer": mmlu_answer(r[5])} for r in records
            ]
            by_split[split].extend(rows)
            write_parquet(shard(os.path.join(out, "parquet", "mmlu-subjects", subject), split), rows, MMLU_SCHEMA)
    # cais/mmlu's `all` config: every subject in one file, subjects in alphabetical order.
    for split, rows in by_split.items():
        write_parquet(shard(os.path.join(out, "parquet", "mmlu-all", "all"), split), rows, MMLU_SCHEMA)


# ---------------------------------------------------------------- BLiMP


BLIMP_SCHEMA = pa.schema(
    [
        ("sentence_good", pa.string()),
        ("sentence_bad", pa.string()),
        ("field", pa.string()),
        ("linguistics_term", pa.string()),
        ("UID", pa.string()),
        ("simple_LM_method", pa.bool_()),
        ("one_prefix_method", pa.bool_()),
        ("two_prefix_method", pa.bool_()),
        ("lexically_identical", pa.bool_()),
        ("pair_id", pa.int32()),
    ]
)


def build_blimp(shared, out):
    for paradigm in BLIMP_PARADIGMS:
        rows = read_jsonl(os.path.join(shared, "blimp", f"{paradigm}.jsonl"), range(BLIMP_ROWS))
        write_jsonl(os.path.join(out, "release", "blimp", f"{paradigm}.jsonl"), rows)
        hub_rows = [{**{k: v for k, v in r.items() if k != "pairID"}, "pair_id": int(r["pairID"])} for r in rows]
        write_parquet(shard(os.path.join(out, "parquet", "blimp", paradigm), "train"), hub_rows, BLIMP_SCHEMA)


# ---------------------------------------------------------------- SuperGLUE


def bool_label(value):
    """ClassLabel(names=["False", "True"]) from a JSON boolean or the shared copy's "true"/"false"."""
    return 1 if value in (True, "true", "True") else 0


def class_label(names):
    return lambda value: names.index(value)


def fix_wst(ex):
    """The super_glue builder's `_fix_wst` for the wsc.fixed config."""

    def fix_span_text(k):
        text = ex[k + "_text"]
        index = ex[k + "_index"]
        if text in ex["text"]:
            return
        if text in ("Kamenev and Zinoviev", "Kamenev, Zinoviev, and Stalin"):
            return
        if "theyscold" in text:
            ex["span2_index"] = 10
        first_word = ex["text"].split()[index]
        text = (text[0].lower() if first_word[0].islower() else text[0].upper()) + text[1:]
        text = text.rstrip(".").replace("\n", " ")
        ex[k + "_text"] = text
        assert ex[k + "_text"] in ex["text"], ex

    fix_span_text("span1")
    fix_span_text("span2")
    return ex


def wsc_row(row):
    return {"text": row["text"], **row["target"], "idx": row["idx"], "label": bool_label(row["label"])}


def flatten_multirc(rows):
    for row in rows:
        for question in row["passage"]["questions"]:
            for answer in question["answers"]:
                yield {
                    "paragraph": row["passage"]["text"],
                    "question": question["question"],
                    "answer": answer["text"],
                    "idx": {"paragraph": row["idx"], "question": question["idx"], "answer": answer["idx"]},
                    "label": bool_label(bool(answer["label"])),
                }


def record_rows(rows):
    for row in rows:
        text = row["passage"]["text"]
        # The builder's _get_record_entities: the release's inclusive ends become exclusive, spans sorted by start.
        spans = sorted(
            ({"text": text[e["start"] : e["end"] + 1], "start": e["start"], "end": e["end"] + 1} for e in row["passage"]["entities"]),
            key=lambda e: e["start"],
        )
        for qa in row["qas"]:
            yield {
                "passage": text,
                "query": qa["query"],
                "entities": sorted({e["text"] for e in spans}),
                "entity_spans": {k: [e[k] for e in spans] for k in ("text", "start", "end")},
                "answers": sorted({a["text"] for a in qa.get("answers", [])}),
                "idx": {"passage": row["idx"], "query": qa["idx"]},
            }


# A ReCoRD passage in the release layout: inclusive entity spans, a repeated entity, two queries.
RECORD_TEXT = (
    "The river town of Elmsford opened a new bridge on Monday. Mayor Dana Ruiz said Elmsford had waited "
    "twenty years.\n@highlight\nElmsford opens its bridge\n@highlight\nDana Ruiz thanks the builders"
)


def record_release_row():
    def span(entity, occurrence=0):
        start = -1
        for _ in range(occurrence + 1):
            start = RECORD_TEXT.index(entity, start + 1)
        return {"start": start, "end": start + len(entity) - 1}

    return {
        "idx": 0,
        "passage": {"text": RECORD_TEXT, "entities": [span("Elmsford"), span("Dana Ruiz"), span("Elmsford", 1), span("Monday")]},
        "qas": [
            {"idx": 0, "query": "@placeholder said the town had waited twenty years.", "answers": [{**span("Dana Ruiz"), "text": "Dana Ruiz"}]},
            {"idx": 1, "query": "The bridge in @placeholder opened on Monday.", "answers": [{**span("Elmsford"), "text": "Elmsford"}]},
        ],
    }


I32, I64, S = pa.int32(), pa.int64(), pa.string()
SUPERGLUE = {
    # hub config: (release folder, Arrow schema, release rows -> hub rows)
    "boolq": ("BoolQ", pa.schema([("question", S), ("passage", S), ("idx", I32), ("label", I64)]),
              lambda rows: [{**r, "label": bool_label(r["label"])} for r in rows]),
    "cb": ("CB", pa.schema([("premise", S), ("hypothesis", S), ("idx", I32), ("label", I64)]),
           lambda rows: [{**r, "label": class_label(["entailment", "contradiction", "neutral"])(r["label"])} for r in rows]),
    "copa": ("COPA", pa.schema([("premise", S), ("choice1", S), ("choice2", S), ("question", S), ("idx", I32), ("label", I64)]),
             lambda rows: rows),
    "rte": ("RTE", pa.schema([("premise", S), ("hypothesis", S), ("idx", I32), ("label", I64)]),
            lambda rows: [{**r, "label": class_label(["entailment", "not_entailment"])(r["label"])} for r in rows]),
    "wic": ("WiC", pa.schema([("word", S), ("sentence1", S), ("sentence2", S), ("start1", I32), ("start2", I32),
                              ("end1", I32), ("end2", I32), ("idx", I32), ("label", I64)]),
            lambda rows: [{**r, "label": bool_label(r["label"])} for r in rows]),
    "multirc": ("MultiRC", pa.schema([("paragraph", S), ("question", S), ("answer", S),
                                      ("idx", pa.struct([("paragraph", I32), ("question", I32), ("answer", I32)])), ("label", I64)]),
                lambda rows: list(flatten_multirc(rows))),
    "record": ("ReCoRD", pa.schema([("passage", S), ("query", S), ("entities", pa.list_(S)),
                                    ("entity_spans", pa.struct([("text", pa.list_(S)), ("start", pa.list_(I32)), ("end", pa.list_(I32))])),
                                    ("answers", pa.list_(S)), ("idx", pa.struct([("passage", I32), ("query", I32)]))]),
               lambda rows: list(record_rows(rows))),
}
WSC_SCHEMA = pa.schema([("text", S), ("span1_index", I32), ("span2_index", I32), ("span1_text", S), ("span2_text", S),
                        ("idx", I32), ("label", I64)])


def build_superglue(shared, out):
    release = os.path.join(out, "release", "superglue")
    hub = os.path.join(out, "parquet", "superglue")
    for config, (folder, schema, to_hub) in SUPERGLUE.items():
        if config == "record":
            rows = [record_release_row()]
        elif config == "multirc":
            # One paragraph, its first two questions: a handful of answers.
            row = read_jsonl(os.path.join(shared, "superglue", folder, "val.jsonl"), [0])[0]
            rows = [{**row, "passage": {**row["passage"], "questions": row["passage"]["questions"][:2]}}]
        else:
            rows = read_jsonl(os.path.join(shared, "superglue", folder, "val.jsonl"), range(SUPERGLUE_ROWS))
        write_jsonl(os.path.join(release, folder, "val.jsonl"), rows)
        write_parquet(shard(os.path.join(hub, config), "validation"), to_hub(rows), schema)
    rows = read_jsonl(os.path.join(shared, "superglue", "WSC", "val.jsonl"), WSC_ROWS)
    write_jsonl(os.path.join(release, "WSC", "val.jsonl"), rows)
    write_parquet(shard(os.path.join(hub, "wsc"), "validation"), [wsc_row(r) for r in rows], WSC_SCHEMA)
    write_parquet(shard(os.path.join(hub, "wsc.fixed"), "validation"), [fix_wst(wsc_row(r)) for r in rows], WSC_SCHEMA)


# ---------------------------------------------------------------- other codecs


def build_codecs(out):
    """The CB validation rows again under each other codec pyarrow writes, for hubs that do not use snappy."""
    table = pq.read_table(shard(os.path.join(out, "parquet", "superglue", "cb"), "validation"))
    for codec in ("zstd", "gzip", "brotli", "lz4"):
        path = shard(os.path.join(out, "codecs", codec, "cb"), "validation")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        pq.write_table(table, path, compression=codec)


# ---------------------------------------------------------------- hostile files


def build_hostile(out):
    """Files in the hub layouts that a reader must refuse, each naming the file and row."""
    hostile = os.path.join(out, "hostile")
    boolq = pa.schema([("question", S), ("text", S), ("idx", I32), ("label", I64)])
    write_parquet(shard(os.path.join(hostile, "wrong-columns", "boolq"), "validation"),
                  [{"question": "is it", "text": "It is.", "idx": 0, "label": 1}], boolq)
    cb_schema = SUPERGLUE["cb"][1]
    cb_rows = [{"premise": f"P{i}.", "hypothesis": f"H{i}", "idx": i, "label": label} for i, label in enumerate([0, 2, 5])]
    write_parquet(shard(os.path.join(hostile, "bad-label", "cb"), "validation"), cb_rows, cb_schema)
    mmlu_rows = [
        {"question": "Q1?", "subject": "anatomy", "choices": ["a", "b", "c", "d"], "answer": 0},
        {"question": "Q2?", "subject": "anatomy", "choices": ["a", "b", "c"], "answer": 1},
    ]
    for split in ("test", "dev"):
        write_parquet(shard(os.path.join(hostile, "mmlu-three-choices", "all"), split), mmlu_rows, MMLU_SCHEMA)
    # A decompression bomb: one 300 MiB premise, zstd-compressed to about 10 kB.
    bomb = pa.table(
        {"premise": ["a" * (300 * 1024 * 1024)], "hypothesis": ["h"], "idx": pa.array([0], I32), "label": pa.array([0], I64)},
        schema=cb_schema,
    )
    path = shard(os.path.join(hostile, "bomb", "cb"), "validation")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(bomb, path, compression="zstd", compression_level=19, use_dictionary=False)
    unknown = [{**mmlu_rows[0], "subject": "astrology"}]
    for split in ("test", "dev"):
        write_parquet(shard(os.path.join(hostile, "mmlu-unknown-subject", "all"), split), unknown, MMLU_SCHEMA)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", default=os.path.join(repo, "..", "shared", "data"))
    parser.add_argument("--out", default=os.path.join(repo, "test", "fixtures", "hub"))
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    build_mmlu(args.shared, args.out)
    build_blimp(args.shared, args.out)
    build_superglue(args.shared, args.out)
    build_codecs(args.out)
    build_hostile(args.out)


if __name__ == "__main__":
    main()
