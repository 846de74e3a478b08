"""Builds test/fixtures/tasks/gsm8k: a few hand-written grade-school maths problems in GSM8K's format (GSM8K is
MIT-licensed, but none of its rows is copied here), in both layouts mlrb-eval reads:
  release/{test,train}.jsonl                     openai/grade-school-math's grade_school_math/data/*.jsonl: one
                                                 {"question", "answer"} per line, the answer's worked steps with
                                                 <<calculator>> annotations and a final "#### <number>" line;
  hub/main/{test,train}-00000-of-00001.parquet   openai/gsm8k's `main` config: the same two string columns,
                                                 snappy-compressed as the hub's files are.
  bad-hub/main/test-00000-of-00001.parquet      a hub shard whose second row's answer lacks its "#### " line,
                                                 which the loader must refuse naming the shard and row.
The answers reach the edges of lm-eval's gsm8k filters and exact_match: thousands separators, a dollar sign, a
negative and a decimal answer. Train has seven rows, enough for a 5-shot random draw.

    /work/pyenv/bin/python scripts/data/build_gsm8k_fixtures.py [--out test/fixtures/tasks/gsm8k]
"""

import argparse
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

TEST = [
    ("A baker fills 12 trays with 8 rolls each. She sells 75 rolls. How many rolls are left?",
     "She baked 12 * 8 = <<12*8=96>>96 rolls.\nAfter selling, 96 - 75 = <<96-75=21>>21 rolls are left.\n#### 21"),
    ("A village pays $450 a month for street lights. How much does it pay in 3 years?",
     "3 years are 3 * 12 = <<3*12=36>>36 months.\nIt pays 36 * 450 = $<<36*450=16200>>16,200.\n#### 16,200"),
    ("The temperature was 4 degrees at noon and fell 11 degrees by midnight. What was it at midnight?",
     "At midnight it was 4 - 11 = <<4-11=-7>>-7 degrees.\n#### -7"),
    ("Three friends share a 7.5 kg bag of rice equally. How many kilograms does each get?",
     "Each gets 7.5 / 3 = <<7.5/3=2.5>>2.5 kg.\n#### 2.5"),
]

TRAIN = [
    ("Tom has 5 marbles and buys 3 bags of 4 marbles. How many marbles does he have?",
     "The bags hold 3 * 4 = <<3*4=12>>12 marbles.\nHe has 5 + 12 = <<5+12=17>>17 marbles.\n#### 17"),
    ("A train travels 60 miles an hour for 2.5 hours. How far does it go?",
     "It goes 60 * 2.5 = <<60*2.5=150>>150 miles.\n#### 150"),
    ("Ana saves $15 a week. How many weeks does she need to save $120?",
     "She needs 120 / 15 = <<120/15=8>>8 weeks.\n#### 8"),
    ("A garden has 4 rows of 9 tulips. Rabbits eat 7 of them. How many tulips are left?",
     "There were 4 * 9 = <<4*9=36>>36 tulips.\n36 - 7 = <<36-7=29>>29 are left.\n#### 29"),
    ("A shop sells pens at $2 each and notebooks at $3 each. What do 4 pens and 2 notebooks cost?",
     "Pens cost 4 * 2 = $<<4*2=8>>8.\nNotebooks cost 2 * 3 = $<<2*3=6>>6.\nTogether 8 + 6 = $<<8+6=14>>14.\n#### 14"),
    ("A school orders 25 boxes of 48 pencils. How many pencils is that?",
     "25 * 48 = <<25*48=1200>>1,200 pencils.\n#### 1,200"),
    ("Lena reads 18 pages a day. How many pages does she read in 2 weeks?",
     "2 weeks are 14 days.\nShe reads 18 * 14 = <<18*14=252>>252 pages.\n#### 252"),
]

SCHEMA = pa.schema([("question", pa.string()), ("answer", pa.string())])


def rows(pairs):
    return [{"question": question, "answer": answer} for question, answer in pairs]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="test/fixtures/tasks/gsm8k")
    args = parser.parse_args()
    release = os.path.join(args.out, "release")
    hub = os.path.join(args.out, "hub", "main")
    os.makedirs(release, exist_ok=True)
    os.makedirs(hub, exist_ok=True)
    for split, pairs in (("test", TEST), ("train", TRAIN)):
        with open(os.path.join(release, f"{split}.jsonl"), "w", encoding="utf-8") as handle:
            for row in rows(pairs):
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        table = pa.Table.from_pylist(rows(pairs), schema=SCHEMA)
        pq.write_table(table, os.path.join(hub, f"{split}-00000-of-00001.parquet"), compression="snappy")
    bad = os.path.join(args.out, "bad-hub", "main")
    os.makedirs(bad, exist_ok=True)
    bad_rows = rows(TEST[:1]) + [{"question": TEST[1][0], "answer": TEST[1][1].split("\n#### ")[0]}]
    pq.write_table(pa.Table.from_pylist(bad_rows, schema=SCHEMA), os.path.join(bad, "test-00000-of-00001.parquet"), compression="snappy")


if __name__ == "__main__":
    main()
