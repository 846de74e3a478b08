"""Render a results JSON with lm-eval's own make_table (lm_eval 0.4.13, from the wheel in .xa/whl/).

Usage:
  PIP_INDEX_URL=file:///opt/pypi/simple /work/pyenv/bin/pip install --no-deps --target /tmp/lmeval .xa/whl/*.whl
  PYTHONPATH=/tmp/lmeval:scripts/gpu/stubs /work/pyenv/bin/python scripts/lm_eval/render_table.py RESULTS.json OUT.json

OUT.json records, for the `results` and (when present) `groups` tables, the header and the rows make_table
hands to pytablewriter's MarkdownTableWriter (its value_matrix), plus the Markdown itself when pytablewriter is
importable. The rows are what make_table decides (order, depth indentation, version, n-shot, formatted values);
pytablewriter only pads them into columns. pytablewriter is not on this machine's package mirrors, so when it
is missing a recording writer stands in for it and `markdown` is null: nothing in the rows comes from us.
It also records the fields make_table reads, so a test can check a regenerated results file without Python.
"""

import json
import sys
import types


def install_recording_writer():
    """A pytablewriter stand-in that keeps headers and value_matrix; make_table's dumps() then returns ''."""
    module = types.ModuleType("pytablewriter")

    class RecordingWriter:
        last = None

        def __init__(self):
            self.headers = []
            self.value_matrix = []
            RecordingWriter.last = self

        def dumps(self):
            return ""

    module.MarkdownTableWriter = RecordingWriter
    module.LatexTableWriter = type("LatexRecorder", (), {"__init__": lambda self: None})
    sys.modules["pytablewriter"] = module
    return RecordingWriter


def main(results_path, out_path):
    try:
        import pytablewriter  # noqa: F401

        recorder = None
    except ImportError:
        recorder = install_recording_writer()

    import pytablewriter as writers
    from lm_eval.utils import make_table

    with open(results_path, encoding="utf-8") as f:
        results = json.load(f)

    tables = {}
    for column in ("results", "groups"):
        if column not in results:
            continue
        captured = {}
        original = writers.MarkdownTableWriter

        class Capture(original):  # records what make_table hands the writer, real or not
            def dumps(self, *args, **kwargs):
                captured["headers"] = list(self.headers)
                captured["rows"] = [list(row) for row in self.value_matrix]
                return super().dumps(*args, **kwargs) if recorder is None else ""

        writers.MarkdownTableWriter = Capture
        try:
            markdown = make_table(results, column)
        finally:
            writers.MarkdownTableWriter = original
        tables[column] = {
            "headers": captured["headers"],
            "rows": captured["rows"],
            "markdown": markdown if recorder is None else None,
        }

    read = {key: results.get(key) for key in ("results", "groups", "group_subtasks", "versions", "n-shot", "higher_is_better") if key in results}
    record = {
        "lm_eval_version": "0.4.13",
        "pytablewriter": recorder is None,
        "tables": tables,
        "make_table_input": read,
    }
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
