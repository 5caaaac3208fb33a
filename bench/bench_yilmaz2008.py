"""Yilmaz, Kanoulas & Aslam 2008 benchmarks (issue 4): Figure 3's whole sweep and infAP with its variance; the
variance on a sample with the pool's positions (``within=``) against a fresh lookup, and a redraw of the stratified
explorer (issue 28: under 2 s on TREC-8 at idle)."""

from __future__ import annotations

import os
import time

from common import Result, median_time, paired, trec8_dir


def run(repeat: int = 5) -> list[Result]:
    folder = trec8_dir()
    if folder is None:
        return [Result("Yilmaz 2008 benchmarks", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    from evalkit.data.datasets import load_directory
    from evalkit.measures.infap_variance import infap_variance
    from evalkit.papers import yilmaz2008 as y
    from evalkit.papers.yilmaz2008 import experiment
    from evalkit.papers.yilmaz2008 import gold as gold_module

    collection = load_directory(folder, name="trec8")
    started = time.perf_counter()
    gold = y.prepare(collection)
    prepare_s = time.perf_counter() - started
    results = []

    sweep_s = median_time(lambda: y.figure3(gold, progress=False), repeat=1, warmup=0)
    results.append(Result(
        "Figure 3 sweep: 10 depths x 10 trials x 3 estimators x 129 runs (TREC-8)", sweep_s, None, "-", "< 120 s",
        sweep_s < 120,
        f"run_trials, local processes ({os.cpu_count()} CPUs); the truth (prepare) once before: {prepare_s:.1f} s",
    ))

    qrels = y.random_judgments(gold, 0.2, seed=1)
    cold_started = time.perf_counter()
    infap_variance(collection, qrels, topics=gold.scored)  # first call on this collection builds the lookup index
    cold = time.perf_counter() - cold_started
    warm = median_time(lambda: infap_variance(collection, qrels, topics=gold.scored), repeat=repeat)
    results.append(Result(
        "infAP + variance + 95% CIs, 129 runs x 50 topics, one 20% sample (TREC-8)", warm, None, "-", "< 1 s",
        warm < 1.0, f"first call in the process (index build): {cold:.2f} s",
    ))

    # issue 14: the bias breakdown needs infAP once more with the true precision where nothing above is sampled
    from evalkit.measures.inferred import trec_infap, trec_infap_oracle_above

    small = y.random_judgments(gold, 0.1, seed=2)
    pair = paired(lambda: trec_infap_oracle_above(collection, small, gold.qrels),
                  lambda: trec_infap(collection, small), repeat, warmup=True)
    results.append(pair.result(
        "infAP with the true precision where nothing above is sampled (bias breakdown), one 10% sample (TREC-8)",
        "trec_infap on the same sample", ">= 0.5x (at most twice infAP)", 0.5,
        "one call on the loaded collection and sample", "one extra lookup of the complete grades and one prefix sum"))
    within = gold_module.positions(gold)
    pair = paired(lambda: infap_variance(collection, qrels, topics=gold.scored, within=within),
                  lambda: infap_variance(collection, qrels, topics=gold.scored), repeat, warmup=True)
    results.append(pair.result(
        "infAP + variance of a 20% sample, the pool's positions reused (within=) (TREC-8)",
        "the same without within= (a lookup through every ranking)", ">= 2x", 2.0,
        "one call on the loaded collection and sample",
        "the validation scores every sample 6 times (4 variance forms, the bias parts, unsmoothed): one lookup saved "
        "each time"))
    os.environ.setdefault("EVALKIT_BATCH", "1")  # the explorer draws once, as in a batch run, without a widget
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    y.stratified_explorer(gold, k=10)  # warm: the positions of the pool
    redraw = median_time(lambda: (y.stratified_explorer(gold, k=10), plt.close("all")), repeat=repeat)
    results.append(Result(
        "stratified explorer: one redraw (4-strata + random sample, xinfAP and infAP, two panels) (TREC-8)", redraw,
        None, "-", "< 2 s", redraw < 2.0, f"load average {os.getloadavg()[0]:.1f} (the target is for an idle machine)",
    ))
    trial = median_time(lambda: experiment._validation_trial(0, 1, gold, y.P_VALUES, tuple(y.VARIANCE_FORMS),
                                                          0.95), repeat=1)
    results.append(Result(
        "one CI-validation sample: 3 rates x 4 variance forms, bias parts, empty-topic variant (TREC-8)", trial, None,
        "-", "< 3 s", trial < 3.0,
        f"the paper preset's 1,000 samples (10 blocks of 100): about {trial * 1000 / max(os.cpu_count() or 1, 1):.0f} "
        f"s on {os.cpu_count()} cores",
    ))
    return results
