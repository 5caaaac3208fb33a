"""Lu, Moffat & Culpepper 2017 benchmarks (issue 6): the notebook's whole TREC-8 grid, the framework's optimizer
calls for one topic and depth, the default simplex solver (nnls) against SLSQP on the same problems, and the
explorer's redraw after a move of the d' slider (issue 28: under 2 s at idle), fitted on the spot and from the
fits kept per (d', p), measured in the same run."""

from __future__ import annotations

import statistics
import time

from common import Result, median_time, paired, trec8_dir


def _problems(collection, data, fit_depth: int = 10):
    """Per topic, the (A, b) least-squares-on-the-simplex problems Algorithm 1 solves at pool depth ``fit_depth``:
    for each loss (Eq. 7 "a", Eq. 8 "b"), one stage-one problem per gain model (Eq. 6) and the stage-two problem
    (Eq. 9), built exactly as :func:`evalkit.estimation.fit_frameworks` builds them (stage two from the default
    solver's stage-one weights, so both solvers face the same problems)."""
    import numpy as np

    from evalkit.estimation import (
        design,
        estimate_scores,
        gains,
        metric_weights,
        pool_qrels,
        simplex_lstsq,
    )

    judgments = pool_qrels(collection, fit_depth, data.pool_runs)
    est = estimate_scores(collection, judgments, fit_depth, pool_runs=data.pool_runs, depth=data.depth, p=data.p,
                          estimators=("La", "Lb"), matrix=data.matrix)
    matrix, curves = data.matrix, est.curves
    d, K = matrix.depth, matrix.rank_depth
    weights, _ = metric_weights("rbp", d, data.p)
    padded = np.concatenate([[0.0], weights, np.zeros(K - d)])
    per_topic = []
    for t, tm in enumerate(matrix.topics):
        grade = judgments.lookup(np.full(len(tm.docs), t, np.int32), tm.docs)
        judged = grade >= 0
        if not judged.any():
            continue
        r = gains(grade[judged])
        rank_or_k = np.where(tm.ranks > 0, tm.ranks, K) - 1
        W = padded[tm.ranks[judged]]
        G = [curves[t, m][rank_or_k] for m in range(curves.shape[1])]
        problems = []
        for loss in ("a", "b"):
            g1 = np.zeros((len(tm.docs), len(G)))
            for m, Gm in enumerate(G):
                A, b = design(loss, Gm[judged], W, r)
                problems.append((A, b))
                g1[:, m] = Gm @ simplex_lstsq(A, b)
            problems.append(design(loss, g1[judged], W, r))
        per_topic.append(problems)
    return per_topic


def _solve_all(problems, method):
    from evalkit.estimation import simplex_lstsq

    for A, b in problems:
        simplex_lstsq(A, b, method)


def run(repeat: int = 3) -> list[Result]:
    import numpy as np

    from evalkit.data.datasets import load_dataset
    from evalkit.estimation import simplex_lstsq
    from evalkit.papers import lu2017

    if trec8_dir() is None:
        return [Result("Lu 2017 benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    collection = load_dataset("trec8")
    results = []

    # 1. the notebook's Table-2 grid: d' = 10, 20, 30 x theta = 0, 0.018 x LB, RM, Lin, La, Lb (La and Lb: both
    #    losses), from the collection (prepare: reference scores and the system matrix) to the error table
    started = time.perf_counter()
    data = lu2017.prepare(collection)
    grid = lu2017.table2(data, depths=(10, 20, 30), thetas=(0.0, 0.018))
    seconds = time.perf_counter() - started
    fits = grid.groupby("depth")["seconds"].first()
    results.append(Result(
        "TREC-8 Table 2 grid (3 d' x 2 theta x 5 estimators, La and Lb)", seconds, None, "-", "< 300 s",
        seconds < 300, "prepare + fits per d': " + ", ".join(f"{d}: {s:.1f} s" for d, s in fits.items()) +
        f"; {len(grid)} cells"))

    # 2. the optimizer calls of one topic at d' = 10: 2 losses x (3 stage-one + 1 stage-two) simplex problems
    per_topic = _problems(collection, data, 10)
    topic_times = []
    for problems in per_topic:
        _solve_all(problems, "nnls")  # warm-up
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            _solve_all(problems, "nnls")
            times.append(time.perf_counter() - start)
        topic_times.append(statistics.median(times))
    calls = [median_time(lambda A=A, b=b: simplex_lstsq(A, b), repeat=repeat) for ps in per_topic for A, b in ps]
    n_calls = sum(len(ps) for ps in per_topic)
    median_topic, max_topic = statistics.median(topic_times), max(topic_times)
    sizes = [A.shape for ps in per_topic for A, _ in ps]
    note = (f"median topic {1e3 * median_topic:.2f} ms; {len(per_topic)} topics, {n_calls // len(per_topic)} calls each (A up to "
            f"{max(s[0] for s in sizes)} x {max(s[1] for s in sizes)}); one call: median "
            f"{1e3 * statistics.median(calls):.2f} ms, max {1e3 * max(calls):.2f} ms")
    results.append(Result("Algorithm 1 optimizer calls, one topic, d'=10 (median over topics)", median_topic, None,
                          "-", "< 50 ms", median_topic < 0.05, note))
    results.append(Result("Algorithm 1 optimizer calls, one topic, d'=10 (slowest topic)", max_topic, None, "-",
                          "< 50 ms", max_topic < 0.05, "the 'ours' column is the slowest topic's median time"))

    # 4. the explorer's redraw after the d' slider moves: to a d' not fitted yet (the fit of every estimator, then
    #    the picture) and back to one already fitted (the picture only); CPU time beside wall time, so that a
    #    loaded machine's waiting is visible
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def redraw(fit_depth, cache):
        lu2017.draw_explorer(data, fit_depth, cache=cache)
        plt.close("all")

    import contextlib
    import io

    cache: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        redraw(10, cache)  # the widget's first picture
        fresh, fresh_cpu = [], []
        for depth in (15, 25, 35):  # never fitted before: the d' slider's other stops
            wall, cpu = time.perf_counter(), time.process_time()
            redraw(depth, cache)
            fresh.append(time.perf_counter() - wall)
            fresh_cpu.append(time.process_time() - cpu)
        unfitted = iter(range(40, 100))  # a d' never fitted before, for every round of the uncached side
        pair = paired(lambda: redraw(15, cache), lambda: redraw(next(unfitted), {}))
    uncached = statistics.median(fresh)
    results.append(Result(
        "explorer redraw, d' slider to a new d' (TREC-8: fit + picture)", uncached, None, "-", "< 2 s at idle",
        statistics.median(fresh_cpu) < 2.0, f"wall {uncached:.2f} s, CPU {statistics.median(fresh_cpu):.2f} s "
        "(the idle time; median of d' = 15, 25, 35)"))
    results.append(pair.result(
        "explorer redraw, d' slider back to a fitted d' (kept fit)", "the same redraw fitting a new d'", ">= 3x", 3,
        "one redraw of the explorer's figure (fit when not kept, estimates, picture); the peer fits a d' not fitted "
        "before in every round",
        "fits kept per (d', p) in the widget's cache; the figures' own fits (data.fits) are reused too"))

    # 3. nnls (default) against SLSQP on the same problems, every topic
    everything = [p for ps in per_topic for p in ps]
    pair = paired(lambda: _solve_all(everything, "nnls"), lambda: _solve_all(everything, "slsqp"))
    worst = 0.0
    for A, b in everything:
        loss = [float(np.sum((A @ simplex_lstsq(A, b, m) - b) ** 2)) for m in ("nnls", "slsqp")]
        worst = max(worst, (loss[0] - loss[1]) / max(loss[1], 1e-300))
    results.append(pair.result(
        f"simplex least squares, all {len(everything)} problems of d'=10", "scipy.optimize.minimize(SLSQP)", ">= 5x",
        5, "solving every problem (ours scipy.optimize.nnls on the augmented system, the peer SLSQP)",
        f"nnls loss minus SLSQP loss, relative, worst problem: {worst:+.2e} (negative: nnls lower)"))
    return results
