"""Foundation benchmarks (issue: evalkit foundation): loading TREC-8 and its peak memory. The standard measures'
benchmarks are in bench_evaluation.py."""

from __future__ import annotations

import subprocess
import sys
import tempfile

from common import Result, median_time, trec8_dir


def _pandas_peer(files):
    import pandas as pd

    return [pd.read_csv(f, sep=r"\s+", header=None, names=["topic", "q0", "docno", "rank", "score", "tag"])
            for f in files]


def run(repeat: int = 3) -> list[Result]:

    from evalkit.collection import Collection
    from evalkit.datasets import load_directory, read_runs
    from evalkit.io import read_qrels

    folder = trec8_dir()
    if folder is None:
        return [Result("TREC-8 benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    files = sorted((folder / "runs").glob("input.*"))
    qrels_file = folder / "qrels.trec8.adhoc.txt"
    results = []

    peer = median_time(lambda: _pandas_peer(files), repeat)
    parse = median_time(lambda: read_runs(files), repeat)
    results.append(Result("parse 129 TREC-8 runs (.gz)", parse, peer, "pandas.read_csv", ">= 2x", peer / parse >= 2,
                          "evalkit.datasets.read_runs: unordered columns"))
    qrels = read_qrels(qrels_file)
    full = median_time(lambda: Collection.from_runs(read_runs(files), qrels, "trec8"), repeat)
    results.append(Result("load TREC-8 into a Collection (uncached)", full, peer, "pandas.read_csv", ">= 2x",
                          peer / full >= 2, "parse + vocabulary + trec_eval order + dense arrays"))

    with tempfile.TemporaryDirectory() as cache:
        import os

        os.environ["EVALKIT_CACHE"] = cache
        load_directory(folder, name="trec8")
        reload = median_time(lambda: load_directory(folder, name="trec8"), repeat)
    results.append(Result("cached reload of TREC-8", reload, None, "-", "< 0.5 s", reload < 0.5))

    code = ("import resource, evalkit.datasets as d; from pathlib import Path; "
            f"c = d.load_directory(Path({str(folder)!r}), name='trec8', cache=False); "
            "print(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')))")  # KB; own peak
    peak_kb = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    results.append(Result("peak memory, loading all of TREC-8", peak_kb / 1024**2, None, "-", "< 2 GB",
                          peak_kb / 1024**2 < 2, f"{peak_kb / 1024:.0f} MB (the 'ours' column is GB here)"))
    return results
