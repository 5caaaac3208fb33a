"""Soboroff (2007) benchmarks (issue 5): the notebook's whole computation on TREC-8, 100 subsamples included.

Absolute targets (no peer: nothing else implements the TB06 design): the computation (:func:`run_study`) and the
notebook executed end to end by papermill, each under 2 minutes.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import Result, trec8_dir

TARGET_SECONDS = 120.0


def _timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def run(repeat: int = 1) -> list[Result]:
    from evalkit.data.datasets import load_directory
    from evalkit.judging.relevance_sampling import relevance_sample
    from evalkit.papers import soboroff2007 as sb

    folder = trec8_dir()
    if folder is None:
        return [Result("Soboroff 2007 on TREC-8", float("nan"), None, "-", "-", None, "TREC-8 data not found: skipped")]
    collection, load = _timed(lambda: load_directory(folder, name="trec8"))
    results = []

    # the parts, once each, for the note
    sample, t_sample = _timed(lambda: relevance_sample(collection, seed=0))
    map_matrix, t_map = _timed(lambda: sb.pooled_map(collection, sample))
    infap_matrix, t_inf = _timed(lambda: sb.sample_infap(collection, sample))
    _, t_logo = _timed(lambda: sb.leave_one_group_out(collection, sample, map_matrix=map_matrix,
                                                      infap_matrix=infap_matrix))
    scores, t_sub = _timed(lambda: sb.subsample_scores(collection, sample, 100, seed=1))
    _, t_anova = _timed(lambda: (sb.anova_topic_sample(scores), sb.anova_per_run(scores)))

    times = []
    for _ in range(max(1, repeat)):
        _, seconds = _timed(lambda: sb.run_study(collection, n_subsamples=100, seed=0))
        times.append(seconds)
    ours = min(times)
    results.append(Result(
        "Soboroff 2007 study on TREC-8 (sample, Figure 1, leave-one-group-out, 100 subsamples, ANOVAs)", ours, None,
        "-", "< 120 s", ours < TARGET_SECONDS,
        f"load {load:.2f} s (cached); sample {t_sample:.2f} s, MAP on the pool {t_map:.2f} s, infAP {t_inf:.2f} s, "
        f"leave-one-group-out {t_logo:.2f} s, 100 subsamples scored {t_sub:.2f} s, ANOVAs {t_anova:.2f} s",
    ))

    from evalkit.batch.pipeline import run_notebook

    notebook = Path(__file__).resolve().parents[1] / "notebooks" / "02_soboroff2007_pooled_vs_sampled.ipynb"
    with tempfile.TemporaryDirectory() as tmp:
        _, seconds = _timed(lambda: run_notebook(notebook, Path(tmp) / notebook.name, dataset="trec8"))
    results.append(Result("notebook 02 executed by papermill on TREC-8", seconds, None, "-", "< 120 s",
                          seconds < TARGET_SECONDS, "kernel start, figures and the widget's first draw included"))
    return results
