"""From files, as users meet it (issue 15 items 2 and 3): scores straight from the TREC-8 files, and the uncached
Collection build.

* **End to end**: ``evalkit.evaluate(qrels file, the 129 TREC-8 .gz run files, 5 measures)`` to the per-topic
  DataFrame, against what a competent user does without the kit: ``pandas.read_csv`` of each file, the
  ``{topic: {docno: score}}`` dicts from the columns' ``.tolist()`` (iterating pandas Series is 6x slower with
  pandas 3's string columns), ``pytrec_eval.RelevanceEvaluator.evaluate`` per run (AP, P@10, nDCG@100, Rprec,
  bpref), a DataFrame of the rows. Each side runs in a fresh subprocess (nothing warmed: no cache, no parsed file,
  no compiled code from the other side), paired rounds interleaved; the time is the call's, imports excluded on
  both sides (wall and CPU seconds of the call, measured inside the subprocess); the peak memory is the
  subprocess's own ``VmHWM`` (imports included). The two tables are compared value for value. Then the same with
  each subprocess on one CPU (the kit parses and builds in threads).
* **First result in a fresh process**: one run file and the qrels, five measures, the whole process timed from
  outside (start-up and imports included): ``evalkit.evaluate(..., as_frame=False)`` to its ScoreTable against
  dicts read in plain Python and ``pytrec_eval`` (target: ours sooner); a context row to evaluate()'s DataFrame.
* **Uncached build**: ``Collection.from_runs(the 129 run files, the qrels file)`` (what ``load_dataset("trec8")``
  does without its cache, before deriving the judged runs: the files are parsed inside the build's threads, by the
  compiled reader when the install built it, the note says which) against
  ``pandas.read_csv`` of the same 129 files, in one process, paired rounds interleaved, and again with the process
  on one CPU; ``load_directory(cache=False)`` (judged runs derived too) in the note. Its CPU seconds against the
  floor of any reader, decompressing the 129 files and finding their line ends (target: within 2x), with the user
  and system seconds of each side. Two context rows time each side's first call in a fresh process (imports
  excluded), the build against the floor and against ``pandas.read_csv``, as a script or notebook that builds once
  meets it: fresh memory on both sides (dear on this virtual machine, whose host takes back pages left free for 2 s:
  bench/README.md).
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

from common import (ROUNDS, Paired, Result, load_note, median_time, one_cpu, paired, pandas_read_runs, trec8_dir,
                    user_system_seconds)

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
    started, cpu = time.perf_counter(), time.process_time()
    frame = evalkit.evaluate(qrels_file, files, MEASURES, ties="float32")  # pytrec_eval's tie rule, to compare
else:
    import pytrec_eval
    started, cpu = time.perf_counter(), time.process_time()
    q = pd.read_csv(qrels_file, sep=r"\\s+", header=None, names=["topic", "iter", "docno", "rel"],
                    dtype={{"topic": str, "docno": str}})
    qrels = {{}}
    for t, d, r in zip(q["topic"].tolist(), q["docno"].tolist(), q["rel"].tolist()):
        qrels.setdefault(t, {{}})[d] = r
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_EVAL.values()))
    rows = []
    for f in files:
        run = pd.read_csv(f, sep=r"\\s+", header=None, names=["topic", "q0", "docno", "rank", "score", "tag"],
                          dtype={{"topic": str, "docno": str, "tag": str}})
        per_topic = {{}}
        for t, d, s in zip(run["topic"].tolist(), run["docno"].tolist(), run["score"].tolist()):
            per_topic.setdefault(t, {{}})[d] = s
        for topic, values in evaluator.evaluate(per_topic).items():
            for ours, theirs in TREC_EVAL.items():
                rows.append((run["tag"].iloc[0], topic, ours, values[theirs]))
    frame = pd.DataFrame(rows, columns=["run", "topic", "measure", "value"])
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
# VmHWM, this process image's own high-water mark: ru_maxrss would carry over the forking parent's (Linux keeps
# it across exec), so a child of a big bench process reported the parent's peak on both sides
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")) * 1024
frame.to_pickle(out)
print(json.dumps({{"seconds": seconds, "cpu": cpu, "peak": peak, "rows": len(frame)}}))
"""


def _reader_words() -> str:
    """Which build the rows time: the compiled reader when the install built it (evalkit.data.native_build), else the
    pure-Python build."""
    from evalkit.data import native_build

    if native_build.enabled():
        return ("the compiled reader (evalkit.data.native_build: files read and parsed in the threads, docnos hashed "
                "topic by topic, runs placed in the threads)")
    return ("the pure-Python build (the compiled reader is not built or EVALKIT_NATIVE=0: files parsed, each group of "
            "runs encoded band by band of topics as soon as it is parsed, ordering and placing per run)")


def _side(side: str, folder: Path, out: Path, cpus: set | None = None) -> dict:
    code = _SIDE.format(measures=MEASURES, trec_eval=TREC_EVAL)
    done = subprocess.run([sys.executable, "-c", code, side, str(folder), str(out)], capture_output=True, text=True,
                          check=True, preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
    return json.loads(done.stdout.strip().splitlines()[-1])


_FIRST_RESULT = {
    "ours": """
import sys
import evalkit
table = evalkit.evaluate(sys.argv[1], sys.argv[2:], {measures!r}, ties="float32", as_frame=False)
""",
    "ours_frame": """
import sys
import evalkit
frame = evalkit.evaluate(sys.argv[1], sys.argv[2:], {measures!r}, ties="float32")
""",
    "peer": """
import gzip, sys
import pytrec_eval
qrels = {{}}
with open(sys.argv[1]) as handle:
    for line in handle:
        topic, _, docno, grade = line.split()
        qrels.setdefault(topic, {{}})[docno] = int(grade)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, {trec_eval!r})
for path in sys.argv[2:]:
    run = {{}}
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as handle:
        for line in handle:
            topic, _, docno, _, score = line.split()[:5]
            run.setdefault(topic, {{}})[docno] = float(score)
    values = evaluator.evaluate(run)
""",
}


_FIRST_CALL = """
import resource, sys, time
from pathlib import Path
side, folder = sys.argv[1], Path(sys.argv[2])
files = sorted((folder / "runs").glob("input.*"))
import numpy as np, pandas as pd
if side == "ours":
    from evalkit.data.collection import Collection
    call = lambda: Collection.from_runs(files, folder / "qrels.trec8.adhoc.txt", "trec8")
elif side == "floor":
    from isal import igzip
    call = lambda: [np.count_nonzero(np.frombuffer(igzip.decompress(f.read_bytes()), np.uint8) == 10) for f in files]
else:
    call = lambda: [pd.read_csv(f, sep=r"\\s+", header=None, names=["topic", "q0", "docno", "rank", "score", "tag"])
                    for f in files]
before, started, cpu = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter(), time.process_time()
call()
wall, cpu, after = time.perf_counter() - started, time.process_time() - cpu, resource.getrusage(resource.RUSAGE_SELF)
print(wall, cpu, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime)
"""


def _user_system(split: dict) -> str:
    """'user + system seconds, medians: ours U + S, the peer U + S' of the (user, system) seconds of each side's
    calls, round by round (``split``: {"ours": [...], "peer": [...]})."""
    (user, system), (peer_user, peer_system) = (
        [statistics.median(part) for part in zip(*split[side])] for side in ("ours", "peer"))
    return (f"user + system seconds, medians: ours {user:.3f} + {system:.3f}, the peer {peer_user:.3f} + "
            f"{peer_system:.3f}")


def _first_call(side: str, folder: Path) -> tuple[float, float, float, float]:
    """(wall, CPU, user, system) seconds of one side's first call in a fresh process, imports excluded; ``side``:
    ours (the build), floor (decompress + newline scan) or pandas."""
    done = subprocess.run([sys.executable, "-c", _FIRST_CALL, side, str(folder)], capture_output=True, text=True,
                          check=True)
    wall, cpu, user, system = done.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu), float(user), float(system)


def run(rounds: int = ROUNDS, repeat: int = ROUNDS, build_repeat: int = ROUNDS) -> list[Result]:
    import pandas as pd

    folder = trec8_dir()
    if folder is None:
        return [Result("end-to-end benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    files = sorted((folder / "runs").glob("input.*"))
    qrels_file = folder / "qrels.trec8.adhoc.txt"
    results = []

    # ---- end to end, each side in a fresh process, paired rounds interleaved; then both on one CPU
    def end_to_end(cpus=None):
        pair, outputs = Paired(loads=[os.getloadavg()[0]]), {}
        with tempfile.TemporaryDirectory() as scratch:
            out = {side: Path(scratch) / f"{side}.pkl" for side in ("ours", "peer")}
            for i in range(rounds):
                for side in ("ours", "peer") if i % 2 == 0 else ("peer", "ours"):
                    done = _side(side, folder, out[side], cpus)
                    getattr(pair, side).append((done["seconds"], done["cpu"]))
                    outputs.setdefault(side, []).append(done)
                pair.loads.append(os.getloadavg()[0])
            frames = {side: pd.read_pickle(out[side]) for side in out}
        return pair, outputs, frames

    timer = ("the call, measured inside each fresh subprocess, imports excluded: ours evalkit.evaluate(qrels file, "
             "the 129 files); the peer reading every file with pandas.read_csv, the dicts, pytrec_eval, the "
             "DataFrame")
    pair, outputs, frames = end_to_end()
    mine, theirs = frames["ours"], frames["peer"]
    mine = mine[mine["topic"] != "all"]
    joined = mine.merge(theirs, on=["run", "topic", "measure"], how="outer", suffixes=("_ours", "_peer"))
    worst = float((joined["value_ours"] - joined["value_peer"]).abs().max())
    unmatched = int(joined[["value_ours", "value_peer"]].isna().any(axis=1).sum())
    ours_peak = max(r["peak"] for r in outputs["ours"]) / 1e9
    peer_peak = max(r["peak"] for r in outputs["peer"]) / 1e9
    results.append(pair.result(
        "evaluate(qrels file, 129 TREC-8 .gz files): AP, P@10, nDCG@100, Rprec, bpref per topic",
        "pandas.read_csv + .tolist() dicts + pytrec_eval (evaluate per run, DataFrame)", ">= 5x", 5, timer,
        f"{len(joined)} per-topic values, largest difference {worst:.1e}, {unmatched} without a partner"))
    results.append(Result(
        "peak memory of that call (GB, fresh process, imports included)", ours_peak, None, "-", "<= 0.5 GB",
        ours_peak <= 0.5,
        f"the 'ours' column is GB: VmHWM {ours_peak * 1e3:.0f} MB (pandas + pytrec_eval: {peer_peak * 1e3:.0f} MB); "
        "runs read, built and scored 32 at a time (evalkit.measures.evaluation.RUNS_PER_BLOCK)"))
    cpu0 = {min(os.sched_getaffinity(0))}
    pair, _, _ = end_to_end(cpu0)
    results.append(pair.result("the same, each subprocess on one CPU", "pandas.read_csv + .tolist() dicts + "
                               "pytrec_eval", "(context)", None, timer + f"; on CPU {min(cpu0)} only"))

    # ---- the first result in a fresh process: one run, start-up and imports included
    from common import compile_kit, paired_processes, run_process

    one = [qrels_file, files[0]]
    compiled = compile_kit()
    scripts = {side: code.format(measures=MEASURES, trec_eval=set(TREC_EVAL.values()))
               for side, code in _FIRST_RESULT.items()}
    pair, _, _ = paired_processes(lambda: run_process([sys.executable, "-c", scripts["ours"], *one]),
                                  lambda: run_process([sys.executable, "-c", scripts["peer"], *one]), repeat)
    results.append(pair.result(
        f"first result in a fresh process: one run ({files[0].name}) and the qrels, 5 measures",
        "dicts read in plain Python + pytrec_eval", "ours sooner (>= 1x)", 1,
        "the whole process from outside: start-up, imports, reading both files, evaluating; ours: "
        "evaluate(..., as_frame=False), its ScoreTable of numpy arrays (pandas and pyarrow never imported); the "
        "peer: pytrec_eval's dicts",
        "a few plain run files are read and ranked by the trec_eval command's numpy reader and scored by the kit's "
        f"own kernels (evalkit.measures.plain_files); the same numbers as the collection's path, tested; {compiled}"))
    pair, _, _ = paired_processes(lambda: run_process([sys.executable, "-c", scripts["ours_frame"], *one]),
                                  lambda: run_process([sys.executable, "-c", scripts["peer"], *one]), repeat)
    results.append(pair.result(
        "the same to evaluate()'s default DataFrame", "dicts read in plain Python + pytrec_eval", "(context)", None,
        "the whole process from outside, as above; ours to the long pandas DataFrame",
        f"importing pandas (and pyarrow, which pandas 3 imports) is most of the kit's time here; {compiled}"))

    # ---- uncached build against pandas.read_csv, one process, rounds interleaved
    from evalkit.data.collection import Collection
    from evalkit.data.datasets import load_directory

    def build():  # what load_directory does without its cache: files parsed inside the build's threads
        return Collection.from_runs(files, qrels_file, "trec8")

    pandas_read_runs(files)  # the files in the page cache for both sides
    timer = "Collection.from_runs from the 129 .gz files and the qrels file (parsing inside); the peer: pandas.read_csv"
    pair = paired(build, lambda: pandas_read_runs(files), build_repeat)
    load_t = median_time(lambda: load_directory(folder, name="trec8", cache=False), 3, warmup=0)
    results.append(pair.result(
        "uncached build of TREC-8: Collection.from_runs(129 run files, qrels file)", "pandas.read_csv (129 files)",
        ">= 2x", 2, timer,
        f"threads: {len(os.sched_getaffinity(0))}; {_reader_words()}; load_directory(cache=False), judged runs derived "
        f"too: {load_t:.2f} s"))
    with one_cpu():
        pair = paired(build, lambda: pandas_read_runs(files), build_repeat)
    results.append(pair.result("the same, the process on one CPU", "pandas.read_csv (129 files)", "(context)", None,
                               timer + "; this process confined to one CPU (sched_setaffinity)"))

    # ---- the build's CPU seconds against the floor of any reader: decompress every file, find its line ends
    import numpy as np

    try:
        from isal import igzip as gzip_module  # what the kit decompresses with
    except ImportError:  # pragma: no cover
        import gzip as gzip_module

    def floor():
        for f in files:
            raw = np.frombuffer(gzip_module.decompress(f.read_bytes()), np.uint8)
            np.count_nonzero(raw == 10)

    split = {"ours": [], "peer": []}  # (user, system) seconds of each call, round by round

    def split_by(side, function):
        return lambda: split[side].append(user_system_seconds(function))

    pair = paired(split_by("ours", build), split_by("peer", floor), build_repeat)
    row = pair.result(
        "the build's CPU seconds against decompressing the 129 files and counting their lines",
        f"{gzip_module.__name__}.decompress + one newline scan", ">= 0.5x (within 2x)", None,
        "CPU seconds of this process (all threads): ours the uncached build as above; the peer decompressing each "
        "file and counting its newlines with numpy")
    cpu_ratios = [p / o for (_, o), (_, p) in zip(pair.ours, pair.peer)]
    row.round_ratios, row.met = cpu_ratios, statistics.median(cpu_ratios) >= 0.5
    row.note = (f"the ratio is of CPU seconds (peer CPU / ours CPU), round by round; {_user_system(split)} (system "
                "time is mostly the kernel handing over fresh pages, dear on this virtual machine when the host has "
                "taken them back: bench/README.md, 'The build against its floor'); " + row.note)
    results.append(row)

    # ---- each side's first call in a fresh process (a user's build happens once a process): against the floor,
    # then against pandas.read_csv
    for peer_side, peer_name, label in [
            ("floor", f"{gzip_module.__name__}.decompress + one newline scan",
             "the build's CPU seconds against the floor, each side's first call in a fresh process"),
            ("pandas", "pandas.read_csv (129 files)", "the build against pandas.read_csv, each side's first call in "
                                                      "a fresh process")]:
        first, split = Paired(loads=[os.getloadavg()[0]]), {"ours": [], "peer": []}
        for i in range(repeat):
            for side in ("ours", "peer") if i % 2 == 0 else ("peer", "ours"):
                wall, cpu, user, system = _first_call("ours" if side == "ours" else peer_side, folder)
                getattr(first, side).append((wall, cpu))
                split[side].append((user, system))
            first.loads.append(os.getloadavg()[0])
        row = first.result(label, peer_name, "(context)", None, "the call inside a fresh subprocess, imports excluded",
                           f"what a script or notebook that builds once meets, fresh memory on both sides; "
                           f"{_user_system(split)}")
        if peer_side == "floor":
            row.round_ratios = [p / o for (_, o), (_, p) in zip(first.ours, first.peer)]
            row.note = "the ratio is of CPU seconds (peer CPU / ours CPU), round by round; " + row.note
        results.append(row)

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
