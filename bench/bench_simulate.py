"""Simulator benchmark: generating the default simulated collection (the embedded dataset every fresh clone uses,
50 topics x 129 runs x 1000 documents, complete judgments) against reading TREC-8's runs of the same shape with
pandas.read_csv, which is what a user with the real data pays instead. Replaces the timed assertion that used to sit
in tests/test_simulate.py (speed is checked here, as a ratio, never by a timed test)."""

from __future__ import annotations

import os

from common import Result, load_note, median_time, paired, pandas_read_runs, trec8_dir


def run(repeat: int = 5) -> list[Result]:
    from evalkit.data.simulator import simulate_collection

    loads = [os.getloadavg()[0]]
    simulate_collection(n_topics=2, n_runs=3, depth=10)  # imports, as a notebook has paid them by this point
    folder = trec8_dir()
    if folder is None:
        ours = median_time(lambda: simulate_collection(), repeat, warmup=0)
        loads.append(os.getloadavg()[0])
        return [Result("simulate the default collection (129 runs x 50 topics x 1000)", ours, None, "-", "< 15 s",
                       ours < 15, f"TREC-8 absent: no peer; {load_note(loads)}")]
    files = sorted((folder / "runs").glob("input.*"))
    rounds = paired(lambda: simulate_collection(), lambda: pandas_read_runs(files), repeat)
    return [rounds.result("simulate the default collection (129 runs x 50 topics x 1000)",
                          "pandas.read_csv of TREC-8's 129 runs", ">= 0.5x", 0.5,
                          "simulate_collection() to the Collection; the peer: reading the 129 .gz files; imports "
                          "excluded", "generating the embedded dataset costs about what reading the real one does")]
