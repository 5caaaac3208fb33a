"""Benchmark helpers: paired, interleaved rounds of the kit and a peer (wall and CPU time of each), and a result row
with a ratio against the peer.

The protocol every ratio follows (bench/README.md, "Rules"; tests/test_bench_protocol.py keeps the code to it):

* the kit and its peer are timed in **paired rounds**, at least :data:`ROUNDS` of them, interleaved (ours, peer;
  then peer, ours: the order alternates, so neither side always runs on a cache the other warmed);
* the ratio is the **median of the rounds' ratios** (peer / ours within a round), so a round disturbed by other work
  on the machine moves no ratio; the seconds shown are the medians of each side;
* beside each side's wall time, its **CPU seconds** (every thread of the process; for a subprocess, its own user +
  system time), so a ratio that comes from a second core shows as such;
* each row says **what is inside its timer** and the **load average** while it ran.
"""

from __future__ import annotations

import math
import os
import resource
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

#: the fewest paired rounds behind any ratio
ROUNDS = 5


@dataclass
class Result:
    name: str
    ours: float  # seconds (median)
    peer: float | None  # seconds (median) of the peer, or None for an absolute target
    peer_name: str
    target: str
    met: bool | None = None
    note: str = ""
    ours_cpu: float | None = None  # CPU seconds (median) of the kit's side
    peer_cpu: float | None = None
    rounds: int | None = None  # paired rounds behind the ratio
    timer: str = ""  # what is inside the timer
    load: str = ""  # load average while the row was measured
    round_ratios: list = field(default_factory=list)  # peer / ours of each round

    def __post_init__(self):
        if self.peer is not None and not math.isnan(self.ours):  # a ratio: the protocol is not optional
            if self.rounds is None or self.rounds < ROUNDS or len(self.round_ratios) != self.rounds:
                raise ValueError(f"{self.name!r}: a ratio needs at least {ROUNDS} paired rounds")
            if not self.timer or self.ours_cpu is None or self.peer_cpu is None or not self.load:
                raise ValueError(f"{self.name!r}: a ratio row states its timer, both sides' CPU seconds and the load")

    @property
    def ratio(self) -> float | None:
        if self.peer is None:
            return None
        return statistics.median(self.round_ratios) if self.round_ratios else self.peer / self.ours


@dataclass
class Paired:
    """Paired rounds: each side's (wall, CPU) seconds per round, and the load average before and after each."""

    ours: list = field(default_factory=list)
    peer: list = field(default_factory=list)
    loads: list = field(default_factory=list)

    @property
    def rounds(self) -> int:
        return len(self.ours)

    def wall(self, side: str) -> float:
        return statistics.median(w for w, _ in getattr(self, side))

    def cpu(self, side: str) -> float:
        return statistics.median(c for _, c in getattr(self, side))

    @property
    def ratios(self) -> list[float]:
        return [p / o for (o, _), (p, _) in zip(self.ours, self.peer)]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def cpu_ratio(self) -> float:
        return statistics.median(p / o for (_, o), (_, p) in zip(self.ours, self.peer))

    def load(self) -> str:
        return load_note(self.loads)

    def spread(self) -> str:
        """'rounds: ours 1.02-1.10 s, peer 5.3-5.9 s, ratio 4.9-5.6x': the range behind each median."""
        def span(values, unit):
            return f"{min(values):.3g}-{max(values):.3g}{unit}"
        return (f"{self.rounds} rounds: ours {span([w for w, _ in self.ours], ' s')}, peer "
                f"{span([w for w, _ in self.peer], ' s')}, ratio {span(self.ratios, 'x')}; CPU ratio "
                f"{self.cpu_ratio:.1f}x")

    def result(self, name: str, peer_name: str, target: str, threshold: float | None, timer: str,
               note: str = "") -> Result:
        """The row: medians of each side, the median of the rounds' ratios, met when it reaches ``threshold`` (None:
        context, no target). A ratio met on wall time whose CPU-seconds ratio falls short says that it holds only
        while a second core is free."""
        ratio = self.ratio
        met = None if threshold is None else ratio >= threshold
        parts = [note, self.spread()]
        if threshold is not None and self.cpu_ratio < threshold <= ratio:
            parts.append(f"holds only on two idle cores: in CPU seconds the kit is {self.cpu_ratio:.1f}x "
                         "(the one-CPU row shows the rest)")
        return Result(name, self.wall("ours"), self.wall("peer"), peer_name, target, met,
                      "; ".join(x for x in parts if x), ours_cpu=self.cpu("ours"), peer_cpu=self.cpu("peer"),
                      rounds=self.rounds, timer=timer, load=self.load(), round_ratios=self.ratios)


class one_cpu:
    """``with one_cpu():`` this process (and the threads and processes it starts) on one CPU, as ``taskset -c 0``
    would run it; the affinity is restored afterwards."""

    def __enter__(self):
        self.saved = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(self.saved)})
        return self

    def __exit__(self, *exc):
        os.sched_setaffinity(0, self.saved)


def user_system_seconds(fn) -> tuple[float, float]:
    """The user and system CPU seconds of this process (every thread) during one ``fn()``."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    fn()
    after = resource.getrusage(resource.RUSAGE_SELF)
    return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def _timed(fn) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - started, time.process_time() - cpu


def paired(ours, peer, rounds: int = ROUNDS, warmup: bool = False) -> Paired:
    """``rounds`` paired rounds of two calls in this process, the order alternating round by round; CPU seconds
    are this process's (all its threads). ``warmup``: one untimed call of each first (only where the row says a
    one-time cost, such as numba compiling, is excluded)."""
    if warmup:
        ours(), peer()
    out = Paired(loads=[os.getloadavg()[0]])
    for i in range(max(rounds, ROUNDS)):
        if i % 2 == 0:
            out.ours.append(_timed(ours))
            out.peer.append(_timed(peer))
        else:
            out.peer.append(_timed(peer))
            out.ours.append(_timed(ours))
        out.loads.append(os.getloadavg()[0])
    return out


def run_process(command: list, env: dict | None = None, cpus: set | None = None) -> tuple[float, float, bytes]:
    """(wall seconds from outside, the child's own user + system CPU seconds, its standard output) of one process;
    ``cpus``: the CPUs it may run on. The child inherits them from this process, confined to them while it starts
    the child (as ``taskset`` does): a ``preexec_fn`` would make Python fork this whole bench process for every
    child instead of starting it with vfork, a cost charged to the child (the 129 trec_eval processes on one CPU
    took 15.7 s and 11.8 CPU-s that way, against 8.2 s unconfined)."""
    import tempfile

    saved = os.sched_getaffinity(0) if cpus else None
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        if cpus:
            os.sched_setaffinity(0, cpus)
        try:
            child = subprocess.Popen([str(c) for c in command], stdout=out, stderr=err, env=env)
        finally:
            if cpus:
                os.sched_setaffinity(0, saved)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read()
        if child.returncode != 0:
            raise RuntimeError(f"{command[0]} exited {child.returncode}: {err.read().decode(errors='replace')[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, text


def paired_processes(ours, peer, rounds: int = ROUNDS) -> tuple[Paired, bytes, bytes]:
    """Paired rounds of two callables that each start processes and return (wall, CPU, output) (see
    :func:`run_process`); the order alternates round by round. Returns the rounds and each side's last output."""
    out = Paired(loads=[os.getloadavg()[0]])
    mine = theirs = b""
    for i in range(max(rounds, ROUNDS)):
        order = (("ours", ours), ("peer", peer)) if i % 2 == 0 else (("peer", peer), ("ours", ours))
        for side, fn in order:
            wall, cpu, text = fn()
            getattr(out, side).append((wall, cpu))
            if side == "ours":
                mine = text
            else:
                theirs = text
        out.loads.append(os.getloadavg()[0])
    return out, mine, theirs


def median_time(fn, repeat: int = 5, warmup: int = 1, clock=time.perf_counter) -> float:
    """Median time of repeated calls, wall time by default (``clock=time.process_time``: this process's CPU
    seconds): for rows with an absolute target only (a ratio takes :func:`paired`)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        started = clock()
        fn()
        times.append(clock() - started)
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


def compile_kit() -> str:
    """The kit's modules compiled to bytecode, as ``pip install`` leaves an installed package (an editable install
    writes it on its first run, unless ``PYTHONDONTWRITEBYTECODE`` is set): rows that time a fresh process then
    time what a user's installed kit starts with. Returns the phrase the rows' notes carry."""
    import compileall

    import evalkit

    compileall.compile_dir(Path(evalkit.__file__).parent, quiet=1)
    return "the kit's modules compiled to bytecode first (as pip install leaves them)"
