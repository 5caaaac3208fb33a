"""Soboroff (2007), "A comparison of pooled and sampled relevance judgments" (EVIA 2007; TREC 2006 Terabyte).

The design and every analysis of the paper, as pure functions returning DataFrames:

* :func:`sample_statistics`: the relevance-based sample's statistics (Sec. 2) beside the paper's
  (:data:`PAPER_SAMPLE`); the sample itself is :func:`evalkit.judging.relevance_sampling.relevance_sample`.
* :func:`figure1`, :func:`figure1_summary`: each run's MAP on the phase-1 pool against its infAP (trec_eval's)
  on the sample, Kendall's tau, how many runs score lower (paper: tau 0.8, all but four runs lower).
* :func:`leave_one_group_out`, :func:`logo_summary`: remove a group's runs from both the pool and the sample,
  rescore that group's runs (paper: similar score change, smaller rank change for infAP).
* :func:`subsample_scores`, :func:`anova_topic_sample`, :func:`anova_per_run`: infAP over 100 random subsamples
  of the phase-1 pool at the sample's per-topic rates, and two-way analyses of variance by topic and sample
  (paper: sample not significant; topic significant for 45 of 50 topics; two runs with p = 0.016, 0.014).
* :func:`titlestat`, :func:`titlestat_rel`, :func:`titlestat_sets`: Buckley et al.'s title-word statistic over a
  caller-supplied text source (TREC run files carry no document text; :func:`titlestat_example` is a tiny
  made-up collection of texts).
* :func:`figure1_draws`, :func:`logo_draws`: the figures that come from one random sample, over many draws of
  the same design (the claims read their spread, never one draw); :func:`uniform_comparison`,
  :func:`map_adequacy`: the paper's sentences on uniform sampling and on the depth-50 pool's MAP, checked;
* :func:`grade_study` (:mod:`~evalkit.papers.soboroff2007.ratings`): every claim's figure, interval and rating by
  the written rules; :func:`claims` the rows the notebook records; :func:`deviations` where this replication
  differs from the paper; :func:`sensitivity` the sweep over the reconstructed slope;
* :func:`plan`: needs, scaled depths, every parameter checked, and the degenerate parts of the design
  (:func:`degenerate_checks`: sampling rate 1.0, the cap setting the depths, no nearly-100% topics);
* :func:`run_study`: the whole computation (what ``bench/bench_soboroff2007.py`` runs).

Readings made here (the paper is terse, and its leave-one-group-out table did not survive extraction):

* **MAP on the pool**: trec_eval's AP with the phase-1 depth-Δ pool as qrels (documents outside it nonrelevant),
  mean over topics. **infAP on the sample**: trec_eval's infAP (:func:`evalkit.measures.inferred.trec_infap`) with
  the sampled qrels: pooled-but-unsampled documents (grade -1) are estimated, unpooled ones nonrelevant.
* **Leave one group out**: a group's runs are removed from the pool and the sample by dropping the documents
  that *only* that group's pooling runs retrieved within the phase-1 depth (pool) or within the topic's sample
  depth (sample); the sample's depths, rates and draws are kept (not re-estimated). Every run of the group is
  rescored (pooling or not). *Score change* = |full - held out| of a run's mean score; *rank change* = |rank
  with its held-out score - rank with its full score|, ranked against the other runs' full-judgment scores (1 +
  the number of other runs scoring strictly higher). Only groups with at least one pooling run are held out.
* **ANOVA by topic and sample** (runs as replicates): the additive model infAP ~ topic + sample over every
  (subsample, run, topic) value of the balanced design, sums of squares in closed form (equal to
  ``statsmodels``' ``anova_lm``; tests check it). "Topic significant for 45 of 50 topics" is read as the test of
  each topic's effect (its mean minus the grand mean, sum-to-zero coding) against 0 with the model's residual
  variance, t test, two-sided, at alpha. **Per run**: infAP ~ topic + sample on the run's (subsample x topic)
  table (two-way without replication).
* **titlestat** (Buckley, Dimmick, Soboroff and Voorhees 2007): for a topic and a set of documents, the mean
  over the title's words (lower-cased, stop words dropped, optionally stemmed by a caller's function) of the
  fraction of the documents containing the word; averaged over topics. ``titlestat_rel`` uses the judged
  relevant documents.

The package's modules (each imports only from those listed before it): ``paper`` (the paper's numbers),
``presets`` (run sizes), ``plan`` (needs, depths and degenerate designs on a collection), ``experiment`` (the
sample's statistics, Figure 1, leave one group out, subsamples and ANOVAs), ``draws`` (the figures over many draws,
the uniform sample, MAP on the pool), ``study`` (the whole study), ``ratings`` (each claim graded), ``claims``,
``sensitivity`` (the slope sweep), ``tables`` (titlestat, deviations), ``figures``, ``explorer`` (the widget);
every public name is re-exported here
(``from evalkit.papers import soboroff2007 as sb; sb.run_study(...)``).
"""

from __future__ import annotations

from evalkit.papers.soboroff2007.claims import CLAIM_ROWS, claims
from evalkit.papers.soboroff2007.draws import (
    Draws,
    LogoDraws,
    figure1_draws,
    logo_draws,
    map_adequacy,
    uniform_comparison,
)
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
    unique_group,
)
from evalkit.papers.soboroff2007.explorer import explorer
from evalkit.papers.soboroff2007.figures import draw_design, plot_depths, plot_draws, plot_figure1
from evalkit.papers.soboroff2007.paper import (
    PAPER_ANOVA,
    PAPER_FIGURE1,
    PAPER_LOGO,
    PAPER_POOL,
    PAPER_SAMPLE,
    PAPER_TITLESTAT,
)
from evalkit.papers.soboroff2007.plan import degenerate_checks, design_table, plan
from evalkit.papers.soboroff2007.presets import MIN_DRAWS, PRESETS, settings
from evalkit.papers.soboroff2007.ratings import Graded, grade_study
from evalkit.papers.soboroff2007.sensitivity import sensitivity, survives
from evalkit.papers.soboroff2007.study import Study, run_study
from evalkit.papers.soboroff2007.tables import (
    STOPWORDS,
    deviations,
    title_words,
    titlestat,
    titlestat_example,
    titlestat_rel,
    titlestat_sets,
)

__all__ = [
    "CLAIM_ROWS",
    "MIN_DRAWS",
    "PAPER_ANOVA",
    "PAPER_FIGURE1",
    "PAPER_LOGO",
    "PAPER_POOL",
    "PAPER_SAMPLE",
    "PAPER_TITLESTAT",
    "PRESETS",
    "STOPWORDS",
    "anova_per_run",
    "anova_topic_sample",
    "AnovaResult",
    "claims",
    "degenerate_checks",
    "design_table",
    "deviations",
    "draw_design",
    "Draws",
    "explorer",
    "figure1",
    "figure1_draws",
    "figure1_summary",
    "grade_study",
    "Graded",
    "leave_one_group_out",
    "logo_draws",
    "logo_summary",
    "LogoDraws",
    "map_adequacy",
    "plan",
    "plot_depths",
    "plot_draws",
    "plot_figure1",
    "pooled_map",
    "run_study",
    "sample_infap",
    "sample_statistics",
    "sensitivity",
    "settings",
    "Study",
    "subsample_scores",
    "survives",
    "title_words",
    "titlestat",
    "titlestat_example",
    "titlestat_rel",
    "titlestat_sets",
    "uniform_comparison",
    "unique_group",
]
