"""Builds the English text the DRAM probes feed a model (src/inspect/dram-text/): Wikipedia paragraphs, as the
NeurIPS'24 Edge-LLM kit measured memory on 2,000 tokens of Wikipedia text.

The paragraphs are BoolQ's validation passages (Clark et al., 2019), each an excerpt of one English Wikipedia
article; BoolQ is distributed under CC BY-SA 3.0, and so is Wikipedia's text. The first passages in file order are
taken, one per article, each at least MIN_CHARS long, until the text holds TARGET_CHARS: enough for 2,000 tokens
even from a byte-level tokenizer started anywhere in it. SOURCE.md beside the text names every article (the
attribution CC BY-SA asks for) and the licence.

Run: /work/pyenv/bin/python scripts/edge/build_dram_text.py [BoolQ val.jsonl]
     (default: ../shared/data/superglue/BoolQ/val.jsonl beside the worktree)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / 'src' / 'inspect' / 'dram-text'
DEFAULT_SOURCE = ROOT.parent / 'shared' / 'data' / 'superglue' / 'BoolQ' / 'val.jsonl'
MIN_CHARS = 600
TARGET_CHARS = 40_000


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SOURCE
    titles: list[str] = []
    paragraphs: list[str] = []
    total = 0
    for line in source.read_text(encoding='utf-8').splitlines():
        passage = json.loads(line)['passage']
        title, separator, text = passage.partition(' -- ')
        text = ' '.join(text.split())
        if not separator or title in titles or len(text) < MIN_CHARS:
            continue
        titles.append(title)
        paragraphs.append(text)
        total += len(text) + 1
        if total >= TARGET_CHARS:
            break
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / 'wikipedia-paragraphs.txt').write_text(''.join(f'{paragraph}\n' for paragraph in paragraphs), encoding='utf-8')
    listing = '\n'.join(f'{index + 1}. {title}' for index, title in enumerate(titles))
    (OUT / 'SOURCE.md').write_text(f"""# The DRAM probes' text

`wikipedia-paragraphs.txt` holds {len(paragraphs)} paragraphs of English Wikipedia, one per line ({total:,} characters),
as excerpted in the validation split of BoolQ (Clark et al., 2019, "BoolQ: Exploring the Surprising Difficulty of
Natural Yes/No Questions", https://github.com/google-research-datasets/boolean-questions). The DRAM measurement
tokenizes it with the model's tokenizer, so the probe input is real English text, of the kind (Wikipedia) the
NeurIPS'24 Edge-LLM kit measured memory on (docs/edge.md, "DRAM").

Licence: Creative Commons Attribution-ShareAlike 3.0 (https://creativecommons.org/licenses/by-sa/3.0/), the licence
of BoolQ and of Wikipedia's text. This text only is under that licence, not the rest of the package. The text is the
Wikipedia contributors' work; the paragraphs come from these articles, in order:

{listing}

Built by `scripts/edge/build_dram_text.py` (the first passage of each article in BoolQ's val.jsonl of at least
{MIN_CHARS} characters, whitespace collapsed, until {TARGET_CHARS:,} characters).
""", encoding='utf-8')
    print(f'{len(paragraphs)} paragraphs, {total} characters')


if __name__ == '__main__':
    main()
