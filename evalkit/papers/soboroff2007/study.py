"""Soboroff (2007): the whole study (what the notebook shows and the claims read), in one call: :func:`run_study`
(what ``bench/bench_soboroff2007.py`` runs) fills a :class:`Study` from :mod:`evalkit.papers.soboroff2007.experiment`
(the sample, Figure 1, leave one group out, the subsamples and ANOVAs) and :mod:`evalkit.papers.soboroff2007.draws`
(the figures over many draws, the uniform sample, MAP on the pool)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalkit.data.collection import Collection
from evalkit.judging.relevance_sampling import DEFAULTS, RelevanceSample, relevance_sample
from evalkit.papers.soboroff2007.draws import Draws, LogoDraws, figure1_draws, logo_draws as _logo_draws, \
    map_adequacy, uniform_comparison
from evalkit.papers.soboroff2007.experiment import (
    AnovaResult,
    anova_per_run,
    anova_topic_sample,
    figure1,
    figure1_summary,
    leave_one_group_out,
    logo_summary,
    pooled_map,
    sample_infap,
    sample_statistics,
    subsample_scores,
)

__all__ = ["Study", "run_study"]


@dataclass
class Study:
    """Everything the notebook shows: the sample, the score matrices, Figure 1, leave-one-group-out, ANOVAs; and,
    for the claims, Figure 1 and the sample's statistics over many draws (``draws``), leave one group out over
    draws (``logo_draws``), the uniform sample's relevant documents (``uniform``) and MAP on the pool against the
    full qrels (``adequacy``) (:mod:`evalkit.papers.soboroff2007.draws`)."""

    sample: RelevanceSample
    statistics: pd.DataFrame
    map_matrix: np.ndarray
    infap_matrix: np.ndarray
    figure1: pd.DataFrame
    figure1_summary: pd.DataFrame
    logo: pd.DataFrame
    logo_summary: pd.DataFrame
    subsample_scores: np.ndarray
    anova: AnovaResult
    anova_runs: pd.DataFrame
    draws: Draws | None = None
    logo_draws: LogoDraws | None = None
    uniform: pd.DataFrame | None = None
    adequacy: pd.DataFrame | None = None


def run_study(collection: Collection, runs=None, *, phase1_depth: int = DEFAULTS["phase1_depth"],
              rpt: float = DEFAULTS["rpt"], slope: float = DEFAULTS["slope"], budget: int = DEFAULTS["budget"],
              max_depth="judged", n_subsamples: int = 100, n_draws: int = 20, logo_draws: int = 20, seed: int = 0,
              alpha: float = 0.05, progress: bool = False) -> Study:
    """The paper's whole computation on ``collection``. ``seed`` draws the sample; ``seed + 1`` the subsamples;
    the draws of the spread take :func:`evalkit.parallel.trial_seeds` of ``seed + 2`` (Figure 1) and ``seed + 3``
    (leave one group out)."""
    sample = relevance_sample(collection, runs, phase1_depth=phase1_depth, rpt=rpt, slope=slope, budget=budget,
                              max_depth=max_depth, seed=seed)
    map_matrix = pooled_map(collection, sample)
    infap_matrix = sample_infap(collection, sample)
    fig = figure1(collection, sample, map_matrix, infap_matrix)
    logo = leave_one_group_out(collection, sample, runs, map_matrix, infap_matrix)
    scores = subsample_scores(collection, sample, n_subsamples, seed + 1, progress)
    return Study(
        sample=sample,
        statistics=sample_statistics(sample),
        map_matrix=map_matrix,
        infap_matrix=infap_matrix,
        figure1=fig,
        figure1_summary=figure1_summary(fig),
        logo=logo,
        logo_summary=logo_summary(logo),
        subsample_scores=scores,
        anova=anova_topic_sample(scores, alpha, collection.topics),
        anova_runs=anova_per_run(scores, collection.run_names, alpha),
        draws=figure1_draws(collection, sample, n_draws, seed + 2, map_matrix, progress),
        logo_draws=_logo_draws(collection, sample, logo_draws, seed + 3, runs, map_matrix, progress),
        uniform=uniform_comparison(collection, sample),
        adequacy=map_adequacy(collection, sample, map_matrix),
    )
