"""Evaluation as users meet it (issue 15 item 1): AP, P@10, nDCG@100, Rprec and bpref of every run and topic, the
qrels lookup inside the timed call, against pytrec_eval and ranx; the cost per cell from 6 M to 103 M cells; and the
memory the evaluation holds beyond the collection.

What is timed (the user's call, nothing warmed that a first call lacks):

* ours: ``evalkit.evaluate(None, collection, MEASURES)`` on a loaded collection: the grades are looked up from the
  qrels inside the call (evaluation keeps no grade cache), the long DataFrame built. The first call's time is given
  beside the median.
* pytrec_eval: ``RelevanceEvaluator.evaluate(run)`` for each of the 129 runs, its qrels and run dicts read from the
  files beforehand (plain Python, as its users build them: ``{topic: {docno: score}}``; as ours has its collection
  built); it looks the qrels up inside every call.
* ranx: ``ranx.evaluate(qrels, run, metrics)`` for each run with ranx's own ``Qrels`` and ``Run`` built from those
  dicts beforehand (what its users call; ranx converts them to its typed lists inside each call); numba compiles on
  the warm-up call, excluded; ranx uses every core, ours one: the CPU columns say so. Skipped with a note when ranx
  is not installed (``pip install -e '.[bench]'``; ``make bench`` installs it).

Both peer rows are the median of paired rounds, interleaved with ours (bench/common.py).

Per cell: the same call on TREC-8 (6.45 M cells) and on simulated collections (``simulate_collection``, fitted to
TREC-8) of 129 x 50, 2064 x 50 and 129 x 800 rankings of depth 1,000 (6.45 M, 103 M, 103 M cells). The simulated
document ids and qrels are generated once (a subprocess each, about 2 minutes for the big ones) and kept under
``$EVALKIT_CACHE/bench``; loading them is not timed. Memory: ``tracemalloc``'s peak during the call (numpy reports its
buffers to tracemalloc) minus what was allocated before it, over the number of cells; the collection itself (docs,
qrels) is outside the measured window.

``python bench/run.py evaluation`` runs this module alone.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from common import ROUNDS, Result, load_note, median_time, paired, trec8_dir

MEASURES = ["AP", "P@10", "nDCG@100", "Rprec", "Bpref"]
TREC_EVAL = {"AP": "map", "P@10": "P_10", "nDCG@100": "ndcg_cut_100", "Rprec": "Rprec", "Bpref": "bpref"}
RANX = {"AP": "map", "P@10": "precision@10", "nDCG@100": "ndcg@100", "Rprec": "r-precision", "Bpref": "bpref"}
SIZES = ((129, 50), (2064, 50), (129, 800))  # simulated (runs, topics), depth 1000


# ------------------------------------------------------------------------------------------ simulated data


def _simulated(n_runs: int, n_topics: int, depth: int = 1000, seed: int = 15):
    """A simulated collection's document ids and qrels (no scores: evaluation does not read them), generated once in
    a subprocess (its peak memory is freed with it) and kept in $EVALKIT_CACHE/bench."""
    import hashlib

    import numpy as np
    import pandas as pd

    from evalkit.data.cache import cache_dir as _cache_dir
    from evalkit.data.collection import Collection, JudgedSet
    from evalkit.data.simulator import DEFAULT_PARAMS_PATH

    simulator = Path(__file__).resolve().parents[1] / "evalkit" / "data" / "simulator.py"
    source = simulator.read_bytes() + DEFAULT_PARAMS_PATH.read_bytes()
    tag = hashlib.sha256(source).hexdigest()[:12]
    where = _cache_dir() / "bench" / f"sim-{n_runs}x{n_topics}x{depth}-s{seed}-{tag}"
    if not (where / "done").is_file():
        code = f"""
import numpy as np, json, os
from pathlib import Path
from evalkit.data.simulator import simulate_collection
c = simulate_collection(n_topics={n_topics}, n_runs={n_runs}, depth={depth}, seed={seed})
where = Path({str(where)!r}); where.mkdir(parents=True, exist_ok=True)
q = c.qrels
for key, value in dict(docs=c.docs, q_topic=q.topic, q_doc=q.doc, q_grade=q.grade).items():
    np.save(where / (key + ".npy"), value)
(where / "meta.json").write_text(json.dumps(dict(n_docs=q.n_docs, topics=list(map(str, c.topics)))))
(where / "done").write_text("ok")
"""
        subprocess.run([sys.executable, "-c", code], check=True)
    import json

    meta = json.loads((where / "meta.json").read_text())
    docs = np.load(where / "docs.npy")
    qrels = JudgedSet(np.load(where / "q_topic.npy"), np.load(where / "q_doc.npy"), np.load(where / "q_grade.npy"),
                      None, len(meta["topics"]), meta["n_docs"])
    names = np.asarray([f"sim{i:04d}" for i in range(n_runs)], dtype=object)
    return Collection(name=f"sim{n_runs}x{n_topics}", topics=np.asarray(meta["topics"], dtype=object),
                      run_names=names, vocabulary=np.empty(0, object), docs=docs,
                      scores=np.empty((0, 0, 0)), qrels=qrels, runs_info=pd.DataFrame(index=pd.Index(names, name="run")))


# ------------------------------------------------------------------------------------------------ peers


def _dicts(folder: Path):
    """The qrels and the 129 runs as pytrec_eval / ranx dicts ({topic: {docno: grade or score}}) read from the
    files in plain Python, as their users build them; the runs in the collection's order (file names sorted)."""
    import gzip

    qrels = {}
    with open(folder / "qrels.trec8.adhoc.txt") as handle:
        for line in handle:
            topic, _, docno, grade = line.split()
            qrels.setdefault(topic, {})[docno] = int(grade)
    runs = []
    for path in sorted((folder / "runs").glob("input.*")):
        run = {}
        with (gzip.open(path, "rt") if path.suffix == ".gz" else open(path)) as handle:
            for line in handle:
                topic, _, docno, _, score = line.split()[:5]
                run.setdefault(topic, {})[docno] = float(score)
        runs.append(run)
    return qrels, runs


def _ours(collection):
    import evalkit

    return evalkit.evaluate(None, collection, MEASURES)


def _first_and_median(fn, repeat):
    started = time.perf_counter()
    fn()
    first = time.perf_counter() - started
    return first, median_time(fn, repeat, warmup=0)


def _peak_bytes(fn) -> int:
    """tracemalloc's peak during ``fn()`` above what was allocated when it started."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def run(repeat: int = ROUNDS) -> list[Result]:

    import evalkit
    from evalkit.measures.evaluation import EvaluationContext, _scores

    folder = trec8_dir()
    if folder is None:
        return [Result("evaluation benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    loads = [os.getloadavg()[0]]
    collection = evalkit.load_dataset("trec8", ties="float32")  # pytrec_eval's tie rule, so the values compare
    cells = collection.docs.size
    results = []

    # ---- 1. TREC-8, five measures, against pytrec_eval and ranx (interleaved: ours, peer, ours, peer, ...)
    import pytrec_eval

    qrels_dict, run_dicts = _dicts(folder)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, set(TREC_EVAL.values()))

    def pytrec():
        return [evaluator.evaluate(run) for run in run_dicts]

    first, _ = _first_and_median(lambda: _ours(collection), 1)
    pytrec()  # warm-up: both sides' code and data in memory
    rounds = paired(lambda: _ours(collection), pytrec, repeat)
    frame = _ours(collection)
    per_topic = frame[frame["topic"] != "all"]
    theirs = pytrec()
    worst = 0.0
    for s, values in enumerate(theirs):
        mine = per_topic[per_topic["run"] == collection.run_names[s]]
        lookup = {(t, m): v for t, m, v in zip(mine["topic"].tolist(), mine["measure"].tolist(),
                                               mine["value"].tolist())}
        for topic, scores in values.items():
            for ours_name, trec_name in TREC_EVAL.items():
                worst = max(worst, abs(lookup[(topic, ours_name)] - scores[trec_name]))
    scores_only = median_time(lambda: _scores(EvaluationContext(collection, collection.qrels), MEASURES), repeat)
    timer = ("ours: evalkit.evaluate(None, collection, measures) on the loaded collection (qrels lookup and the "
             "DataFrame inside); the peer: RelevanceEvaluator.evaluate of each run's dict (its lookup inside)")
    results.append(rounds.result(
        "AP, P@10, nDCG@100, Rprec, bpref: TREC-8 129 runs x 50 topics, qrels lookup inside the call",
        "pytrec_eval (RelevanceEvaluator.evaluate per run, dicts read from the files)", ">= 10x", 10, timer,
        f"no grade cache; first call {first:.3f} s; the score arrays alone {scores_only:.3f} s; values agree to "
        f"{worst:.1e}"))

    try:
        from importlib.metadata import version

        import ranx
    except ImportError:
        results.append(Result("the same against ranx", float("nan"), None, "ranx", ">= 3x", None,
                              "ranx not installed: peer skipped (pip install -e '.[bench]'; make bench installs it)"))
    else:
        rq = ranx.Qrels(qrels_dict)
        runs = [ranx.Run(run, name=str(name)).make_comparable(rq) for run, name in zip(run_dicts, collection.run_names)]
        metrics = list(RANX.values())

        def with_ranx():
            return [ranx.evaluate(rq, run, metrics, save_results_in_run=False) for run in runs]

        with_ranx()  # numba compiles here
        rounds = paired(lambda: _ours(collection), with_ranx, repeat)
        means = frame[frame["topic"] == "all"].pivot(index="run", columns="measure", values="value")
        theirs = with_ranx()
        gap = max(abs(means.loc[str(name), m] - float(theirs[s][RANX[m]]))
                  for s, name in enumerate(collection.run_names) for m in MEASURES)
        results.append(rounds.result(
            "the same against ranx (its Qrels and Run, built beforehand)", f"ranx {version('ranx')} evaluate per run",
            ">= 3x", 3, "ours as above; the peer: ranx.evaluate(Qrels, Run, metrics) of each run (its conversion to "
            "typed lists inside, as every call does)",
            f"numba compilation excluded (warm-up); run means differ from ours by up to {gap:.1e} (ranx orders tied "
            "scores its own way; ours and pytrec_eval follow trec_eval)"))

    # ---- 2. cost per cell, 6 M to 103 M cells: every size timed in turn, round after round (a change in the
    #      machine's load hits every size alike), medians compared
    sizes = {"TREC-8 129 x 50": collection}
    for s, t in SIZES:
        sizes[f"simulated {s} x {t}"] = _simulated(s, t)
    times = {label: [] for label in sizes}
    firsts = {"TREC-8 129 x 50": first}  # its first call was timed above
    loads.append(os.getloadavg()[0])
    for _ in range(4):
        for label, c in sizes.items():
            started = time.perf_counter()
            _ours(c)
            seconds = time.perf_counter() - started
            if label not in firsts:
                firsts[label] = seconds
            else:
                times[label].append(seconds)
    loads.append(os.getloadavg()[0])
    per_cell = {}
    for label, c in sizes.items():
        median = statistics.median(times[label])
        per_cell[label] = median / c.docs.size
        peak = _peak_bytes(lambda: _scores(EvaluationContext(c, c.qrels), MEASURES))
        results.append(Result(
            f"per cell: {label} x 1000 ({c.docs.size / 1e6:.1f} M cells)", median, None, "-", "(see next row)", None,
            f"{1e9 * per_cell[label]:.0f} ns a cell (first call {1e9 * firsts[label] / c.docs.size:.0f}); "
            f"evaluation temporaries {peak / c.docs.size:.2f} bytes a cell at peak ({peak / 2**20:.0f} MB, tracemalloc; "
            f"beyond the grades' blocks, the per-topic qrels statistics over {len(c.qrels) / 1e6:.1f} M judgments)"))
    del sizes
    simulated = [v for k, v in per_cell.items() if k.startswith("simulated")]
    spread = max(simulated) / min(simulated)
    vs_trec = max(per_cell.values()) / min(per_cell.values())
    loads.append(os.getloadavg()[0])
    results.append(Result(
        "cost per cell, largest over smallest, simulated 6.45 M to 103 M cells", spread, None, "-", "<= 1.2 (flat)",
        spread <= 1.2,
        "the 'ours' column is the ratio; medians of rounds timing every size in turn; " +
        ", ".join(f"{k} {1e9 * v:.0f} ns" for k, v in per_cell.items()) +
        f"; with TREC-8 too: {vs_trec:.2f}; {load_note(loads)}"))

    # ---- 3. memory beyond the collection, TREC-8
    peak = _peak_bytes(lambda: _ours(collection))
    results.append(Result(
        "evaluation temporaries at peak, TREC-8 (bytes a cell)", peak / cells, None, "-", "<= 20", peak / cells <= 20,
        f"the 'ours' column is bytes a cell: tracemalloc peak of evalkit.evaluate above the loaded collection, "
        f"{peak / 2**20:.1f} MB over {cells / 1e6:.2f} M cells (the DataFrame included)"))
    return results
