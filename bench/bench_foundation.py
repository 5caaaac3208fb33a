"""Foundation benchmarks (issue: evalkit foundation): parsing TREC-8's runs and the peak memory of loading it. The
uncached build against pandas (rounds interleaved) and the cached reload (target < 0.2 s) are timed once, in
bench_end_to_end.py; the standard measures' benchmarks are in bench_evaluation.py."""

from __future__ import annotations

import subprocess
import sys

from common import Result, median_time, pandas_read_runs, trec8_dir


def run(repeat: int = 3) -> list[Result]:
    from evalkit.data.datasets import read_runs

    folder = trec8_dir()
    if folder is None:
        return [Result("TREC-8 benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    files = sorted((folder / "runs").glob("input.*"))
    results = []

    peer = median_time(lambda: pandas_read_runs(files), repeat)
    parse = median_time(lambda: read_runs(files), repeat)
    results.append(Result("parse 129 TREC-8 runs (.gz)", parse, peer, "pandas.read_csv", ">= 2x", peer / parse >= 2,
                          "evalkit.data.datasets.read_runs: unordered columns"))

    code = ("import resource, evalkit.data.datasets as d; from pathlib import Path; "
            f"c = d.load_directory(Path({str(folder)!r}), name='trec8', cache=False); "
            "print(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')))")  # KB; own peak
    peak_kb = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    results.append(Result("peak memory, loading all of TREC-8", peak_kb / 1024**2, None, "-", "< 2 GB",
                          peak_kb / 1024**2 < 2, f"{peak_kb / 1024:.0f} MB (the 'ours' column is GB here)"))
    return results
