"""Carterette (2007), "Robust test collections for retrieval evaluation": the Sec. 4 experiment.

Per trial (seeded): pick k = 10 random runs; the first c = 2 are the "original" runs. Acquire judgments for them
with MTC (p = 0.5) and with RTC (expert aggregation, re-estimated every 10th judgment), each until
P(dMAP < 0) >= 0.95 or <= 0.05 (Algorithm 1). Then, with no further judgments, estimate relevance for every
document the k runs retrieve (MTC: 0.5; RTC: the Sec. 3 model with the k runs as experts), EMAP for the k runs
and P(dMAP < 0) for all k (k - 1) / 2 pairs. Truth: MAP on the full qrels with every list cut at 100. IP judges
the originals' documents in rank order for as many judgments as MTC made, unjudged = nonrelevant. On another
collection :func:`plan` cuts the lists at its judged depth (when less than 100) and takes k = min(10, runs).

Analysis (pure functions of the per-pair / per-trial DataFrames :func:`run_experiment` returns):
:func:`table2` (confidence bins, W-bar, judgments, tau), :func:`hypothesis_tests`, :func:`figure2_data`,
:func:`table3` (by pair type), :func:`table4` (by overlap). ``PAPER_*`` hold the paper's numbers.

Definitions used (reconstructed where the paper is terse):

* A pair's *prediction* is the sign of dMAP with P(dMAP < 0) >= 0.5 meaning "dMAP < 0"; its *confidence* is
  max(P, 1 - P); it is *correct* if the true dMAP has the predicted sign. Pairs whose true dMAP is exactly 0
  are left out of accuracy and W.
* Bins are [0.5, 0.6), [0.6, 0.7), [0.7, 0.8), [0.8, 0.9), [0.9, 0.95), [0.95, 0.99) and [0.99, 1] (the paper's
  "1.0" row).
* W (Sec. 4.4): the bookmaker sets odds O = P / (1 - P) on the predicted outcome; W_i = (y_i - P_i)/(1 - P_i)
  with P_i the confidence and y_i = 1 if the prediction is right; -W_i is capped at 100 (W_i >= -100), and W_i = 0
  when P_i = 1 and the prediction is right. W-bar is the mean over pairs. The orientation (betting on the
  predicted side) makes W independent of which run of the pair is called "first".
* Overlap of two runs (Table 4): mean over topics of |A n B| / |A u B| of their top-100 lists (Aslam & Savell's
  "percentage of documents retrieved in common"; ``overlap="fraction"`` uses |A n B| / 100 instead).
* tau: Kendall's tau-b between the k runs' EMAP (MTC, RTC) or judged-only MAP (IP) and their true MAP.
* RTC's experts while the c original runs are judged are those c runs (the researcher has nothing else yet;
  ``rtc_experts="all"`` lets all k rankings serve); after that, all k runs.
* RTC's smoothing: the paper trained its prior parameters on TREC-4 (not available) and reports a = b = 1 for the
  aggregation. With a = b = 1 (``RTC_PAPER_PRIORS``) our reconstruction reaches 95% on the first pair right after
  the first re-estimation (10 judgments) and is far overconfident on the new pairs: the fitted model tilts the mean
  p of one run's documents against the other's, and with 50 topics SD[dMAP] (~0.01) is too small to absorb it
  (:func:`reestimation_diagnostics`). The notebook chooses the strength a of Beta(a, a) at run time on the
  collection it studies, by two-fold topic-split cross-validation (:func:`topic_split_sweeps`,
  :func:`prior_cross_validation`: each half's choice scored on the other half), with a second opinion on a
  simulated collection (:func:`second_opinion_collection`); ``RTC_SMOOTHED`` is only the library's default for
  calls that name no prior.
* Platt's slope is constrained to B >= 0 (:func:`evalkit.confidence.fit_platt`).

The package, one job a module (imports flow one way, top to bottom): :mod:`~evalkit.papers.carterette2007.paper`
(the paper's figures as data), :mod:`~evalkit.papers.carterette2007.presets` (run sizes),
:mod:`~evalkit.papers.carterette2007.plan` (needs, scaling, every parameter checked),
:mod:`~evalkit.papers.carterette2007.experiment` (data, one trial, the seeded trials, the studies behind the
explanations), :mod:`~evalkit.papers.carterette2007.scoring` (the scoring of a prediction and its intervals over
trials), :mod:`~evalkit.papers.carterette2007.tables` (results to DataFrames, the degenerate checks, the deviations),
:mod:`~evalkit.papers.carterette2007.prior` (the aggregation prior: sweeps, topic-split choice, second opinion,
sensitivity runs), :mod:`~evalkit.papers.carterette2007.figures` (drawing),
:mod:`~evalkit.papers.carterette2007.explorer` (the widget) and :mod:`~evalkit.papers.carterette2007.claims` (claims
rows rated by the written rules, their sensitivity to the prior, and the findings in words). Everything the
notebook uses is re-exported here.
"""

from __future__ import annotations

from evalkit.papers.carterette2007.paper import (
    ADHOC99,
    BIN_EDGES,
    BIN_LABELS,
    ONE_BIN_SHARE,
    PAPER,
    PAPER_ADHOC99,
    PAPER_ALPHA,
    PAPER_C,
    PAPER_DEPTH,
    PAPER_K,
    PAPER_TABLE2,
    PAPER_TABLE3,
    PAPER_TABLE4,
    PAPER_TEXT,
    PAPER_TOY,
    POOLED,
    PRIOR_GRID,
    RTC_PAPER_PRIORS,
    TABLE2_SUMMARY_ROWS,
    paper_table2,
    paper_table2_summary,
)
from evalkit.papers.carterette2007.presets import PRESETS, settings
from evalkit.papers.carterette2007.plan import SCHEDULERS, check_prior, check_strengths, plan
from evalkit.papers.carterette2007.experiment import (
    PAIR_TYPES,
    RTC_SMOOTHED,
    ExperimentResults,
    TrialData,
    ap_moments_table,
    carterette_trial,
    footnote_check,
    pick_pair,
    reestimation_diagnostics,
    run_experiment,
    toy_distribution,
    variance_monte_carlo,
)
from evalkit.papers.carterette2007.scoring import (
    INTERVAL_SEED,
    accuracy_interval,
    bin_intervals,
    binned,
    binned_sums,
    confidence_bins,
    paired_interval,
    predictions,
    statistic_interval,
    trial_interval,
    trial_tallies,
    w_bar_interval,
    winnings,
)
from evalkit.papers.carterette2007.tables import (
    OVERLAP_LABELS,
    budget_evidence,
    budget_summary,
    deviations,
    figure2_data,
    grouped_comparison,
    hypothesis_tests,
    mark_degenerate,
    overlap_accuracy,
    overlap_differences,
    overlap_spread,
    paper_comparison,
    prior_comparison,
    reestimation_summary,
    rtc_summary,
    run_overlaps,
    table2,
    table2_summary,
    table3,
    table4,
    zero_judgment_trials,
)
from evalkit.papers.carterette2007.prior import (
    PRIOR_STRENGTHS,
    SECOND_OPINION_PARAMS,
    PriorChoice,
    TopicSplit,
    choose_prior,
    constant_p_evidence,
    prior_cross_validation,
    prior_strength_table,
    rtc_sweep,
    second_opinion_collection,
    sensitivity_runs,
    strength_table,
    topic_halves,
    topic_split_sweeps,
    with_rtc_from,
)
from evalkit.papers.carterette2007.figures import explorer_figure, plot_figure2, plot_judgments, plot_reestimation
from evalkit.papers.carterette2007.explorer import explorer
from evalkit.papers.carterette2007.claims import MIN_TRIALS, SENSITIVE, claims, sensitivity
from evalkit.papers.carterette2007.findings import (
    alpha_of,
    collapse_markdown,
    confident_wrong_sentence,
    findings_markdown,
    lists_markdown,
    most_confident_wrong,
    prior_markdown,
    variance_markdown,
)

__all__ = [
    "ADHOC99", "BIN_EDGES", "BIN_LABELS", "ONE_BIN_SHARE", "PAPER", "PAPER_ADHOC99", "PAPER_ALPHA", "PAPER_C",
    "PAPER_DEPTH", "PAPER_K", "PAPER_TABLE2", "PAPER_TABLE3", "PAPER_TABLE4", "PAPER_TEXT", "PAPER_TOY", "POOLED",
    "PRIOR_GRID", "RTC_PAPER_PRIORS", "TABLE2_SUMMARY_ROWS", "paper_table2", "paper_table2_summary", "PAIR_TYPES",
    "RTC_SMOOTHED", "ExperimentResults", "TrialData", "ap_moments_table", "carterette_trial", "footnote_check",
    "pick_pair", "reestimation_diagnostics", "run_experiment", "toy_distribution", "variance_monte_carlo",
    "INTERVAL_SEED", "accuracy_interval", "bin_intervals", "binned", "binned_sums", "confidence_bins",
    "paired_interval", "predictions", "statistic_interval", "trial_interval", "trial_tallies", "w_bar_interval",
    "winnings", "OVERLAP_LABELS", "budget_evidence", "budget_summary", "deviations", "figure2_data",
    "grouped_comparison", "hypothesis_tests", "mark_degenerate", "overlap_accuracy", "overlap_differences",
    "overlap_spread", "paper_comparison", "prior_comparison", "reestimation_summary", "rtc_summary", "run_overlaps",
    "table2", "table2_summary", "table3", "table4", "zero_judgment_trials", "PRIOR_STRENGTHS",
    "SECOND_OPINION_PARAMS", "PriorChoice", "TopicSplit", "choose_prior", "constant_p_evidence",
    "prior_cross_validation", "prior_strength_table", "rtc_sweep", "second_opinion_collection", "sensitivity_runs",
    "strength_table",
    "topic_halves", "topic_split_sweeps", "with_rtc_from", "MIN_TRIALS", "SENSITIVE", "alpha_of", "claims",
    "collapse_markdown", "confident_wrong_sentence", "findings_markdown", "lists_markdown", "most_confident_wrong",
    "prior_markdown",
    "sensitivity", "variance_markdown",
]
