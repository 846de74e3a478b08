#!/usr/bin/env python3
"""Record numpy's summary of a few sample vectors, as MLRB's benchmarks compute it (np.mean, np.std,
np.median, np.min, np.max, np.percentile(x, 90) and np.percentile(x, 95), all with numpy's defaults), for
test/model-metrics/sample-statistics.test.ts to check src/model-metrics/sample-statistics.ts against.

  /work/pyenv/bin/python scripts/model_metrics/record_statistics_expectations.py
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "model-metrics" / "statistics-expectations.json"


def samples() -> dict[str, list[float]]:
    rng = np.random.default_rng(20240611)
    return {
        "single": [42.5],
        "two": [3.0, 1.0],
        "odd-with-ties": [5.0, 1.0, 5.0, 2.0, 9.0, 5.0, 0.5],
        "thirty-throughputs": [float(v) for v in rng.normal(240.0, 12.0, 30)],
        "ten-latencies-ms": [float(v) for v in rng.gamma(4.0, 150.0, 10)],
        "spread-magnitudes": [1e-3, 2.5e4, 17.0, 0.25, 3.3e2, 9.75e3, 1.0, 64.0],
    }


def summary(values: list[float]) -> dict[str, float]:
    x = np.asarray(values, dtype=np.float64)
    return {
        "mean": float(np.mean(x)), "std": float(np.std(x)), "median": float(np.median(x)),
        "min": float(np.min(x)), "max": float(np.max(x)),
        "p90": float(np.percentile(x, 90)), "p95": float(np.percentile(x, 95)),
    }


def main() -> None:
    cases = [{"name": name, "values": values, "expected": summary(values)} for name, values in samples().items()]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"numpy_version": np.__version__, "cases": cases}, indent=2) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
