#!/usr/bin/env python3
"""Records Python's str() of floats and booleans, the spelling lm-eval's sanitize_list gives the log-likelihoods
and greedy flags of a samples file, for test/text/python-repr.test.ts (src/text/python-repr.ts).

The values: the edges of repr's fixed/exponent switch (1e-4, 1e16), whole numbers, zeros, the extremes of the
double range, infinities, NaN, and log-likelihoods of the sizes a samples file holds. Each is written as
float.hex() (exact) beside its str().

Run from the repo root: /work/pyenv/bin/python scripts/lm_eval/record_float_repr.py
"""
import json
import math
import random
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "lm-eval" / "python-float-repr.json"

values = [0.0, -0.0, 1.0, -12.0, 0.5, 0.1, 1e-4, 9.999999999999999e-05, 1e-05, -1.2345e-07, 1e16, 9999999999999998.0,
          1.5e16, 1e22, 123456789012345.6, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -42.79022216796875,
          -2.2209064960479736, -497.7648010253906, -0.0001, -0.00012, 1e21, 1e-7, math.inf, -math.inf, math.nan]
rng = random.Random(27)
values += [-rng.uniform(0, 10) ** rng.uniform(-6, 3) for _ in range(60)]
cases = [{"hex": v.hex() if math.isfinite(v) else str(v), "str": str(v)} for v in values]
cases += [{"bool": b, "str": str(b)} for b in (True, False)]
OUT.write_text(json.dumps({"python": sys.version.split()[0], "cases": cases}, indent=1) + "\n", encoding="utf-8")
print(f"{len(cases)} cases written to {OUT}")
