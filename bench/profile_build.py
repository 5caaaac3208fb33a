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
* what this machine charges for fresh memory: 200 MB written right after 200 MB were let go, and again a few
  seconds later (on a virtual machine that reports free pages to its host, pages idle for about 2 s are taken back
  and dear to touch again);
* the build itself (``Collection.from_runs``, the default two threads), with the compiled reader
  (:mod:`evalkit.data.native_build`, when the install built it) and without it (``EVALKIT_NATIVE=0``, the pure-Python
  build): its process CPU seconds (user and system), and the thread CPU seconds of each step (the compiled reader:
  reading the files, inflating them piece by piece, reading each piece's lines (``Builder.feed``), then the
  Builder's other passes; the pure-Python build: parsing, preparing and hashing the bands, placing); "the rest" is
  the process total minus those steps.

What it showed on 2026-11-28 (2 cores, idle) is in bench/README.md ("The build against its floor").
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

from common import median_time, trec8_dir, user_system_seconds


def _median_cpu(function, rounds: int) -> float:
    """CPU seconds of this process for one call, the median of ``rounds`` after one call that warms up."""
    return median_time(function, rounds, clock=time.process_time)


def main(rounds: int = 3) -> int:
    import numpy as np
    from isal import igzip

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

    floor = rows[0][1] + rows[1][1]
    print(f"{'what':58s} {'CPU s':>7s}")
    for label, seconds in rows:
        print(f"{label:58s} {seconds:7.3f}")
    print(f"{'the floor (decompress + newline scan)':58s} {floor:7.3f}")

    _print_fresh_pages()

    from evalkit.data import native_build

    if native_build.available():
        _print_build("the build, compiled reader (process CPU)", _profile_build(files, qrels, rounds, native=True),
                     floor, "the rest (qrels, threads, the collection's checks and tables)")
    else:
        print("the compiled reader is not built (no C compiler at install): only the pure-Python build is profiled")
    _print_build("the build, pure Python (EVALKIT_NATIVE=0, process CPU)",
                 _profile_build(files, qrels, rounds, native=False), floor,
                 "the rest (merge in the pool, vocabulary, checks, tables)")
    return 0


def _print_fresh_pages(megabytes: int = 200, pause: float = 3.0) -> None:
    """What this machine charges for memory a build touches: ``megabytes`` allocated and written right after the
    same amount was let go, and again ``pause`` seconds after. On a virtual machine whose balloon device reports
    free pages to the host (``page_reporting``), pages free for about 2 seconds are given back and the next touch
    waits for the host: the build's system seconds then depend on what the process freed, and when."""
    import numpy as np

    def touch() -> float:
        start = time.process_time()
        block = np.empty(megabytes * 125_000, np.float64)
        block.fill(1.0)
        seconds = time.process_time() - start
        del block
        return seconds

    touch()
    at_once = statistics.median(touch() for _ in range(3))
    later = []
    for _ in range(2):
        time.sleep(pause)
        later.append(touch())
    print(f"{f'{megabytes} MB of fresh memory, written just after {megabytes} MB freed':58s} {at_once:7.3f}")
    print(f"{f'  the same, {pause:.0f} s later (the host may take pages back)':58s} {statistics.median(later):7.3f}")


def _print_build(label: str, steps: dict, floor: float, rest: str) -> None:
    """One build's lines: its process CPU against the floor, its user and system seconds, then each step (the
    thread CPU seconds of :func:`_profile_build`) and ``rest``, the process total minus the steps."""
    total, user, system = steps.pop("total"), steps.pop("user"), steps.pop("system")
    print(f"{label:58s} {total:7.3f}   {total / floor:.1f} times the floor")
    print(f"{'  of which user / system':58s} {user:7.3f} / {system:.3f}")
    for name, seconds in steps.items():
        print(f"{'  ' + name + ' (thread CPU)':58s} {seconds:7.3f}")
    print(f"{'  ' + rest:58s} {total - sum(steps.values()):7.3f}")


def _profile_build(files: list, qrels, rounds: int, native: bool) -> dict:
    """Medians over ``rounds`` builds (after one): the process CPU seconds of ``Collection.from_runs`` ("total";
    "user" and "system": its user and system seconds) and the thread CPU seconds of each step, with the compiled
    reader (its file reads and the Builder's passes) or without it (the pure-Python build's steps)."""
    import os

    from evalkit.data import build, native_build
    from evalkit.data.collection import Collection

    steps = collections.defaultdict(float)

    def timed(name, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                steps[name] += time.thread_time() - start
        return wrapper

    patches = []  # (owner, attribute, original)
    if native:
        compiled = native_build._native_runs.Builder
        inflater = native_build.IgzipDecompressor

        class Builder:  # the compiled Builder, each pass timed
            def __init__(self, *args):
                self._builder = compiled(*args)

            def __getattr__(self, name):
                return timed(f"Builder.{name}", getattr(self._builder, name))

        class Inflater:  # ISA-L's streaming inflater, each piece timed
            def __init__(self, *args):
                self._inflater = inflater(*args)
                self.decompress = timed("inflate (ISA-L, piece by piece)", self._inflater.decompress)

            def __getattr__(self, name):
                return getattr(self._inflater, name)

        patches += [(native_build._native_runs, "Builder", compiled), (native_build, "IgzipDecompressor", inflater),
                    (native_build, "_raw_bytes", native_build._raw_bytes)]
        names = ["read the files (_raw_bytes)", "inflate (ISA-L, piece by piece)", "Builder.feed", "Builder.finish",
                 "Builder.encode", "Builder.vocabulary", "Builder.place", "Builder.release"]
        native_build._raw_bytes = timed(names[0], native_build._raw_bytes)
        native_build._native_runs.Builder = Builder
        native_build.IgzipDecompressor = Inflater
    else:
        names = ["parse_run", "read_qrels", "_prepare_group", "_hash_bands", "_assemble_group", "_place_run"]
        for name in names:
            patches.append((build, name, getattr(build, name)))
            setattr(build, name, timed(name, getattr(build, name)))
    saved = os.environ.get("EVALKIT_NATIVE")
    os.environ["EVALKIT_NATIVE"] = "1" if native else "0"
    try:
        Collection.from_runs(files, qrels)  # the first build: the allocator's pages
        totals, by_step, split = [], [], []
        for _ in range(rounds):
            steps.clear()
            start = time.process_time()
            split.append(user_system_seconds(lambda: Collection.from_runs(files, qrels)))
            totals.append(time.process_time() - start)
            by_step.append(dict(steps))
    finally:
        for owner, attribute, original in patches:
            setattr(owner, attribute, original)
        if saved is None:
            os.environ.pop("EVALKIT_NATIVE", None)
        else:
            os.environ["EVALKIT_NATIVE"] = saved
    result = {name: statistics.median(step.get(name, 0.0) for step in by_step) for name in names}
    result["total"] = statistics.median(totals)
    result["user"], result["system"] = (statistics.median(part) for part in zip(*split))
    return result


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 3))
