"""Foundation benchmarks (issue: evalkit foundation): parsing TREC-8's runs and the peak memory of loading it. The
uncached build against pandas (rounds interleaved) and the cached reload (target < 0.2 s) are timed once, in
bench_end_to_end.py; the standard measures' benchmarks are in bench_evaluation.py."""

from __future__ import annotations

import subprocess
import sys

from common import Result, one_cpu, paired, pandas_read_runs, trec8_dir


def run() -> list[Result]:
    from evalkit.data.datasets import read_runs

    folder = trec8_dir()
    if folder is None:
        return [Result("TREC-8 benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    files = sorted((folder / "runs").glob("input.*"))
    results = []

    timer = "reading and parsing the 129 .gz files (decompression included) to columns; imports excluded"
    rounds = paired(lambda: read_runs(files), lambda: pandas_read_runs(files), warmup=True)  # warm: page cache
    results.append(rounds.result("parse 129 TREC-8 runs (.gz)", "pandas.read_csv", ">= 2x", 2, timer,
                                 "evalkit.data.datasets.read_runs: unordered columns"))
    with one_cpu():
        rounds = paired(lambda: read_runs(files), lambda: pandas_read_runs(files))
    results.append(rounds.result("the same on one CPU (both sides)", "pandas.read_csv", "(context)", None, timer))

    code = ("import resource, evalkit.data.datasets as d; from pathlib import Path; "
            f"c = d.load_directory(Path({str(folder)!r}), name='trec8', cache=False); "
            "print(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')))")  # KB; own peak
    peak_kb = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    results.append(Result("peak memory, loading all of TREC-8", peak_kb / 1024**2, None, "-", "< 2 GB",
                          peak_kb / 1024**2 < 2, f"{peak_kb / 1024:.0f} MB (the 'ours' column is GB here)"))
    return results
