"""Soboroff (2007): does each verdict survive the parameter the kit had to reconstruct?

The paper's text lost the slope of its linear fall-off ("a fixed slope representing ΔP(rel) per 50 ranks"; the
value is not in the text): the kit reads 0.02 (:mod:`evalkit.judging.relevance_sampling`). :func:`sensitivity`
redraws the design at each slope of a sweep and re-grades every claim whose figure depends on it
(:data:`~evalkit.papers.soboroff2007.ratings.SWEEP_KEYS`) with the same rules, at the sweep's own (smaller) sizes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.claims.rules import RATINGS
from evalkit.data.collection import Collection
from evalkit.judging.relevance_sampling import relevance_sample
from evalkit.papers.soboroff2007.draws import figure1_draws, logo_draws, map_adequacy, uniform_comparison
from evalkit.papers.soboroff2007.experiment import (
    anova_per_run,
    anova_topic_sample,
    pooled_map,
    subsample_scores,
)
from evalkit.papers.soboroff2007.plan import degenerate_checks
from evalkit.papers.soboroff2007.ratings import SWEEP_KEYS, grade_study
from evalkit.papers.soboroff2007.study import Study

__all__ = ["sensitivity", "survives", "SWEEP_LABELS", "RATED"]

#: the words of a rating (the others say why a claim is not rated)
RATED = RATINGS

#: the sweep's column for each re-graded claim
SWEEP_LABELS = {
    "accuracy": "estimation accurate",
    "not_lower": "infAP below MAP (<= 10% not)",
    "deep_topics": "no difference on ~100% topics",
    "logo": "leave one group out",
    "anova_replicates": "ANOVA (runs as replicates)",
    "anova_mixed": "ANOVA (topic x sample)",
    "runs_significant": "per-run ANOVA",
    "variance": "variance not a worry",
    "uniform": "uniform sampling worse",
}


def sensitivity(collection: Collection, plan, slopes, *, study: Study | None = None, n_draws: int = 5,
                logo_draws_n: int = 2, n_subsamples: int = 20, seed: int = 0, progress: bool = False) -> pd.DataFrame:
    """One row a slope: the design there (``mean depth``, ``topics capped``, ``topics at rate 1``, ``mean
    rate``) and each re-graded claim's rating (``yes`` / ``no`` / ``partly`` / ``inconclusive``, or
    ``degenerate`` where the design leaves the claim nothing to measure). The other parameters are the plan's
    (phase-1 depth, cap, rpt, budget), and the plan's slope is added to ``slopes``; ``n_draws`` draws for Figure
    1, ``logo_draws_n`` for leave one group out and ``n_subsamples`` subsamples a slope. ``study``: the notebook's
    own study (at the plan's slope), whose grades are that row's instead of a smaller recomputation. The same rules
    as the claims table, the minimum of draws for a spread included (a spread over fewer than
    :data:`~evalkit.papers.soboroff2007.presets.MIN_DRAWS` draws reads "not rated at class size"). ``progress``: a
    bar that moves with each slope done."""
    from tqdm.auto import tqdm

    slopes = [float(s) for s in slopes]
    if not slopes or min(slopes) <= 0:
        raise ValueError(f"sensitivity_slopes must be a non-empty list of numbers > 0, got {slopes!r}")
    slopes = sorted(set(slopes) | {float(plan.slope)})  # the notebook's own slope is always a row
    rows = []
    map_matrix = None
    for slope in tqdm(slopes, desc="slopes of the sweep", disable=not progress):
        if study is not None and np.isclose(slope, plan.slope):
            rows.append(_row(slope, study.sample.table, grade_study(study, dict(plan.degenerate))))
            continue
        sample = relevance_sample(collection, phase1_depth=plan.phase1_depth, rpt=plan.rpt, slope=slope,
                                  budget=plan.budget, max_depth=plan.max_depth, seed=seed)
        if map_matrix is None:  # the phase-1 pool, and MAP on it, do not depend on the slope
            map_matrix = pooled_map(collection, sample)
            adequacy = map_adequacy(collection, sample, map_matrix)
        scores = subsample_scores(collection, sample, n_subsamples, seed + 1)
        study_k = Study(sample=sample, statistics=None, map_matrix=map_matrix, infap_matrix=None, figure1=None,
                      figure1_summary=None, logo=None, logo_summary=None, subsample_scores=scores,
                      anova=anova_topic_sample(scores, topics=collection.topics),
                      anova_runs=anova_per_run(scores, collection.run_names),
                      draws=figure1_draws(collection, sample, n_draws, seed + 2, map_matrix),
                      logo_draws=logo_draws(collection, sample, logo_draws_n, seed + 3, map_matrix=map_matrix),
                      uniform=uniform_comparison(collection, sample), adequacy=adequacy)
        rows.append(_row(slope, sample.table, grade_study(study_k, degenerate_checks(sample.table))))
    frame = pd.DataFrame(rows).set_index("slope")
    frame.attrs["sizes"] = (f"{n_draws} draws of the sample, {logo_draws_n} of leave one group out and "
                            f"{n_subsamples} subsamples a slope" +
                            (f" (at the notebook's slope {plan.slope:g}: the study above)" if study is not None
                             else ""))
    return frame


def _row(slope: float, table, graded: dict) -> dict:
    row = {"slope": slope, "mean depth": float(table.depth.mean()), "topics capped": int(table.capped.sum()),
           "topics at rate 1": int((table.rate >= 1).sum()), "mean rate": float(table.rate.mean())}
    row.update({SWEEP_LABELS[k]: graded[k].agrees for k in SWEEP_KEYS})
    return row


def survives(frame: pd.DataFrame, slope: float) -> pd.Series:
    """Per re-graded claim: whether its rating is the same at every slope of the sweep where it is rated as at
    ``slope`` (the notebook's): True / False; NaN where the notebook's slope gives it no rating (degenerate, or
    not rated at its size)."""
    ratings = frame[[SWEEP_LABELS[k] for k in SWEEP_KEYS]]
    at = ratings.loc[np.isclose(ratings.index.to_numpy(float), slope)]
    if at.empty:
        raise ValueError(f"the sweep has no row at slope {slope}")
    out = {}
    for column in ratings:
        reference = at.iloc[0][column]
        rated = ratings[column][ratings[column].isin(RATED)]
        out[column] = (rated == reference).all() if reference in RATED else np.nan
    return pd.Series(out, dtype=object)
