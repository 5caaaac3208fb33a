"""Where the uncached build's CPU seconds go, beside what any reader of the same files must pay (issue 30, part 4:
"the build within 2x of decompress + newline scan in CPU-seconds").

    .venv/bin/python bench/profile_build.py [rounds]      # TREC-8 from ../shared/data/trec8 or EVALKIT_DATA

Not a `make bench` module (it has no peer and no target): it prints, for the 129 TREC-8 run files, medians over
``rounds`` passes (default 3) in one process, after one pass that warms the page cache and the allocator:

* the floor's parts, as ``bench_end_to_end``'s peer pays them (each file read, decompressed and scanned in turn, its
  memory reused for the next): ISA-L decompression, one numpy newline scan;
* what reading the fields costs with the readers at hand, each single-threaded, on the decompressed bytes:
  pyarrow's CSV reader as the kit calls it (:func:`evalkit.data.text_fields._read_delimited`) on the four columns the
  kit keeps (and on one column: the tokenizer's own cost), and the trec_eval command's numpy span reader (fields,
  scores, docno words);
* the build itself (``Collection.from_runs``, the default two threads): its process CPU seconds, and the thread CPU
  seconds of each step of :mod:`evalkit.data.build` (parsing, preparing and hashing the bands, placing); "the rest" is
  the process total minus those steps (the dictionaries' merge in the pool, the vocabulary, the collection's own
  checks and tables).

What it showed on 2026-11-27 (2 cores, idle) is in bench/README.md ("The build against its floor").
"""

from __future__ import annotations

import collections
import functools
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import median_time, trec8_dir


def _median_cpu(function, rounds: int) -> float:
    """CPU seconds of this process for one call, the median of ``rounds`` after one call that warms up."""
    return median_time(function, rounds, clock=time.process_time)


def main(rounds: int = 3) -> int:
    import numpy as np
    from isal import igzip

    from evalkit.data import build
    from evalkit.data.collection import Collection
    from evalkit.data.text_fields import _read_delimited as read_delimited
    from evalkit.trec_eval import reader

    data = trec8_dir()
    if data is None:
        print("no TREC-8 data (../shared/data/trec8 or EVALKIT_DATA): nothing to profile")
        return 1
    files = sorted((data / "runs").glob("input.*.gz"))
    qrels = data / "qrels.trec8.adhoc.txt"
    texts = [igzip.decompress(path.read_bytes()) for path in files]
    lines = sum(text.count(b"\n") for text in texts)
    print(f"TREC-8: {len(files)} run files, {sum(map(len, texts)) / 1e6:.0f} MB of text, {lines:,} lines; "
          f"CPU seconds, medians of {rounds} passes\n")

    def read_floor(scan: bool) -> None:  # as bench_end_to_end's peer: each file read, decompressed, scanned, let go
        for path in files:
            text = igzip.decompress(path.read_bytes())
            if scan:
                np.count_nonzero(np.frombuffer(text, np.uint8) == 10)

    decompress = _median_cpu(lambda: read_floor(False), rounds)
    rows = [("floor: read + ISA-L decompress, file by file", decompress),
            ("floor: + one newline scan (numpy)", _median_cpu(lambda: read_floor(True), rounds) - decompress)]

    def arrow(columns: tuple) -> None:  # the kit's own call of pyarrow's CSV reader (text_fields._read_delimited)
        skipped = tuple(i for i in range(6) if i not in columns)
        for text in texts:
            delimiter = "\t" if b"\t" in text[: text.find(b"\n")] else " "
            read_delimited(text, delimiter, 6, floats=(4,) if 4 in columns else (), skip=skipped)

    def spans() -> None:
        for text in texts:
            fields = reader.regular_fields(text, 6)
            reader.parse_floats(text, fields.raw, *fields.span(4))
            reader.padded_words(fields.raw, *fields.span(2))

    rows += [("pyarrow CSV reader (the kit's call), 4 columns", _median_cpu(lambda: arrow((0, 2, 4, 5)), rounds)),
             ("pyarrow CSV reader (the kit's call), the topic alone", _median_cpu(lambda: arrow((0,)), rounds)),
             ("numpy span reader (fields, scores, docno words)", _median_cpu(spans, rounds))]

    steps = collections.defaultdict(float)
    names = ["parse_run", "read_qrels", "_prepare_group", "_hash_bands", "_assemble_group", "_place_run"]
    originals = {name: getattr(build, name) for name in names}

    def timed(name, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                steps[name] += time.thread_time() - start
        return wrapper

    for name, function in originals.items():
        setattr(build, name, timed(name, function))
    try:
        Collection.from_runs(files, qrels)  # the first build: the allocator's pages
        totals, by_step = [], []
        for _ in range(rounds):
            steps.clear()
            start = time.process_time()
            Collection.from_runs(files, qrels)
            totals.append(time.process_time() - start)
            by_step.append(dict(steps))
    finally:
        for name, function in originals.items():
            setattr(build, name, function)
    total = statistics.median(totals)
    floor = rows[0][1] + rows[1][1]
    print(f"{'what':58s} {'CPU s':>7s}")
    for label, seconds in rows:
        print(f"{label:58s} {seconds:7.3f}")
    print(f"{'the floor (decompress + newline scan)':58s} {floor:7.3f}")
    print(f"{'the build, Collection.from_runs (process CPU)':58s} {total:7.3f}   {total / floor:.1f} times the floor")
    shown = 0.0
    for name in names:
        seconds = statistics.median(step.get(name, 0.0) for step in by_step)
        shown += seconds
        print(f"{'  ' + name + ' (thread CPU)':58s} {seconds:7.3f}")
    print(f"{'  the rest (merge in the pool, vocabulary, checks, tables)':58s} {total - shown:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 3))
