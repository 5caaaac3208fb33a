"""From files, as users meet it (issue 15 items 2 and 3): scores straight from the TREC-8 files, and the uncached
Collection build.

* **End to end**: ``evalkit.evaluate(qrels file, the 129 TREC-8 .gz run files, 5 measures)`` to the per-topic
  DataFrame, against what a user does without the kit: ``pandas.read_csv`` of each file, the
  ``{topic: {docno: score}}`` dicts, ``pytrec_eval.RelevanceEvaluator.evaluate`` per run (AP, P@10, nDCG@100,
  Rprec, bpref), a DataFrame of the rows. Each side runs in a fresh subprocess (nothing warmed: no cache, no
  parsed file, no compiled code from the other side), rounds interleaved (ours, peer, ours, peer); the time is the
  call's, imports excluded on both sides; the peak memory is the subprocess's own ``VmHWM`` (imports included).
  The two tables are compared value for value.
* **Uncached build**: ``Collection.from_runs(the 129 run files, the qrels file)`` (what ``load_dataset("trec8")``
  does without its cache, before deriving the judged runs: the files are parsed inside the build's threads) against
  ``pandas.read_csv`` of the same 129 files, in one process, rounds interleaved; ``load_directory(cache=False)``
  (judged runs derived too) in the note. A context row times each side's first call in a fresh process (imports
  excluded), as a script or notebook that builds once meets it: fresh memory on both sides.
* **Cached reload** of TREC-8: a second ``load_directory``, the SHA-256 content key over the sources and the CRC-32
  check of every cache file included (the cache is a fresh temporary folder, written once before the timed calls,
  as a user's first load writes it).

``python bench/run.py end_to_end`` runs this module alone (about 2 minutes on an idle 2-core machine; the peer's
rounds dominate).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import Result, load_note, median_time, pandas_read_runs, trec8_dir

MEASURES = ["AP", "P@10", "nDCG@100", "Rprec", "Bpref"]
TREC_EVAL = {"AP": "map", "P@10": "P_10", "nDCG@100": "ndcg_cut_100", "Rprec": "Rprec", "Bpref": "bpref"}

_SIDE = """
import json, resource, sys, time
from pathlib import Path
side, folder, out = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
files = sorted((folder / "runs").glob("input.*"))
qrels_file = folder / "qrels.trec8.adhoc.txt"
MEASURES, TREC_EVAL = {measures!r}, {trec_eval!r}
import numpy as np, pandas as pd
if side == "ours":
    import evalkit
    started = time.perf_counter()
    frame = evalkit.evaluate(qrels_file, files, MEASURES, ties="float32")  # pytrec_eval's tie rule, to compare
    seconds = time.perf_counter() - started
else:
    import pytrec_eval
    started = time.perf_counter()
    q = pd.read_csv(qrels_file, sep=r"\\s+", header=None, names=["topic", "iter", "docno", "rel"],
                    dtype={{"topic": str, "docno": str}})
    qrels = {{}}
    for t, d, r in zip(q["topic"], q["docno"], q["rel"]):
        qrels.setdefault(t, {{}})[d] = int(r)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_EVAL.values()))
    rows = []
    for f in files:
        run = pd.read_csv(f, sep=r"\\s+", header=None, names=["topic", "q0", "docno", "rank", "score", "tag"],
                          dtype={{"topic": str, "docno": str, "tag": str}})
        per_topic = {{}}
        for t, d, s in zip(run["topic"], run["docno"], run["score"]):
            per_topic.setdefault(t, {{}})[d] = float(s)
        for topic, values in evaluator.evaluate(per_topic).items():
            for ours, theirs in TREC_EVAL.items():
                rows.append((run["tag"].iloc[0], topic, ours, values[theirs]))
    frame = pd.DataFrame(rows, columns=["run", "topic", "measure", "value"])
    seconds = time.perf_counter() - started
# VmHWM, this process image's own high-water mark: ru_maxrss would carry over the forking parent's (Linux keeps
# it across exec), so a child of a big bench process reported the parent's peak on both sides
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")) * 1024
frame.to_pickle(out)
print(json.dumps({{"seconds": seconds, "peak": peak, "rows": len(frame)}}))
"""


def _side(side: str, folder: Path, out: Path) -> dict:
    code = _SIDE.format(measures=MEASURES, trec_eval=TREC_EVAL)
    done = subprocess.run([sys.executable, "-c", code, side, str(folder), str(out)], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


_FIRST_CALL = """
import sys, time
from pathlib import Path
side, folder = sys.argv[1], Path(sys.argv[2])
files = sorted((folder / "runs").glob("input.*"))
import pandas as pd
if side == "ours":
    from evalkit.data.collection import Collection
    started = time.perf_counter()
    Collection.from_runs(files, folder / "qrels.trec8.adhoc.txt", "trec8")
else:
    started = time.perf_counter()
    [pd.read_csv(f, sep=r"\\s+", header=None, names=["topic", "q0", "docno", "rank", "score", "tag"]) for f in files]
print(time.perf_counter() - started)
"""


def _first_call(side: str, folder: Path) -> float:
    """Seconds of one side's first call in a fresh process, imports excluded."""
    done = subprocess.run([sys.executable, "-c", _FIRST_CALL, side, str(folder)], capture_output=True, text=True,
                          check=True)
    return float(done.stdout.strip().splitlines()[-1])


def _rounds(seconds: list[float]) -> str:
    return ", ".join(f"{s:.2f}" for s in seconds)


def run(rounds: int = 2, repeat: int = 3, build_repeat: int = 5) -> list[Result]:
    import pandas as pd

    folder = trec8_dir()
    if folder is None:
        return [Result("end-to-end benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    files = sorted((folder / "runs").glob("input.*"))
    qrels_file = folder / "qrels.trec8.adhoc.txt"
    results = []

    # ---- end to end, each side in a fresh process, rounds interleaved
    loads = [os.getloadavg()[0]]
    ours, peer = [], []
    with tempfile.TemporaryDirectory() as scratch:
        ours_out, peer_out = Path(scratch) / "ours.pkl", Path(scratch) / "peer.pkl"
        for _ in range(rounds):
            ours.append(_side("ours", folder, ours_out))
            peer.append(_side("peer", folder, peer_out))
            loads.append(os.getloadavg()[0])
        mine, theirs = pd.read_pickle(ours_out), pd.read_pickle(peer_out)
    mine = mine[mine["topic"] != "all"]
    joined = mine.merge(theirs, on=["run", "topic", "measure"], how="outer", suffixes=("_ours", "_peer"))
    worst = float((joined["value_ours"] - joined["value_peer"]).abs().max())
    unmatched = int(joined[["value_ours", "value_peer"]].isna().any(axis=1).sum())
    ours_t = statistics.median(r["seconds"] for r in ours)
    peer_t = statistics.median(r["seconds"] for r in peer)
    ours_peak = max(r["peak"] for r in ours) / 1e9
    peer_peak = max(r["peak"] for r in peer) / 1e9
    results.append(Result(
        "evaluate(qrels file, 129 TREC-8 .gz files): AP, P@10, nDCG@100, Rprec, bpref per topic", ours_t, peer_t,
        "pandas.read_csv + pytrec_eval (dicts, evaluate per run, DataFrame)", ">= 5x", peer_t / ours_t >= 5,
        f"each side a fresh subprocess, imports excluded, medians of {rounds} interleaved rounds "
        f"(ours {_rounds([r['seconds'] for r in ours])} s; peer {_rounds([r['seconds'] for r in peer])} s); "
        f"{len(joined)} per-topic values, largest difference {worst:.1e}, {unmatched} without a partner; "
        f"{load_note(loads)}"))
    results.append(Result(
        "peak memory of that call (GB, fresh process, imports included)", ours_peak, None, "-", "<= 0.5 GB",
        ours_peak <= 0.5,
        f"the 'ours' column is GB: VmHWM {ours_peak * 1e3:.0f} MB (pandas + pytrec_eval: {peer_peak * 1e3:.0f} MB); "
        "runs read, built and scored 32 at a time (evalkit.measures.evaluation.RUNS_PER_BLOCK)"))

    # ---- uncached build against pandas.read_csv, one process, rounds interleaved
    from evalkit.data.collection import Collection
    from evalkit.data.datasets import load_directory

    def build():  # what load_directory does without its cache: files parsed inside the build's threads
        return Collection.from_runs(files, qrels_file, "trec8")

    loads = [os.getloadavg()[0]]
    build_times, peer_times, load_times = [], [], []
    pandas_read_runs(files)  # the files in the page cache for both sides
    for _ in range(build_repeat):  # more rounds than elsewhere: one round disturbed by other work moves no median
        peer_times.append(median_time(lambda: pandas_read_runs(files), 1, warmup=0))
        build_times.append(median_time(build, 1, warmup=0))
        load_times.append(median_time(lambda: load_directory(folder, name="trec8", cache=False), 1, warmup=0))
        loads.append(os.getloadavg()[0])
    build_t, peer_t, load_t = (statistics.median(x) for x in (build_times, peer_times, load_times))
    results.append(Result(
        "uncached build of TREC-8: Collection.from_runs(129 run files, qrels file)", build_t, peer_t,
        "pandas.read_csv (129 files)", ">= 2x", peer_t / build_t >= 2,
        f"medians of {build_repeat} interleaved rounds in one process (rounds {_rounds(build_times)} s; peer "
        f"{_rounds(peer_times)} s); threads: {os.cpu_count()} (files parsed, each group of runs encoded band by band "
        f"of topics as soon as it is parsed, ordering and placing per run); load_directory(cache=False), judged runs derived too: "
        f"{load_t:.2f} s ({peer_t / load_t:.1f}x); {load_note(loads)}"))

    # ---- the same, each side's first call in a fresh process (a user's build happens once a process)
    loads = [os.getloadavg()[0]]
    first_ours, first_peer = [], []
    for _ in range(repeat):
        first_ours.append(_first_call("ours", folder))
        first_peer.append(_first_call("peer", folder))
        loads.append(os.getloadavg()[0])
    ours_first, peer_first = statistics.median(first_ours), statistics.median(first_peer)
    results.append(Result(
        "the same, each side's first call in a fresh process", ours_first, peer_first,
        "pandas.read_csv (129 files)", "(context)", None,
        f"medians of {repeat} interleaved rounds, imports excluded (ours {_rounds(first_ours)} s; peer "
        f"{_rounds(first_peer)} s): what a script or notebook that builds once meets, fresh memory on both "
        f"sides; {load_note(loads)}"))

    # ---- cached reload
    from evalkit.data.cache import content_key

    sources = files + [qrels_file, folder / "runs_table.tsv"]
    loads = [os.getloadavg()[0]]
    saved = os.environ.get("EVALKIT_CACHE")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["EVALKIT_CACHE"] = cache
        try:
            load_directory(folder, name="trec8")  # a user's first load writes the cache
            reload = median_time(lambda: load_directory(folder, name="trec8"), repeat, warmup=0)
            digest = median_time(lambda: content_key(sources, folder, {"name": "trec8"}), repeat, warmup=0)
        finally:
            if saved is None:
                os.environ.pop("EVALKIT_CACHE", None)
            else:
                os.environ["EVALKIT_CACHE"] = saved
    loads.append(os.getloadavg()[0])
    results.append(Result(
        "cached reload of TREC-8 (content key + CRC-32 checks)", reload, None, "-", "< 0.2 s", reload < 0.2,
        f"SHA-256 content key over {sum(p.stat().st_size for p in sources) / 1e6:.0f} MB of sources: {digest:.3f} s; "
        f"{load_note(loads)}"))
    return results
