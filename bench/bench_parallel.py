"""Trial executors (issue 15 item 4, "Dask that helps"): the Voorhees 2014 experiment on TREC-8, 50 trials, serial
against Dask on a 2-worker LocalCluster and against local processes, same numbers on each.

Each executor's time is what a user's call pays: ``run_experiment(gold, trials=50, scheduler=...)`` from a prepared
Gold, the cluster or process pool started and closed inside the call (worker start-up, imports in the workers and
sending the data included). For Dask that includes the forkserver evalkit's cluster starts (it imports Dask's worker,
pandas, scipy and evalkit's trial modules once for both workers) and stops before the call returns, so each Dask
row times a call that finds no forkserver running, as a user's first call does. The serial run is the peer of every row. A last row runs the same call on a cluster
started with Dask's defaults (``distributed.LocalCluster``: workers with ``MALLOC_TRIM_THRESHOLD_=65536``), as a user
who starts their own cluster would, the cluster's start-up excluded there.

``python bench/run.py parallel`` runs this module alone (about 1.5 minutes on 2 idle cores). Each row's note gives
the CPU seconds and minor page faults the call cost, in this process and in the processes it started (workers,
forkserver), beside the wall time: a ratio that falls short shows there whether the workers did more work or waited.
"""

from __future__ import annotations

import os
import resource
import time

from common import Result, load_note, trec8_dir

TRIALS = 50
WORKERS = 2


def _usage() -> tuple[float, int]:
    """CPU seconds and minor page faults of this process and its reaped descendants so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    return cpu, own.ru_minflt + children.ru_minflt


def _timed(fn, costs: list | None = None):
    """Wall seconds of ``fn()`` and its value; appends (CPU seconds, minor faults) of the call to ``costs``."""
    cpu, faults = _usage()
    started = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - started
    if costs is not None:
        after = _usage()
        costs.append((after[0] - cpu, after[1] - faults))
    return seconds, value


def _cost_note(costs: list) -> str:
    cpu, faults = min(costs)
    return f"CPU {cpu:.1f} s, {faults / 1000:.0f} k minor page faults"


def _same(a, b) -> bool:
    """The experiment's records equal (every per-trial frame)."""
    frames = ("sizes", "pairs", "r_hat", "correlation", "splits")
    return all(getattr(a, f).equals(getattr(b, f)) for f in frames)


def run(repeat: int = 1, trials: int = TRIALS) -> list[Result]:
    import distributed

    import evalkit
    from evalkit.experiments import voorhees2014 as v

    if trec8_dir() is None:
        return [Result("executor benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    collection = evalkit.load_dataset("trec8")
    gold = v.prepare(collection)
    seed = v.DEFAULT_SEED

    def experiment(scheduler):
        return lambda: v.run_experiment(gold, trials=trials, seed=seed, scheduler=scheduler, n_jobs=WORKERS)

    def dask_defaults():
        with distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster):
            return _timed(experiment("dask"))

    times = {"serial": [], "dask": [], "local": [], "dask defaults": []}
    costs = {"serial": [], "dask": [], "local": []}  # the cluster with Dask's defaults outlives its call: not counted
    loads = [os.getloadavg()[0]]
    for _ in range(repeat):  # interleaved, so a change in the machine's load hits every executor alike
        seconds, serial = _timed(experiment("serial"), costs["serial"])
        times["serial"].append(seconds)
        seconds, on_dask = _timed(experiment("dask"), costs["dask"])
        times["dask"].append(seconds)
        seconds, local = _timed(experiment("local"), costs["local"])
        times["local"].append(seconds)
        seconds, defaults = dask_defaults()
        times["dask defaults"].append(seconds)
        loads.append(os.getloadavg()[0])
    same = _same(serial, on_dask) and _same(serial, local) and _same(serial, defaults)
    best = {k: min(t) for k, t in times.items()}
    note = (f"{trials} trials x 6 strategies x 129 runs; same numbers on every executor: {same}; "
            f"{os.cpu_count()} CPUs; {load_note(loads)}; best of {repeat}")
    peer = "run_experiment, scheduler='serial'"
    serial_cost = f"; serial: {_cost_note(costs['serial'])}"
    return [
        Result(f"Voorhees 2014 on TREC-8, {trials} trials: Dask, {WORKERS}-worker LocalCluster started by the call",
               best["dask"], best["serial"], peer, ">= 1.7x", same and best["serial"] / best["dask"] >= 1.7,
               "cluster start-up (forkserver, its imports, workers), scattering the data and closing included; "
               f"{_cost_note(costs['dask'])}{serial_cost}; " + note),
        Result(f"the same on local processes ({WORKERS} workers)", best["local"], best["serial"], peer, "(context)", None,
               f"{_cost_note(costs['local'])}{serial_cost}; " + note),
        Result(f"the same on a cluster started with Dask's defaults (MALLOC_TRIM_THRESHOLD_=65536), start-up excluded",
               best["dask defaults"], best["serial"], peer, "(context)", None,
               "what a user's own distributed.LocalCluster gives; use evalkit.parallel.local_dask_cluster instead"),
    ]
