"""Trial executors (issue 15 item 4, "Dask that helps"): the Voorhees 2014 experiment on TREC-8, 50 trials, serial
against Dask on a 2-worker LocalCluster and against local processes, same numbers on each.

Each executor's time is what a user's call pays: ``run_experiment(gold, trials=50, scheduler=...)`` from a prepared
Gold, the cluster or process pool started and closed inside the call (worker start-up, imports in the workers and
sending the data included). For Dask that includes the forkserver evalkit's cluster starts (it imports Dask's worker,
pandas, scipy and evalkit's trial modules once for both workers) and stops before the call returns, so each Dask
row times a call that finds no forkserver running, as a user's first call does. The serial run is the peer of every
row. A last row runs the same call on a cluster started with Dask's defaults (``distributed.LocalCluster``: workers
with ``MALLOC_TRIM_THRESHOLD_=65536``), as a user who starts their own cluster would, the cluster's start-up excluded
there.

Each call runs in a fresh process that has loaded TREC-8 (cached) and prepared the Gold, as a user's script or
notebook has when it calls ``run_experiment``: the serial peer used to run in the bench process after a dozen other
suites, whose grown heap spared it every page fault (0 k against ~14 k a trial in a fresh process), a state no
user's call starts from.

Every executor is called once a round, in paired rounds (at least five, the order turning each round), and each
ratio is the median of its rounds' ratios against the serial call of the same round (a call disturbed by other work
on the machine then moves no ratio); every call's records are compared with the first serial call's.
``python bench/run.py parallel`` runs this module alone (about 5 minutes on 2 idle cores). Each row's note gives the
CPU seconds and minor page faults the call cost, in its process and in the processes it started (workers,
forkserver), beside the wall time: a ratio that falls short shows there whether the workers did more work or waited.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROUNDS, Paired, Result, trec8_dir

TRIALS = 50
WORKERS = 2


_CALL = """
import json, pickle, resource, sys, time
scheduler, trials, workers, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
import evalkit
from evalkit.papers import voorhees2014 as v
gold = v.prepare(evalkit.load_dataset("trec8"))


def usage():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime, own.ru_minflt + children.ru_minflt)


def call(on):
    cpu, faults = usage()
    started = time.perf_counter()
    result = v.run_experiment(gold, trials=trials, seed=v.DEFAULT_SEED, scheduler=on, n_jobs=workers)
    seconds = time.perf_counter() - started
    after = usage()
    return result, seconds, after[0] - cpu, after[1] - faults


if scheduler == "dask defaults":  # a user's own cluster: started before the call, its workers not reaped in it
    import distributed
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        result, seconds, cpu, faults = call("dask")
else:
    result, seconds, cpu, faults = call(scheduler)
with open(out, "wb") as file:
    pickle.dump({f: getattr(result, f) for f in ("sizes", "pairs", "r_hat", "correlation", "splits")}, file)
print(json.dumps({"seconds": seconds, "cpu": cpu, "faults": faults}))
"""


def _call(scheduler: str, trials: int, out: Path) -> dict:
    """One ``run_experiment`` call in a fresh process (TREC-8 loaded from the cache and the Gold prepared first)."""
    done = subprocess.run([sys.executable, "-c", _CALL, scheduler, str(trials), str(WORKERS), str(out)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cost_note(calls: list) -> str:
    cheapest = min(calls, key=lambda c: c["cpu"])
    return f"CPU {cheapest['cpu']:.1f} s, {cheapest['faults'] / 1000:.0f} k minor page faults"


def _same(a: dict, b: dict) -> bool:
    """The experiment's records equal (every per-trial frame)."""
    return all(a[f].equals(b[f]) for f in a)


def run(repeat: int = ROUNDS, trials: int = TRIALS) -> list[Result]:
    if trec8_dir() is None:
        return [Result("executor benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    import evalkit

    evalkit.load_dataset("trec8")  # the cache written once, so every call's process loads it as a user's would

    executors = ("serial", "dask", "local", "dask defaults")
    calls: dict = {name: [] for name in executors}
    serial_records, same = None, True  # every call's records against the first (serial) call's
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as scratch:
        for i in range(repeat):  # paired rounds: every executor once a round, the order turning round by round
            for name in executors[i % len(executors):] + executors[: i % len(executors)]:
                out = Path(scratch) / f"{name.replace(' ', '-')}.pkl"
                calls[name].append(_call(name, trials, out))
                with open(out, "rb") as file:
                    records = pickle.load(file)
                if serial_records is None:
                    serial_records = records
                else:
                    same = same and _same(serial_records, records)
            loads.append(os.getloadavg()[0])

    def pair(name: str) -> Paired:  # the executor's calls against the serial calls of the same rounds
        return Paired(ours=[(c["seconds"], c["cpu"]) for c in calls[name]],
                      peer=[(c["seconds"], c["cpu"]) for c in calls["serial"]], loads=loads)

    note = (f"{trials} trials x 6 strategies x 129 runs, each call in a fresh process; same numbers on every "
            f"executor: {same}; {len(os.sched_getaffinity(0))} CPUs: the ratio needs the second core free (a "
            "parallel executor on one CPU is the serial call plus its overhead)")
    peer = "run_experiment, scheduler='serial'"
    timer = ("the run_experiment call in a fresh process that loaded TREC-8 and prepared the Gold (CPU: the parent's "
             "and its workers')")
    serial_cost = f"; serial: {_cost_note(calls['serial'])}"
    dask = pair("dask").result(
        f"Voorhees 2014 on TREC-8, {trials} trials: Dask, {WORKERS}-worker LocalCluster started by the call", peer,
        ">= 1.7x", 1.7, timer + "; cluster start-up (forkserver, its imports, workers), scattering the data and "
        "closing included", f"{_cost_note(calls['dask'])}{serial_cost}; " + note)
    dask.met = dask.met and same
    return [
        dask,
        pair("local").result(f"the same on local processes ({WORKERS} workers)", peer, "(context)", None, timer,
                             f"{_cost_note(calls['local'])}{serial_cost}; " + note),
        pair("dask defaults").result(
            "the same on a cluster started with Dask's defaults (MALLOC_TRIM_THRESHOLD_=65536), start-up excluded",
            peer, "(context)", None, timer + "; the cluster started before the call",
            "what a user's own distributed.LocalCluster gives; use evalkit.parallel.local_dask_cluster instead"),
    ]
