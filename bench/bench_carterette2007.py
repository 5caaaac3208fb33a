"""Carterette 2007 benchmarks (issue 7): one trial of the Sec. 4.3 experiment on TREC-8, the projected default run
of 300 trials, the prior's topic-split choice at the class preset (issues 27-28), and E[AP] + Var[AP] for every
run and topic of TREC-8 at depth 100 (against the paper's O(n^3) sums as the peer, on a few rankings)."""

from __future__ import annotations

import os
import time

from common import Result, median_time, paired, trec8_dir

SERIAL_TRIALS = 10  # trials timed one after another in this process
EXECUTOR_TRIALS = 20  # trials timed on the default executor, extrapolated to the notebook's 300
DEFAULT_TRIALS = 300
SEED = 2007  # the notebook's seed: the timed trials are the first trials of its run


def run(repeat: int = 3) -> list[Result]:
    import numpy as np

    from evalkit.confidence import (
        ExpertAggregation,
        Universe,
        ap_coefficients,
        ap_moments,
        ap_moments_reference,
    )
    from evalkit.data.datasets import load_directory
    from evalkit.papers import carterette2007 as exp
    from evalkit.parallel import resolve_scheduler, trial_seeds

    folder = trec8_dir()
    if folder is None:
        return [Result("Carterette 2007 benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    collection = load_directory(folder, name="trec8")
    data = exp.TrialData.from_collection(collection, depth=100)
    results = []

    # ---- one trial, serial: MTC and RTC to 95% on the first pair, then the 45 pairs, IP, tau
    seeds = trial_seeds(SEED, SERIAL_TRIALS)
    exp.carterette_trial(0, seeds[0], data)  # warm-up (imports, the preference-model cache)
    times, judged = [], []
    for index, trial_seed in enumerate(seeds):
        started = time.perf_counter()
        out = exp.carterette_trial(index, trial_seed, data)
        times.append(time.perf_counter() - started)
        judged.append(out["trial"]["judged_mtc"] + out["trial"]["judged_rtc"])
    mean_trial = float(np.mean(times))
    results.append(Result(
        f"one trial on TREC-8 (mean of {SERIAL_TRIALS}, serial)", mean_trial, None, "-", "< 2 s", mean_trial < 2.0,
        f"k=10, c=2, alpha=0.95; median {np.median(times):.2f} s, max {max(times):.2f} s; "
        f"{int(np.mean(judged))} judgments a trial (MTC + RTC) on average",
    ))

    # ---- the default run, projected: EXECUTOR_TRIALS trials on the default executor, scaled to 300
    scheduler = resolve_scheduler(None)
    started = time.perf_counter()
    exp.run_experiment(data, n_trials=EXECUTOR_TRIALS, seed=SEED, progress=False)
    wall = time.perf_counter() - started
    projected = wall / EXECUTOR_TRIALS * DEFAULT_TRIALS
    results.append(Result(
        f"{DEFAULT_TRIALS} trials on TREC-8, projected (default executor)", projected, None, "-", "< 600 s",
        projected < 600.0,
        f"{EXECUTOR_TRIALS} trials in {wall:.1f} s on '{scheduler}' with {os.cpu_count()} cores, x {DEFAULT_TRIALS // EXECUTOR_TRIALS}; "
        "trial cost is heavy-tailed (a few trials take thousands of judgments), so the full run can differ",
    ))

    # ---- issues 27-28: the prior chosen at run time (topic-split cross-validation) at the class preset's sizes, the
    # notebook's longest cell at that preset; its peer is the main experiment of the same preset (30 trials)
    # (an absolute target, not a ratio: the main experiment's time is said beside it)
    sizes = exp.settings("class")
    plan = exp.plan(collection, sizes=sizes)
    load = os.getloadavg()[0]
    started, cpu = time.perf_counter(), time.process_time()
    split = exp.topic_split_sweeps(data, plan.strengths, plan.cv_trials, SEED, progress=False, k=plan.k, c=plan.c,
                                   max_judgments=plan.max_judgments)
    choice = exp.prior_cross_validation(split)
    cv_wall, cv_cpu = time.perf_counter() - started, time.process_time() - cpu
    started = time.perf_counter()
    exp.run_experiment(data, n_trials=plan.trials, seed=SEED, progress=False, k=plan.k, c=plan.c,
                       model=ExpertAggregation(prior=(choice.prior, choice.prior)), max_judgments=plan.max_judgments)
    main_wall = time.perf_counter() - started
    results.append(Result(
        f"prior chosen by topic-split cross-validation, class preset ({len(plan.strengths)} strengths x 2 halves x "
        f"{plan.cv_trials} trials)", cv_wall, None, "-", "< 20 s", cv_wall < 20.0,
        f"chose a = {choice.prior:g} (halves: {choice.chosen}); at most {plan.max_judgments} judgments a trial; "
        f"the class preset's main experiment ({plan.trials} trials) took {main_wall:.1f} s in the same run",
        ours_cpu=cv_cpu, timer="topic_split_sweeps + prior_cross_validation on the default executor",
        load=f"load average {load:.1f}",
    ))

    # ---- issue 14: the coefficient-uncertainty option (Laplace + delta method) on the 45 pairs of a trial
    from evalkit.confidence import estimate_runs, mtc

    chosen = np.random.default_rng(SEED).choice(data.docs.shape[0], size=10, replace=False)
    judged = mtc(data.docs[chosen[:2]], data.qrels, 0.95, max_judgments=100).judged
    pair = paired(lambda: estimate_runs(data.docs[chosen], judged,
                                        ExpertAggregation(prior=(1.0, 1.0), coefficient_uncertainty=True)),
                  lambda: estimate_runs(data.docs[chosen], judged, ExpertAggregation(prior=(1.0, 1.0))), warmup=True)
    results.append(pair.result(
        "RTC estimates for 10 runs (45 pairs) with the coefficients' uncertainty in Var[dMAP]",
        "the same without the option", ">= 0.5x (at most twice)", 0.5,
        "estimate_runs on the judged set of one MTC trial, with and without the option",
        "Laplace covariance of the aggregation fit and one gradient per pair (einsum over the topics' universes)"))

    # ---- E[AP] and Var[AP] for 129 runs x 50 topics at depth 100
    universe = Universe.from_docs(data.docs)
    rng = np.random.default_rng(0)
    p = np.concatenate([rng.uniform(0.0, 1.0, universe.n), [0.0]])  # no 0/1 shortcuts: every document uncertain

    def ours():
        u = Universe.from_docs(data.docs)
        return ap_moments(p[u.index], u.topic_sums(p)[None, :])

    expected, variance = ours()
    assert expected.shape == (data.docs.shape[0], data.docs.shape[1]) and np.isfinite(variance).all()
    full = median_time(ours, repeat)
    results.append(Result(
        f"E[AP] + Var[AP], {data.docs.shape[0]} runs x {data.docs.shape[1]} topics at depth 100", full, None, "-",
        "< 1 s", full < 1.0, "universe construction included; O(n) prefix sums per ranking",
    ))

    # ---- the same computation against the paper's four sums written out (O(n^3) a ranking), on a few rankings
    n_rankings = 3
    by_rank = p[universe.index[:n_rankings, 0]]  # (3, 100): the first three runs, first topic
    denominator = universe.topic_sums(p)[0]
    coefficients = ap_coefficients(np.arange(1, by_rank.shape[1] + 1))

    def reference():
        return [ap_moments_reference(coefficients, row, denominator) for row in by_rank]

    def fast():
        return ap_moments(by_rank, denominator)

    check = np.array(reference())
    fast_e, fast_v = fast()
    assert np.allclose(check[:, 0], fast_e) and np.allclose(check[:, 1], fast_v)
    pair = paired(lambda: [fast() for _ in range(200)], reference)  # ours 200 times a round: above the clock's grain
    pair.ours = [(wall / 200, cpu / 200) for wall, cpu in pair.ours]
    mine, peer = pair.wall("ours"), pair.wall("peer")
    results.append(pair.result(
        f"E[AP] + Var[AP], {n_rankings} rankings of 100 documents", "ap_moments_reference (paper's sums, O(n^3) loops)",
        "-", None, "the moments of the 3 rankings (ours: the mean of 200 calls in a round)",
        f"ours {mine * 1e6:.0f} us; same numbers to 1e-9; projected peer time for all "
        f"{data.docs.shape[0] * data.docs.shape[1]} rankings: "
        f"{peer / n_rankings * data.docs.shape[0] * data.docs.shape[1] / 3600:.1f} h"))
    return results
