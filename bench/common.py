"""Benchmark helpers: median wall time of repeated calls, and a result row with a ratio against a peer.

Every benchmark times the kit and a peer in the same process and the same run, so the ratio holds when the
machine's speed drifts; absolute seconds are reported for context only.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass


@dataclass
class Result:
    name: str
    ours: float  # seconds (median)
    peer: float | None  # seconds (median) of the peer, or None for an absolute target
    peer_name: str
    target: str
    met: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return None if self.peer is None else self.peer / self.ours


def median_time(fn, repeat: int = 5, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def trec8_dir():
    from evalkit.data.datasets import data_root

    root = data_root()
    return None if root is None or not (root / "trec8").is_dir() else root / "trec8"


def load_note(loads) -> str:
    """'load average 1.2-3.4' (1-minute load averages sampled before, between and after the timed calls): how
    busy the machine was, since other work on it slows every timing (the ratios less so)."""
    loads = [float(x) for x in loads]
    low, high = min(loads), max(loads)
    return f"load average {low:.1f}" if abs(high - low) < 0.05 else f"load average {low:.1f}-{high:.1f}"


def pandas_read_runs(files):
    """The peer for reading run files: ``pandas.read_csv`` of each, whitespace-separated, six named columns (what a
    user without the kit writes)."""
    import pandas as pd

    return [pd.read_csv(f, sep=r"\s+", header=None, names=["topic", "q0", "docno", "rank", "score", "tag"])
            for f in files]
