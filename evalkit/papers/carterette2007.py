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
  (:func:`reestimation_diagnostics`). The default here is ``RTC_SMOOTHED``, the strength with the best W-bar on
  held-out data (``PRIOR_SOURCE``, :func:`prior_selection`), never on the collection it is reported for.
* Platt's slope is constrained to B >= 0 (:func:`evalkit.confidence.fit_platt`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats as sps

from evalkit.confidence import (
    ExpertAggregation,
    estimate_runs,
    incremental_pooling,
    judged_map,
    mtc,
    rtc,
)
from evalkit.data.collection import Collection, JudgedSet
from evalkit.measures import average_precision
from evalkit.papers.needs import (
    Plan,
    require,
    require_judged_depth,
    require_known_judged_depth,
    require_runs,
    scale_k,
)
from evalkit.parallel import run_trials
from evalkit.stats import kendall_tau

__all__ = [
    "PAPER_DEPTH",
    "PAPER_K",
    "plan",
    "TrialData",
    "ExperimentResults",
    "carterette_trial",
    "run_experiment",
    "table2",
    "table2_summary",
    "paper_table2",
    "paper_table2_summary",
    "TABLE2_SUMMARY_ROWS",
    "hypothesis_tests",
    "figure2_data",
    "table3",
    "table4",
    "paper_comparison",
    "confidence_bins",
    "winnings",
    "BIN_EDGES",
    "RTC_PAPER_PRIORS",
    "RTC_SMOOTHED",
    "PRIOR_SOURCE",
    "PRIOR_SELECTION",
    "prior_selection",
    "BIN_LABELS",
    "PAPER_ADHOC99",
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "PAPER_TABLE4",
    "PAPER_TEXT",
    "PAPER_TOY",
    "toy_distribution",
    "ap_moments_table",
    "budget_summary",
    "PRIOR_STRENGTHS",
    "prior_strength_table",
    "rtc_summary",
    "choose_prior",
    "reestimation_diagnostics",
    "reestimation_summary",
    "variance_monte_carlo",
    "footnote_check",
    "pick_pair",
    "zero_judgment_trials",
    "claims",
    "findings_markdown",
    "collapse_markdown",
    "variance_markdown",
    "prior_comparison",
    "prior_markdown",
    "overlap_accuracy",
    "grouped_comparison",
    "plot_figure2",
    "explorer_figure",
    "explorer",
]

#: the aggregation prior the paper states (alpha = beta = 1), with this kit's readings of the other steps
RTC_PAPER_PRIORS = {"prior": (1.0, 1.0)}
#: the default of :func:`carterette_trial`: the aggregation prior Beta(a, a) with the best W-bar on held-out data
#: (:data:`PRIOR_SELECTION`, from :data:`PRIOR_SOURCE`; module docstring)
RTC_SMOOTHED = {"prior": (1000.0, 1000.0)}

#: where :data:`RTC_SMOOTHED` was chosen: a collection the kit reports nothing else from when it reports TREC-8, as the
#: paper chose its prior on TREC-4 and reported the others
PRIOR_SOURCE = ("synthetic (the kit's simulated TREC-like collection, 129 runs x 50 topics, fitted to TREC-8's "
                "statistics; 100 trials a strength, seed 2007)")

#: ``prior_strength_table(TrialData.from_collection(load_dataset("synthetic")), n_trials=100, seed=2007)`` (RTC
#: only, Platt slope >= 0), recorded: the table the default was chosen from (:func:`choose_prior`: best W-bar)
PRIOR_SELECTION = (
    {'a = b': 1.0, 'trials': 100, 'median judged': 10.0, 'mean judged': 11.09, 'top-bin share': 0.6647, 'top-bin accuracy': 0.7967, 'W_bar': -14.7128, 'mean tau': 0.427},
    {'a = b': 10.0, 'trials': 100, 'median judged': 10.0, 'mean judged': 28.36, 'top-bin share': 0.5096, 'top-bin accuracy': 0.853, 'W_bar': -9.0056, 'mean tau': 0.4558},
    {'a = b': 30.0, 'trials': 100, 'median judged': 20.0, 'mean judged': 128.46, 'top-bin share': 0.4402, 'top-bin accuracy': 0.8753, 'W_bar': -7.0623, 'mean tau': 0.4776},
    {'a = b': 100.0, 'trials': 100, 'median judged': 60.0, 'mean judged': 260.59, 'top-bin share': 0.3591, 'top-bin accuracy': 0.8998, 'W_bar': -5.1023, 'mean tau': 0.4896},
    {'a = b': 300.0, 'trials': 100, 'median judged': 86.0, 'mean judged': 327.18, 'top-bin share': 0.2509, 'top-bin accuracy': 0.8973, 'W_bar': -3.9859, 'mean tau': 0.4754},
    {'a = b': 1000.0, 'trials': 100, 'median judged': 108.5, 'mean judged': 384.95, 'top-bin share': 0.1793, 'top-bin accuracy': 0.8724, 'W_bar': -3.7827, 'mean tau': 0.4154},
    {'a = b': 3000.0, 'trials': 100, 'median judged': 117.5, 'mean judged': 411.61, 'top-bin share': 0.1498, 'top-bin accuracy': 0.8368, 'W_bar': -4.0103, 'mean tau': 0.3718},
)


def prior_selection() -> pd.DataFrame:
    """:data:`PRIOR_SELECTION` as a table (the held-out run the default prior was chosen from)."""
    return pd.DataFrame(list(PRIOR_SELECTION))

BIN_EDGES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)
BIN_LABELS = ("0.5 – 0.6", "0.6 – 0.7", "0.7 – 0.8", "0.8 – 0.9", "0.9 – 0.95", "0.95 – 0.99", "1.0")

# ----------------------------------------------------------------------------------------------------------------
# the paper's numbers
# ----------------------------------------------------------------------------------------------------------------

#: Table 5, column "ad hoc 99" (TREC-8, our collection): RTC only; accuracy by confidence bin, W-bar, median
#: judgments to reach 95% on the first pair, mean tau over the 10 runs.
PAPER_ADHOC99 = {
    "accuracy": dict(zip(BIN_LABELS, (0.594, 0.743, 0.786, 0.868, 0.926, 0.928, 0.996))),
    "W_bar": -0.44,
    "median_judged": 179,
    "mean_tau": 0.532,
    "collection": {"topics": 50, "runs": 129, "judged": 86830, "relevant": 4728},  # Table 1
}

#: Table 2 (pooled over ad hoc 94, 96, 97, 98, 99 -- not TREC-8 alone): share of pairs and accuracy per bin.
PAPER_TABLE2 = {
    "MTC": {
        "share": dict(zip(BIN_LABELS, (0.337, 0.181, 0.104, 0.094, 0.073, 0.179, 0.033))),
        "accuracy": dict(zip(BIN_LABELS, (0.617, 0.731, 0.701, 0.690, 0.780, 0.704, 0.683))),
        "W_bar": -5.34, "median_judged": 251, "mean_judged": 823, "mean_tau": 0.393,
    },
    "RTC": {
        "share": dict(zip(BIN_LABELS, (0.286, 0.201, 0.155, 0.121, 0.066, 0.124, 0.047))),
        "accuracy": dict(zip(BIN_LABELS, (0.619, 0.763, 0.780, 0.849, 0.931, 0.934, 0.989))),
        "W_bar": -0.39, "median_judged": 235, "mean_judged": 502, "mean_tau": 0.555,
    },
    "IP": {"mean_tau": 0.398},
}

#: Table 3 (RTC, pooled ad hoc sets): accuracy by pair type; None where the paper prints "–".
PAPER_TABLE3 = {
    "two original": {"accuracy": dict(zip(BIN_LABELS, (None, None, None, None, 0.959, 0.962, 1.0))), "W_bar": -1.11},
    "one original": {"accuracy": dict(zip(BIN_LABELS, (0.481, 0.571, 0.679, 0.822, 0.937, 0.925, 0.980))), "W_bar": -0.87},
    "no original": {"accuracy": dict(zip(BIN_LABELS, (0.628, 0.792, 0.817, 0.863, 0.926, 0.931, 0.991))), "W_bar": -0.27},
}

#: Table 4 (RTC, pooled ad hoc sets): accuracy by overlap of the pair.
PAPER_TABLE4 = {
    "0 – 0.1": {"accuracy": dict(zip(BIN_LABELS, (0.684, 0.842, 0.820, 0.936, 0.993, 0.987, 0.999))), "W_bar": 0.44},
    "0.1 – 0.2": {"accuracy": dict(zip(BIN_LABELS, (0.631, 0.786, 0.798, 0.833, 0.927, 0.934, 0.979))), "W_bar": -0.45},
    "0.2 – 0.3": {"accuracy": dict(zip(BIN_LABELS, (0.614, 0.766, 0.789, 0.821, 0.924, 0.933, 0.981))), "W_bar": -0.49},
}

#: Numbers quoted in the text of Sec. 5 (pooled ad hoc sets).
PAPER_TEXT = {
    "wilcoxon_judgments_p": "< 0.0001 (RTC median lower)",
    "ttest_judgments_p": "< 0.0001 (RTC mean lower)",
    "ttest_tau_p": "< 0.0001 (RTC tau higher)",
    "ip_vs_mtc_tau": "not significant",
    "share_sets_le_100_judgments": 0.10,
    "W_bar_sets_le_100_judgments": 0.41,
    "accuracy_conf_ge_0.9_sets_le_100_judgments": 0.997,
    "accuracy_conf_ge_0.9_sets_gt_235_judgments": 0.93,
    "mtc_ip_accuracy_overlap_0_0.1": 0.60,
    "rtc_accuracy_overlap_0_0.1": 0.876,
}


# ----------------------------------------------------------------------------------------------------------------
# data and one trial
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrialData:
    """What every trial needs, computed once: rankings cut at ``depth``, the qrels (the oracle), the true AP."""

    docs: np.ndarray  # (S, T, depth) int32
    qrels: JudgedSet
    true_ap: np.ndarray  # (S, T)
    run_names: np.ndarray
    name: str = "collection"

    @property
    def true_map(self) -> np.ndarray:
        return self.true_ap.mean(axis=1)

    def topics(self, indices, name: str | None = None) -> "TrialData":
        """The same runs on a subset of the topics (``indices`` into the topic axis), e.g. to choose a setting on
        some topics and report on the others."""
        indices = np.asarray(indices, np.int64)
        new_index = np.full(self.docs.shape[1], -1, np.int64)
        new_index[indices] = np.arange(len(indices))
        keep = new_index[self.qrels.topic] >= 0
        qrels = JudgedSet.from_arrays(new_index[self.qrels.topic[keep]].astype(np.int32), self.qrels.doc[keep],
                                      self.qrels.grade[keep], len(indices), self.qrels.n_docs)
        return TrialData(docs=np.ascontiguousarray(self.docs[:, indices]), qrels=qrels,
                         true_ap=self.true_ap[:, indices], run_names=self.run_names,
                         name=name or f"{self.name} ({len(indices)} topics)")

    @classmethod
    def from_collection(cls, collection: Collection, depth: int = 100) -> "TrialData":
        """Truncate at ``depth`` (the paper's 100) and compute the true AP (full qrels, lists cut at depth)."""
        cut = collection.truncate(depth)
        true_ap = average_precision(cut.grades(), cut.qrels.counts())
        return cls(
            docs=np.ascontiguousarray(cut.docs),
            qrels=cut.qrels,
            true_ap=true_ap,
            run_names=np.asarray(cut.run_names),
            name=cut.name,
        )


# ----------------------------------------------------------------------------------------------------------------
# what the notebook needs from a collection
# ----------------------------------------------------------------------------------------------------------------

#: the paper's lists: TREC's top 100 of each run, as deep as ad hoc 99 (TREC-8) was judged
PAPER_DEPTH = 100
#: the paper's runs a trial
PAPER_K = 10


def plan(collection: Collection, k: int = PAPER_K, c: int = 2, depth: int = PAPER_DEPTH, *, trials: int = 300,
         prior_trials: int = 300, strength_trials: int = 30, widget_trials: int = 4,
         max_judgments: int | None = None, fast: bool = False) -> Plan:
    """What the Sec. 4 experiment needs from ``collection``, and the settings it will use there
    (:mod:`evalkit.papers.needs`).

    Needs: a known judged depth (MTC and RTC ask the qrels about any document of the k runs' lists; past the
    judged depth an unjudged document would count as nonrelevant without having been judged); at least 3 runs
    (two original runs and at least one new run: the paper's question is reuse on new runs); c < k (c >= 2, else a
    ValueError). The paper's lists are cut at 100, TREC-8's judged depth: on a collection judged less deep they are
    cut at the judged depth (and at the runs' depth); a ``depth`` the user set is checked against the judged depth. The
    paper's k = 10 runs a trial becomes min(10, runs) (:func:`evalkit.papers.needs.scale_k`), so a trial has
    k (k - 1) / 2 pairs; a k the user set is checked. ``fast``: at most 4 trials (2 with the paper's prior, 1 a
    prior strength and in the widget) and 300 judgments an algorithm and trial.

    Parameters: ``k``, ``c``, ``depth`` (lists cut there; the truth is MAP at that depth on the full qrels),
    ``pairs`` (per trial), ``trials``, ``prior_trials``, ``strength_trials``, ``widget_trials``, ``max_judgments``.
    """
    judged = require_known_judged_depth(collection, f"(MTC and RTC ask them about any document of a run's top "
                                                    f"{depth}; past the judged depth an unjudged document would "
                                                    "count as nonrelevant)")
    require(collection.n_runs >= 3, "at least 3 runs (two original runs whose judgments are reused on a new one)",
            f"{collection.n_runs}", "No parameter changes this: point dataset at a collection with more runs.")
    notes = []
    runs = scale_k(k, collection, default=PAPER_K)
    if runs != int(k):
        notes.append(f"k = {runs} runs a trial ({runs * (runs - 1) // 2} pairs; the paper's {PAPER_K}: the "
                     f"collection has {collection.n_runs} runs)")
    require_runs(collection, runs, "k")
    if int(c) < 2:
        raise ValueError(f"c must be >= 2 (the judgments are built for the pair of the first two runs), got {c}")
    require(int(c) < runs, f"more runs a trial than original runs (c = {int(c)}, k = {runs}: the judgments built "
            "for the c original runs are reused on the k - c new ones)", f"{collection.n_runs} runs",
            f"Set c to at most {runs - 1}" + (f", or k to at least {int(c) + 1}." if int(c) < collection.n_runs
                                              else "."))
    top = min(judged, collection.depth)
    if int(depth) == PAPER_DEPTH:
        cut = min(PAPER_DEPTH, top)
        if cut < PAPER_DEPTH:
            notes.append(f"lists cut at depth {cut} (the judged depth; the paper's 100 is as deep as ad hoc 99 "
                         "was judged)")
    else:
        cut = int(depth)
        require(cut >= 1, f"lists at least 1 deep (depth = {cut})", f"judged depth {judged}",
                f"Set depth between 1 and {top}.")
        require_judged_depth(collection, cut, "depth")
    if fast:
        trials, prior_trials = min(int(trials), 4), min(int(prior_trials), 2)
        strength_trials, widget_trials = min(int(strength_trials), 1), min(int(widget_trials), 1)
        max_judgments = max_judgments or 300
    return Plan("05_carterette2007", collection.name, {
        "k": runs, "c": int(c), "depth": cut, "pairs": runs * (runs - 1) // 2, "trials": int(trials),
        "prior_trials": int(prior_trials), "strength_trials": int(strength_trials),
        "widget_trials": int(widget_trials), "max_judgments": max_judgments}, notes)


def _overlaps(universe, pairs: np.ndarray, kind: str) -> np.ndarray:
    ranked = universe.rank[:, : universe.n] > 0
    out = np.empty(len(pairs))
    n_topics = universe.n_topics
    for row, (i, j) in enumerate(pairs):
        both = np.bincount(universe.topic, weights=ranked[i] & ranked[j], minlength=n_topics)
        if kind == "jaccard":
            either = np.bincount(universe.topic, weights=ranked[i] | ranked[j], minlength=n_topics)
            out[row] = np.mean(np.divide(both, either, out=np.zeros(n_topics), where=either > 0))
        elif kind == "fraction":
            out[row] = np.mean(both / universe.depth)
        else:
            raise ValueError(f"overlap must be 'jaccard' or 'fraction'; got {kind!r}")
    return out


def carterette_trial(
    trial_index: int,
    trial_seed: int,
    data: TrialData,
    k: int = 10,
    c: int = 2,
    alpha: float = 0.95,
    every: int = 10,
    weighting: str = "expected",
    max_judgments: int | None = None,
    model: ExpertAggregation | None = None,
    overlap: str = "jaccard",
    rtc_experts: str = "original",
    run_mtc: bool = True,
) -> dict:
    """One trial of Sec. 4.3 (see the module docstring). Returns plain arrays: ``trial`` (a dict of scalars) and
    ``pairs`` (a dict of equal-length arrays, one entry per pair of the k runs).

    ``model`` is the RTC relevance model (default ``ExpertAggregation(**RTC_SMOOTHED)``); ``weighting`` the MTC
    document weight; ``max_judgments`` an optional budget for each algorithm; ``overlap`` "jaccard" or
    "fraction"; ``rtc_experts`` "original" or "all"; ``run_mtc=False`` skips MTC and IP (their columns are NaN:
    for studies of RTC alone, e.g. :func:`prior_strength_table`). ``shortest_list`` is the fewest documents either
    original run returns for a topic (in the top 100): MTC's p = 0.5 judges short lists harshly.
    """
    rng = np.random.default_rng(trial_seed)
    runs = rng.choice(data.docs.shape[0], size=k, replace=False)
    docs = data.docs[runs]
    original = docs[:c]
    model = ExpertAggregation(**RTC_SMOOTHED) if model is None else model

    by_mtc = mtc(original, data.qrels, alpha, weighting=weighting, max_judgments=max_judgments) if run_mtc else None
    if rtc_experts == "original":  # the researcher has only her c systems while judging
        by_rtc = rtc(original, data.qrels, alpha, every=every, model=model, weighting=weighting, max_judgments=max_judgments)
    elif rtc_experts == "all":  # all k rankings serve as experts (and universe) while the first pairs are judged
        first_pairs = np.stack(np.triu_indices(c, k=1), axis=1)
        by_rtc = rtc(docs, data.qrels, alpha, pairs=first_pairs, every=every, model=model, weighting=weighting,
                     max_judgments=max_judgments)
    else:
        raise ValueError(f"rtc_experts must be 'original' or 'all'; got {rtc_experts!r}")
    est_rtc = estimate_runs(docs, by_rtc.judged, model)
    true_map = data.true_map[runs]
    if run_mtc:
        est_mtc = estimate_runs(docs, by_mtc.judged, 0.5)
        ip_map = judged_map(docs, incremental_pooling(original, data.qrels, by_mtc.n_judgments))
        mtc_p, mtc_emap = est_mtc.prob_negative, est_mtc.expected_map
        mtc_judged, mtc_relevant, mtc_status = by_mtc.n_judgments, int(by_mtc.order_label.sum()), by_mtc.status
        mtc_first, tau_mtc, tau_ip = float(by_mtc.prob_negative[0]), kendall_tau(mtc_emap, true_map), kendall_tau(ip_map, true_map)
    else:
        ip_map = np.full(k, np.nan)
        mtc_p, mtc_emap = np.full((k, k), np.nan), np.full(k, np.nan)
        mtc_judged, mtc_relevant, mtc_status, mtc_first, tau_mtc, tau_ip = -1, -1, "skipped", np.nan, np.nan, np.nan
    lengths = (original >= 0).sum(axis=2)  # (c, T) documents returned in the top 100

    first, second = np.triu_indices(k, k=1)
    pairs = np.stack([first, second], axis=1)
    n_original = (first < c).astype(int) + (second < c).astype(int)
    trial = {
        "trial": trial_index,
        "trial_seed": trial_seed,
        "runs": " ".join(data.run_names[runs]),
        "judged_mtc": mtc_judged,
        "judged_rtc": by_rtc.n_judgments,
        "relevant_mtc": mtc_relevant,
        "relevant_rtc": int(by_rtc.order_label.sum()),
        "status_mtc": mtc_status,
        "status_rtc": by_rtc.status,
        "first_pair_p_mtc": mtc_first,
        "first_pair_p_rtc": float(by_rtc.prob_negative[0]),
        "first_pair_true_delta": float(true_map[0] - true_map[1]),
        "shortest_list": int(lengths.min()),
        "tau_mtc": tau_mtc,
        "tau_rtc": kendall_tau(est_rtc.expected_map, true_map),
        "tau_ip": tau_ip,
    }
    pair_rows = {
        "trial": np.full(len(pairs), trial_index),
        "i": first,
        "j": second,
        "run_i": data.run_names[runs][first],
        "run_j": data.run_names[runs][second],
        "n_original": n_original,
        "overlap": _overlaps(est_rtc.universe, pairs, overlap),
        "true_delta": true_map[first] - true_map[second],
        "p_mtc": mtc_p[first, second],
        "p_rtc": est_rtc.prob_negative[first, second],
        "emap_i_mtc": mtc_emap[first],
        "emap_j_mtc": mtc_emap[second],
        "emap_i_rtc": est_rtc.expected_map[first],
        "emap_j_rtc": est_rtc.expected_map[second],
        "ip_delta": ip_map[first] - ip_map[second],  # judged-only dMAP from IP's judgments (unjudged = nonrelevant)
    }
    return {"trial": trial, "pairs": pair_rows}


@dataclass
class ExperimentResults:
    """``trials``: one row a trial; ``pairs``: one row a (trial, pair of runs); ``params``: the settings."""

    trials: pd.DataFrame
    pairs: pd.DataFrame
    params: dict = field(default_factory=dict)


PAIR_TYPES = {2: "two original", 1: "one original", 0: "no original"}


def run_experiment(
    data: TrialData | Collection,
    n_trials: int = 100,
    seed: int = 2007,
    *,
    scheduler: str | None = None,
    n_jobs: int | None = None,
    progress: bool = True,
    **trial_kwargs,
) -> ExperimentResults:
    """Run ``n_trials`` trials of :func:`carterette_trial` through :func:`evalkit.parallel.run_trials`."""
    if isinstance(data, Collection):
        data = TrialData.from_collection(data)
    outputs = run_trials(
        carterette_trial, n_trials, seed, args=(data,), kwargs=trial_kwargs, scheduler=scheduler, n_jobs=n_jobs,
        progress=progress, desc="carterette2007",
    )
    trials = pd.DataFrame([o["trial"] for o in outputs])
    pairs = pd.concat([pd.DataFrame(o["pairs"]) for o in outputs], ignore_index=True) if outputs else pd.DataFrame()
    if len(pairs):
        pairs["pair_type"] = pairs["n_original"].map(PAIR_TYPES)
    return ExperimentResults(trials=trials, pairs=pairs, params={"n_trials": n_trials, "seed": seed, "data": data.name, **trial_kwargs})


# ----------------------------------------------------------------------------------------------------------------
# analysis
# ----------------------------------------------------------------------------------------------------------------


def confidence_bins(confidence, edges=BIN_EDGES) -> np.ndarray:
    """Bin index of each confidence in [0.5, 1]: left-closed bins, the last one closed on both sides."""
    confidence = np.asarray(confidence, np.float64)
    index = np.searchsorted(np.asarray(edges), confidence, side="right") - 1
    return np.clip(index, 0, len(edges) - 2)


def _predictions(p_negative, true_delta):
    """(confidence, correct, usable) for P(dMAP < 0) against the true dMAP."""
    p = np.asarray(p_negative, np.float64)
    truth = np.asarray(true_delta, np.float64)
    says_negative = p >= 0.5
    confidence = np.where(says_negative, p, 1.0 - p)
    correct = np.where(says_negative, truth < 0, truth > 0)
    usable = truth != 0
    return confidence, correct, usable


def winnings(confidence, correct, cap: float = 100.0) -> np.ndarray:
    """W_i = (y_i - P_i) / (1 - P_i) for the bookmaker of Sec. 4.4, -W capped at ``cap`` (0 when P = 1, y = 1)."""
    p = np.asarray(confidence, np.float64)
    y = np.asarray(correct, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(p < 1.0, (y - p) / (1.0 - p), np.where(y > 0, 0.0, -np.inf))
    return np.maximum(w, -cap)


def _binned(p_negative, true_delta, edges=BIN_EDGES):
    confidence, correct, usable = _predictions(p_negative, true_delta)
    confidence, correct = confidence[usable], correct[usable]
    index = confidence_bins(confidence, edges)
    n_bins = len(edges) - 1
    counts = np.bincount(index, minlength=n_bins)
    hits = np.bincount(index, weights=correct, minlength=n_bins)
    sums = np.bincount(index, weights=confidence, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(counts > 0, hits / np.maximum(counts, 1), np.nan)
        mean_confidence = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    share = counts / max(counts.sum(), 1)
    w_bar = float(winnings(confidence, correct).mean()) if len(confidence) else np.nan
    return share, accuracy, counts, mean_confidence, w_bar


def table2(results: ExperimentResults) -> pd.DataFrame:
    """Table 2, the binned part: per confidence bin the share of pairs, the accuracy and the number of pairs, for
    MTC and RTC (fractions, not percentages). The summary rows (W-bar, judgments, tau) are in
    :func:`table2_summary`."""
    pairs = results.pairs
    columns = {}
    for name in ("mtc", "rtc"):
        share, accuracy, counts, _, _ = _binned(pairs[f"p_{name}"], pairs["true_delta"])
        columns[(name.upper(), "% in bin")] = list(share)
        columns[(name.upper(), "accuracy")] = list(accuracy)
        columns[(name.upper(), "pairs")] = list(counts.astype(float))
    table = pd.DataFrame(columns, index=list(BIN_LABELS))
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "confidence"
    return table


TABLE2_SUMMARY_ROWS = ("W_bar", "median judged", "mean judged", "mean tau")


def table2_summary(results: ExperimentResults) -> pd.DataFrame:
    """Table 2, the summary rows: W-bar, median and mean judgments to reach alpha on the first pair, and mean
    Kendall tau, one column per algorithm (IP: its tau at MTC's number of judgments)."""
    pairs, trials = results.pairs, results.trials
    columns = {}
    for name in ("mtc", "rtc"):
        *_, w_bar = _binned(pairs[f"p_{name}"], pairs["true_delta"])
        judged = trials[f"judged_{name}"].astype(float)
        columns[name.upper()] = [w_bar, float(judged.median()), float(judged.mean()),
                                 float(trials[f"tau_{name}"].mean())]
    columns["IP"] = [np.nan, np.nan, np.nan, float(trials["tau_ip"].mean()) if "tau_ip" in trials else np.nan]
    table = pd.DataFrame(columns, index=list(TABLE2_SUMMARY_ROWS))
    table.index.name = "statistic"
    return table


def paper_table2() -> pd.DataFrame:
    """The paper's Table 2 (pooled over ad hoc 94, 96-99) in :func:`table2`'s layout (no pair counts)."""
    columns = {}
    for name in ("MTC", "RTC"):
        columns[(name, "% in bin")] = [PAPER_TABLE2[name]["share"][label] for label in BIN_LABELS]
        columns[(name, "accuracy")] = [PAPER_TABLE2[name]["accuracy"][label] for label in BIN_LABELS]
    table = pd.DataFrame(columns, index=list(BIN_LABELS))
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "confidence"
    return table


def paper_table2_summary() -> pd.DataFrame:
    """The paper's Table 2 summary rows (and the text's mean judgments and IP tau) in :func:`table2_summary`'s
    layout."""
    keys = ("W_bar", "median_judged", "mean_judged", "mean_tau")
    columns = {name: [PAPER_TABLE2[name][key] for key in keys] for name in ("MTC", "RTC")}
    columns["IP"] = [np.nan, np.nan, np.nan, PAPER_TABLE2["IP"]["mean_tau"]]
    table = pd.DataFrame(columns, index=list(TABLE2_SUMMARY_ROWS))
    table.index.name = "statistic"
    return table


def hypothesis_tests(results: ExperimentResults) -> pd.DataFrame:
    """The paper's paired tests over trials: Wilcoxon signed-rank and t-test on the judgments MTC vs RTC, t-tests
    on tau (MTC vs RTC, IP vs MTC, IP vs RTC)."""
    trials = results.trials
    rows = []

    def add(test, what, x, y, fn):
        x = np.asarray(x, np.float64)
        y = np.asarray(y, np.float64)
        keep = ~(np.isnan(x) | np.isnan(y))
        x, y = x[keep], y[keep]
        if len(x) < 2 or np.all(x == y):
            stat, p = np.nan, np.nan
        else:
            outcome = fn(x, y)
            stat, p = float(outcome.statistic), float(outcome.pvalue)
        rows.append({"test": test, "comparison": what, "n": len(x), "mean_first": x.mean() if len(x) else np.nan,
                     "mean_second": y.mean() if len(y) else np.nan, "median_first": np.median(x) if len(x) else np.nan,
                     "median_second": np.median(y) if len(y) else np.nan, "statistic": stat, "p_value": p})

    add("Wilcoxon signed-rank", "judgments MTC vs RTC", trials["judged_mtc"], trials["judged_rtc"], sps.wilcoxon)
    add("paired t", "judgments MTC vs RTC", trials["judged_mtc"], trials["judged_rtc"], sps.ttest_rel)
    add("paired t", "tau MTC vs RTC", trials["tau_mtc"], trials["tau_rtc"], sps.ttest_rel)
    add("paired t", "tau IP vs MTC", trials["tau_ip"], trials["tau_mtc"], sps.ttest_rel)
    add("paired t", "tau IP vs RTC", trials["tau_ip"], trials["tau_rtc"], sps.ttest_rel)
    return pd.DataFrame(rows)


def figure2_data(results: ExperimentResults, edges=None) -> pd.DataFrame:
    """Figure 2: confidence vs accuracy per algorithm in fine bins (default width 0.025 from 0.5 to 1)."""
    edges = np.round(np.arange(0.5, 1.0001, 0.025), 6) if edges is None else np.asarray(edges, np.float64)
    frames = []
    for name in ("mtc", "rtc"):
        share, accuracy, counts, mean_confidence, _ = _binned(results.pairs[f"p_{name}"], results.pairs["true_delta"], edges)
        frames.append(pd.DataFrame({
            "algorithm": name.upper(), "bin_low": edges[:-1], "bin_high": edges[1:], "mean_confidence": mean_confidence,
            "accuracy": accuracy, "pairs": counts, "share": share,
        }))
    return pd.concat(frames, ignore_index=True)


def _grouped_table(pairs: pd.DataFrame, groups: dict, algorithm: str) -> pd.DataFrame:
    columns = {}
    for label, mask in groups.items():
        subset = pairs[mask]
        _, accuracy, counts, _, w_bar = _binned(subset[f"p_{algorithm}"], subset["true_delta"])
        columns[(label, "accuracy")] = list(accuracy) + [w_bar, float(len(subset))]
        columns[(label, "pairs")] = list(counts.astype(float)) + [np.nan, np.nan]
    table = pd.DataFrame(columns, index=list(BIN_LABELS) + ["W_bar", "pairs"])
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "confidence"
    return table


def table3(results: ExperimentResults, algorithm: str = "rtc") -> pd.DataFrame:
    """Table 3: accuracy per confidence bin and W-bar by pair type (two, one or no original runs)."""
    pairs = results.pairs
    groups = {label: pairs["n_original"] == n for n, label in PAIR_TYPES.items()}
    return _grouped_table(pairs, groups, algorithm.lower())


def table4(results: ExperimentResults, algorithm: str = "rtc", edges=(0.0, 0.1, 0.2, 0.3)) -> pd.DataFrame:
    """Table 4: accuracy per confidence bin and W-bar for pairs whose overlap falls in [0, 0.1), [0.1, 0.2),
    [0.2, 0.3)."""
    pairs = results.pairs
    groups = {
        f"{lo:g} – {hi:g}": (pairs["overlap"] >= lo) & (pairs["overlap"] < hi) for lo, hi in zip(edges[:-1], edges[1:])
    }
    return _grouped_table(pairs, groups, algorithm.lower())


def paper_comparison(results: ExperimentResults) -> pd.DataFrame:
    """The kit's RTC (and MTC) numbers beside the paper's "ad hoc 99" column (Table 5, RTC) and Table 2 (pooled
    over five ad hoc collections): accuracy per confidence bin, W-bar, median judgments, mean tau."""
    t2 = table2(results)
    summary = table2_summary(results)
    rows = []
    for label in BIN_LABELS:
        rows.append({
            "row": f"accuracy {label}",
            "kit RTC": t2.loc[label, ("RTC", "accuracy")],
            "paper ad hoc 99 (RTC)": PAPER_ADHOC99["accuracy"][label],
            "kit MTC": t2.loc[label, ("MTC", "accuracy")],
            "paper Table 2 MTC": PAPER_TABLE2["MTC"]["accuracy"][label],
        })
    for label in BIN_LABELS:
        rows.append({
            "row": f"share {label}",
            "kit RTC": t2.loc[label, ("RTC", "% in bin")],
            "paper ad hoc 99 (RTC)": np.nan,
            "kit MTC": t2.loc[label, ("MTC", "% in bin")],
            "paper Table 2 MTC": PAPER_TABLE2["MTC"]["share"][label],
        })
    for key, row in (("W_bar", "W_bar"), ("median judged", "median_judged"), ("mean tau", "mean_tau")):
        rows.append({
            "row": key,
            "kit RTC": summary.loc[key, "RTC"],
            "paper ad hoc 99 (RTC)": PAPER_ADHOC99[row],
            "kit MTC": summary.loc[key, "MTC"],
            "paper Table 2 MTC": PAPER_TABLE2["MTC"][row],
        })
    rows.append({"row": "mean judged", "kit RTC": summary.loc["mean judged", "RTC"],
                 "paper ad hoc 99 (RTC)": np.nan, "kit MTC": summary.loc["mean judged", "MTC"],
                 "paper Table 2 MTC": PAPER_TABLE2["MTC"]["mean_judged"]})
    rows.append({"row": "IP mean tau", "kit RTC": np.nan, "paper ad hoc 99 (RTC)": np.nan,
                 "kit MTC": summary.loc["mean tau", "IP"], "paper Table 2 MTC": PAPER_TABLE2["IP"]["mean_tau"]})
    return pd.DataFrame(rows).set_index("row")


# ----------------------------------------------------------------------------------------------------------------
# the prior: why the paper's Beta(1, 1) collapses, and choosing a strength on held-out data
# ----------------------------------------------------------------------------------------------------------------

#: the strengths a = b of the aggregation prior compared by :func:`prior_strength_table`
PRIOR_STRENGTHS = (1.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0)


def prior_strength_table(data: TrialData | Collection, strengths=PRIOR_STRENGTHS, n_trials: int = 100,
                         seed: int = 2007, *, coefficient_uncertainty: bool = False, scheduler: str | None = None,
                         n_jobs: int | None = None, progress: bool = True, **trial_kwargs) -> pd.DataFrame:
    """RTC with the aggregation prior Beta(a, a) for each a in ``strengths`` (the same ``n_trials`` trials, same
    seed, for each; MTC and IP are skipped). One row per a: median and mean judgments to reach alpha on the first
    pair, the share of pairs in the top bin (confidence >= 0.99) and its accuracy, W-bar, and mean tau. The
    paper's own figures for TREC-8 (Table 5, ad hoc 99): W-bar -0.44, median 179 judgments.
    ``coefficient_uncertainty`` turns on :class:`~evalkit.confidence.ExpertAggregation`'s option."""
    if isinstance(data, Collection):
        data = TrialData.from_collection(data)
    base = dict(trial_kwargs.pop("model_kwargs", {}) or {})
    rows = []
    for a in strengths:
        model = ExpertAggregation(prior=(float(a), float(a)), coefficient_uncertainty=coefficient_uncertainty, **base)
        res = run_experiment(data, n_trials, seed, scheduler=scheduler, n_jobs=n_jobs, progress=progress,
                             model=model, run_mtc=False, **trial_kwargs)
        rows.append({"a = b": float(a), **rtc_summary(res)})
    return pd.DataFrame(rows)


def rtc_summary(results: ExperimentResults, algorithm: str = "rtc") -> dict:
    """The few numbers that describe a set of trials: trials, median / mean judgments, share of pairs in the top
    confidence bin and its accuracy, W-bar, mean tau."""
    algorithm = algorithm.lower()
    share, accuracy, _, _, w_bar = _binned(results.pairs[f"p_{algorithm}"], results.pairs["true_delta"])
    judged = results.trials[f"judged_{algorithm}"].astype(float)
    return {"trials": len(results.trials), "median judged": float(judged.median()), "mean judged": float(judged.mean()),
            "top-bin share": float(share[-1]), "top-bin accuracy": float(accuracy[-1]), "W_bar": w_bar,
            "mean tau": float(results.trials[f"tau_{algorithm}"].mean())}


def choose_prior(table: pd.DataFrame) -> float:
    """The strength a of :func:`prior_strength_table` with the best (highest) W-bar, the paper's summary of
    calibration (closer to 0 is better, positive counts as good); on ties the weakest."""
    best = table["W_bar"].max()
    return float(table.loc[table["W_bar"] == best, "a = b"].min())


def _tilted(universe, judged_mask, delta: float) -> np.ndarray:
    """p = 0.5 for every unjudged document, + delta for those only the first run retrieves, - delta for those
    only the second retrieves."""
    only_a = (universe.rank[0, :universe.n] > 0) & (universe.rank[1, :universe.n] == 0)
    only_b = (universe.rank[1, :universe.n] > 0) & (universe.rank[0, :universe.n] == 0)
    return np.clip(0.5 + delta * only_a - delta * only_b, 0.0, 1.0)


def reestimation_diagnostics(data: TrialData | Collection, n_trials: int = 20, seed: int = 2007, *, k: int = 10,
                             c: int = 2, alpha: float = 0.95, every: int = 10,
                             priors=((1.0, 1.0), (100.0, 100.0)), tilts=(0.005, 0.01, 0.02),
                             model_kwargs: dict | None = None) -> pd.DataFrame:
    """What RTC's first re-estimation does to the first pair (the two original runs), trial by trial.

    The same runs as :func:`run_experiment`'s trials (same seed). MTC makes the first ``every`` judgments (RTC's
    are identical up to there); then the pair's E[dMAP], SD[dMAP] and P(dMAP < 0) are computed with the unjudged
    documents at p = 0.5 (MTC), at the expert model's p for each Beta prior in ``priors``, and at p = 0.5 tilted by
    +-delta for each delta in ``tilts`` (+delta for documents only the first run retrieves, -delta for those only
    the second retrieves). Columns: trial, setting, mean p of the unjudged documents (all, first run's, second
    run's), tilt (first - second), E, SD, P(dMAP < 0), confidence, correct (predicted sign = true sign), judgments
    made (fewer than ``every`` when MTC was already confident), true dMAP."""
    from evalkit.parallel import trial_seeds

    if isinstance(data, Collection):
        data = TrialData.from_collection(data)
    model_kwargs = dict(model_kwargs or {})
    rows = []
    for trial, trial_seed in enumerate(trial_seeds(seed, n_trials)):
        rng = np.random.default_rng(trial_seed)
        runs = rng.choice(data.docs.shape[0], size=k, replace=False)
        original = data.docs[runs[:c]][:2]
        first = mtc(original, data.qrels, alpha, max_judgments=every)
        truth = float(data.true_map[runs[0]] - data.true_map[runs[1]])
        settings = [("p = 0.5 (MTC)", 0.5)]
        settings += [(f"expert model, Beta({a:g}, {b:g})", ExpertAggregation(prior=(float(a), float(b)), **model_kwargs))
                     for a, b in priors]
        for delta in tilts:
            settings.append((f"p = 0.5 tilted by ±{delta:g}", ("tilt", float(delta))))
        universe = None
        for name, probabilities in settings:
            if isinstance(probabilities, tuple):
                delta = probabilities[1]
                probabilities = (lambda u, mask, labels, d=delta: _tilted(u, mask, d))
            est = estimate_runs(original, first.judged, probabilities)
            universe = est.universe
            judged = np.zeros(universe.n, bool)
            position = universe.positions(first.order_topic, first.order_doc)
            judged[position[position >= 0]] = True
            p = est.p[:universe.n]
            ranked_a = universe.rank[0, :universe.n] > 0
            ranked_b = universe.rank[1, :universe.n] > 0
            mean_a = float(p[~judged & ranked_a].mean()) if (~judged & ranked_a).any() else np.nan
            mean_b = float(p[~judged & ranked_b].mean()) if (~judged & ranked_b).any() else np.nan
            prob = float(est.prob_negative[0, 1])
            rows.append({"trial": trial, "setting": name, "judgments": first.n_judgments,
                         "mean p": float(p[~judged].mean()) if (~judged).any() else np.nan,
                         "mean p(1 - p)": float((p * (1 - p))[~judged].mean()) if (~judged).any() else np.nan,
                         "mean p (first run)": mean_a, "mean p (second run)": mean_b, "tilt": mean_a - mean_b,
                         "E[dMAP]": float(est.delta_mean[0, 1]), "SD[dMAP]": float(np.sqrt(est.delta_variance[0, 1])),
                         "P(dMAP < 0)": prob, "confidence": max(prob, 1.0 - prob),
                         "correct": bool((prob >= 0.5) == (truth < 0)) if truth != 0 and "tilt" not in name else np.nan,
                         "true dMAP": truth})
    return pd.DataFrame(rows)


def reestimation_summary(diagnostics: pd.DataFrame) -> pd.DataFrame:
    """Per setting of :func:`reestimation_diagnostics` (trials where MTC made all its first judgments): median
    mean p, median |tilt|, median SD[dMAP], median |E[dMAP]|, median confidence, the share of trials that would
    stop at once (confidence >= 0.95) and the share whose sign is right."""
    full = diagnostics[diagnostics["judgments"] == diagnostics["judgments"].max()]
    g = full.groupby("setting", sort=False)
    out = pd.DataFrame({
        "trials": g.size(),
        "median mean p": g["mean p"].median(),
        "median mean p(1 - p)": g["mean p(1 - p)"].median(),
        "median |tilt|": g["tilt"].apply(lambda v: v.abs().median()),
        "median SD[dMAP]": g["SD[dMAP]"].median(),
        "median |E[dMAP]|": g["E[dMAP]"].apply(lambda v: v.abs().median()),
        "median |E| / SD": (full["E[dMAP]"].abs() / full["SD[dMAP]"]).groupby(full["setting"], sort=False).median(),
        "median confidence": g["confidence"].median(),
        "confidence >= 0.95": g["confidence"].apply(lambda v: float((v >= 0.95).mean())),
        "sign right": g["correct"].mean(),
    })
    return out


# ----------------------------------------------------------------------------------------------------------------
# the variance of AP against Monte Carlo: a lone ranking, a two-run universe, dMAP
# ----------------------------------------------------------------------------------------------------------------


def _numerators(x: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """(n_samples,) AP numerators N = sum_r X_r (1 + sum_{s<r} X_s) / r of the ranking whose documents are the
    ``columns`` of the relevance draws ``x`` (n_samples, U), in rank order."""
    xr = x[:, columns]
    return (xr * np.cumsum(xr, axis=1) / np.arange(1, len(columns) + 1)).sum(axis=1)


def variance_monte_carlo(data: TrialData, pair, p: float = 0.5, n_samples: int = 20_000, seed: int = 0) -> pd.DataFrame:
    """Carterette 2007 Sec. 2.1's Var[AP] (the four sums over |R|^2, :func:`evalkit.confidence.ap_moments`)
    against Monte Carlo draws of relevance (every unjudged document relevant with probability ``p``) for the two
    runs ``pair`` (indices into ``data``), topic by topic, in three settings:

    * **lone ranking**: the universe is the first run's own list, |R| = sum of its p;
    * **two-run universe**: the first run's AP with |R| over both runs' documents (what MTC/RTC compute);
    * **dAP** per topic and **dMAP** over all topics (what confidence uses).

    Rows: each setting, per topic (median, min and max over topics of the formula's variance divided by the Monte
    Carlo variance) and dMAP (one ratio). A ratio of 1 means the formula is right."""
    from evalkit.confidence import Universe, ap_moments, delta_ap_moments, estimate_runs

    docs = data.docs[list(pair)]
    universe = Universe.from_docs(docs)
    est = estimate_runs(docs, None, p)
    width = max(universe.width, 1)
    local = np.where(universe.local < width, universe.local, -1)  # (2, T, D) column in the topic's universe
    p_topic = np.where(universe.padded < universe.n, p, 0.0)  # (T, W)
    delta_formula = delta_ap_moments(local[0], local[1], p_topic)[1]  # (T,) Var[dAP_t]
    rng = np.random.default_rng(seed)
    n_topics = universe.n_topics
    ratios = {"lone ranking": [], "two-run universe": [], "dAP": []}
    sums = np.zeros(n_samples)
    for t in range(n_topics):
        start, stop = universe.starts[t], universe.starts[t + 1]
        size = stop - start
        if size == 0:
            continue
        x = (rng.random((n_samples, size)) < p).astype(np.float64)
        cols = [universe.index[r, t][universe.index[r, t] < universe.n] - start for r in range(2)]
        numerators = [_numerators(x, col) for col in cols]
        total = x.sum(axis=1)
        own = x[:, cols[0]].sum(axis=1)
        lone = np.divide(numerators[0], own, out=np.zeros(n_samples), where=own > 0)
        shared = np.divide(numerators[0], total, out=np.zeros(n_samples), where=total > 0)
        delta = np.divide(numerators[0] - numerators[1], total, out=np.zeros(n_samples), where=total > 0)
        sums += delta
        lone_formula = ap_moments(np.full(len(cols[0]), p))[1]
        if lone.var() > 0:
            ratios["lone ranking"].append(lone_formula / lone.var())
        if shared.var() > 0:
            ratios["two-run universe"].append(est.variance_ap[0, t] / shared.var())
        if delta.var() > 0:
            ratios["dAP"].append(delta_formula[t] / delta.var())
    rows = []
    for name in ("lone ranking", "two-run universe", "dAP"):
        v = np.asarray(ratios[name])
        rows.append({"quantity": "Var[dAP], per topic" if name == "dAP" else f"Var[AP], {name}", "topics": len(v), "median ratio": float(np.median(v)) if len(v) else np.nan,
                     "min ratio": float(v.min()) if len(v) else np.nan, "max ratio": float(v.max()) if len(v) else np.nan})
    map_mc = (sums / n_topics).var()
    ratio = float(est.delta_variance[0, 1] / map_mc) if map_mc > 0 else np.nan
    rows.append({"quantity": "Var[dMAP] (sum of the topics' Var[dAP] / T^2)", "topics": n_topics, "median ratio": ratio,
                 "min ratio": ratio, "max ratio": ratio})
    return pd.DataFrame(rows).set_index("quantity")


def footnote_check(sizes=(10, 30, 100, 300), p: float = 0.5, n_samples: int = 20_000, seed: int = 0) -> pd.DataFrame:
    """Footnote 1 says the formulas' error is a negligible O(n 2^-n). For a lone ranking of n documents, each
    relevant with probability ``p``: Var[AP] by the formula, by Monte Carlo, and their ratio, per n (the ratio
    would shrink towards 1 if the footnote held)."""
    from evalkit.confidence import ap_moments

    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        x = (rng.random((n_samples, n)) < p).astype(np.float64)
        numerator = _numerators(x, np.arange(n))
        total = x.sum(axis=1)
        ap = np.divide(numerator, total, out=np.zeros(n_samples), where=total > 0)
        formula = float(ap_moments(np.full(n, p))[1])
        rows.append({"n": int(n), "formula Var[AP]": formula, "Monte Carlo Var[AP]": float(ap.var()),
                     "formula / Monte Carlo": formula / float(ap.var()) if ap.var() > 0 else np.nan})
    return pd.DataFrame(rows).set_index("n")


# ----------------------------------------------------------------------------------------------------------------
# MTC at zero judgments, and a pair worth watching
# ----------------------------------------------------------------------------------------------------------------


def pick_pair(data: TrialData, seed: int = 2007, alpha: float = 0.95, max_tries: int = 200) -> np.ndarray:
    """Two runs (indices) whose sign of dMAP MTC is *not* already sure of at zero judgments (confidence < alpha
    with every document at p = 0.5), drawn with ``seed``: a pair whose confidence curve has something to show."""
    rng = np.random.default_rng(seed)
    pair = rng.choice(data.docs.shape[0], size=2, replace=False)
    for _ in range(max_tries):
        prob = estimate_runs(data.docs[pair], None, 0.5).prob_negative[0, 1]
        if max(prob, 1.0 - prob) < alpha:
            return pair
        pair = rng.choice(data.docs.shape[0], size=2, replace=False)
    return pair


def zero_judgment_trials(results: ExperimentResults, alpha: float = 0.95) -> pd.DataFrame:
    """The trials in which MTC needed no judgment at all (RTC, identical to MTC until its 10th judgment, then
    needed none either): the first pair was already at confidence alpha with every document at p = 0.5. Columns:
    trial, runs, P(dMAP < 0) at zero judgments, the true dMAP, whether the predicted sign is right, and the
    fewest documents either original run returns for a topic."""
    t = results.trials
    zero = t[t["judged_mtc"] == 0]
    prob = zero["first_pair_p_mtc"].to_numpy(np.float64)
    truth = zero["first_pair_true_delta"].to_numpy(np.float64)
    return pd.DataFrame({"trial": zero["trial"].to_numpy(), "runs": zero["runs"].str.split().str[:2].str.join(" vs "),
                         "P(dMAP < 0)": prob, "true dMAP": truth,
                         "sign right": np.where(truth == 0, np.nan, (prob >= 0.5) == (truth < 0)),
                         "shortest list": zero["shortest_list"].to_numpy()})


# ----------------------------------------------------------------------------------------------------------------
# notebook support: the toy example of Sec. 2.1, the numbers Sec. 5 quotes in its text, Figure 2, the widget
# ----------------------------------------------------------------------------------------------------------------

#: Sec. 2.1's toy example: documents A, B, C ranked B, A, C (ranks 2, 1, 3), believed relevant with
#: p_A = 0.4, p_B = 0.8, p_C = 0.7, and the two probabilities the paper computes from them.
PAPER_TOY = {
    "documents": ("A", "B", "C"),
    "ranks": (2, 1, 3),
    "p": (0.4, 0.8, 0.7),
    "P(AP = 0)": 0.036,
    "P(AP = 1/2)": 0.056,
}


def _assignment_ap(upper: np.ndarray, x: np.ndarray) -> np.ndarray:
    """AP = x' triu(a) x / sum(x) for relevance assignments ``x`` (..., n); 0 where nothing is relevant."""
    total = x.sum(axis=-1)
    numerator = np.einsum("...i,ij,...j->...", x, upper, x)
    return np.divide(numerator, total, out=np.zeros_like(numerator), where=total > 0)


def toy_distribution(p=PAPER_TOY["p"], ranks=PAPER_TOY["ranks"], names=PAPER_TOY["documents"]) -> pd.DataFrame:
    """The distribution of AP over every relevance assignment of a small ranking, by enumeration (2^n rows).

    ``p[i]`` and ``ranks[i]`` (1-based; 0 = not ranked, which still counts in the denominator) are document i's
    probability of relevance and rank; the default is the paper's toy example (:data:`PAPER_TOY`). Columns: one
    0/1 column a document, ``relevant`` (their names), ``AP``, ``AP as a fraction`` and ``probability``.
    """
    from fractions import Fraction
    from itertools import product

    from evalkit.confidence import ap_coefficients

    p = np.asarray(p, np.float64)
    n = len(p)
    if n > 16:
        raise ValueError(f"enumeration is for n <= 16 documents; got {n}")
    names = tuple(names) if names is not None else tuple(f"d{i + 1}" for i in range(n))
    x = np.array(list(product((0.0, 1.0), repeat=n)))
    ap = _assignment_ap(np.triu(ap_coefficients(ranks)), x)
    table = pd.DataFrame(x.astype(int), columns=[f"X_{name}" for name in names])
    table["relevant"] = [", ".join(name for name, bit in zip(names, row) if bit) or "none" for row in x]
    table["AP"] = ap
    table["AP as a fraction"] = [str(Fraction(float(v)).limit_denominator(10_000)) for v in ap]
    table["probability"] = np.prod(np.where(x > 0, p, 1.0 - p), axis=1)
    return table


def ap_moments_table(p=PAPER_TOY["p"], ranks=PAPER_TOY["ranks"], n_samples: int = 200_000, seed: int = 0) -> pd.DataFrame:
    """E[AP] and Var[AP] of one ranking computed five ways, to show what the paper's formulas approximate.

    * ``exact AP`` -- enumeration of all 2^n relevance assignments (n <= 16): the true moments of AP = N / sum X;
    * ``Monte Carlo AP`` -- ``n_samples`` seeded draws of relevance (any n);
    * ``N / |R| exactly`` -- the exact moments of the numerator divided by the constant |R| = sum p (n <= 16):
      what the paper's formulas compute, with no further approximation;
    * ``paper, O(n^3) loops`` -- :func:`evalkit.confidence.ap_moments_reference`, the four sums as printed;
    * ``paper, O(n) prefix sums`` -- :func:`evalkit.confidence.ap_moments`, what MTC and RTC use.

    ``p[i]``, ``ranks[i]`` as in :func:`toy_distribution`. The last column is each variance over the true one
    (exact when n <= 16, else Monte Carlo).
    """
    from evalkit.confidence import (
        ap_coefficients,
        ap_moments,
        ap_moments_reference,
        exact_numerator_moments,
    )

    p = np.asarray(p, np.float64)
    ranks = np.asarray(ranks, np.int64)
    n = len(p)
    a = ap_coefficients(ranks)
    upper = np.triu(a)
    expected_relevant = p.sum()
    rows = []
    if n <= 16:
        from itertools import product

        x = np.array(list(product((0.0, 1.0), repeat=n)))
        weight = np.prod(np.where(x > 0, p, 1.0 - p), axis=1)
        ap = _assignment_ap(upper, x)
        mean = float(weight @ ap)
        rows.append(("exact AP (enumeration)", mean, float(weight @ (ap - mean) ** 2)))
    rng = np.random.default_rng(seed)
    total = total_sq = 0.0
    chunk = max(1, min(n_samples, 2_000_000 // max(n, 1)))
    for start in range(0, n_samples, chunk):
        size = min(chunk, n_samples - start)
        sample = _assignment_ap(upper, (rng.random((size, n)) < p).astype(np.float64))
        total += sample.sum()
        total_sq += (sample * sample).sum()
    mc_mean = total / max(n_samples, 1)
    rows.append((f"Monte Carlo AP ({n_samples:,} draws)", mc_mean, total_sq / max(n_samples, 1) - mc_mean**2))
    if n <= 16:
        numerator_mean, numerator_var = exact_numerator_moments(a, p)
        rows.append(("N / |R| exactly (what the formulas compute)", numerator_mean / expected_relevant,
                     numerator_var / expected_relevant**2))
    reference = ap_moments_reference(a, p, expected_relevant)
    rows.append(("paper's formulas, O(n^3) loops", float(reference[0]), float(reference[1])))
    by_rank = np.zeros(max(int(ranks.max(initial=0)), 1))
    ranked = ranks > 0
    by_rank[ranks[ranked] - 1] = p[ranked]
    fast = ap_moments(by_rank, expected_relevant)
    rows.append(("paper's formulas, O(n) prefix sums", float(fast[0]), float(fast[1])))
    table = pd.DataFrame(rows, columns=["method", "E[AP]", "Var[AP]"]).set_index("method")
    truth = table["Var[AP]"].iloc[0]
    table["Var / true Var"] = table["Var[AP]"] / truth if truth > 0 else np.nan
    return table


def _usable_predictions(pairs: pd.DataFrame, algorithm: str):
    confidence, correct, usable = _predictions(pairs[f"p_{algorithm}"], pairs["true_delta"])
    return confidence, correct.astype(np.float64), usable


def budget_summary(results: ExperimentResults, threshold: int = 100, algorithm: str = "rtc") -> pd.DataFrame:
    """The numbers Sec. 5 quotes about the size of the judgment sets, kit beside paper (pooled ad hoc sets).

    Trials are grouped by the judgments ``algorithm`` made to reach the target confidence on the first pair:
    the share of trials with at most ``threshold`` judgments, W-bar and accuracy at confidence >= 0.9 over those
    trials' pairs; accuracy at confidence >= 0.9 for trials above the median; and ("overfitting") the mean number
    of judgments behind wrong predictions over that behind right ones, for all pairs and for confidence >= 0.95.
    """
    algorithm = algorithm.lower()
    pairs, trials = results.pairs, results.trials
    judged = trials.set_index("trial")[f"judged_{algorithm}"]
    pair_judged = pairs["trial"].map(judged).to_numpy(np.float64)
    confidence, correct, usable = _usable_predictions(pairs, algorithm)
    median = float(judged.median())

    def accuracy(mask):
        mask = mask & usable
        return float(correct[mask].mean()) if mask.any() else np.nan

    def w_bar(mask):
        mask = mask & usable
        return float(winnings(confidence[mask], correct[mask]).mean()) if mask.any() else np.nan

    def ratio(mask):
        mask = mask & usable
        wrong, right = pair_judged[mask & (correct == 0)], pair_judged[mask & (correct == 1)]
        return float(wrong.mean() / right.mean()) if len(wrong) and len(right) and right.mean() > 0 else np.nan

    small = pair_judged <= threshold
    large = pair_judged > median
    everything = np.ones(len(pairs), bool)
    rows = [
        (f"share of trials with ≤ {threshold} judgments", float((judged <= threshold).mean()),
         PAPER_TEXT["share_sets_le_100_judgments"]),
        (f"W_bar, trials with ≤ {threshold} judgments", w_bar(small), PAPER_TEXT["W_bar_sets_le_100_judgments"]),
        (f"accuracy at confidence ≥ 0.9, trials with ≤ {threshold} judgments", accuracy(small & (confidence >= 0.9)),
         PAPER_TEXT["accuracy_conf_ge_0.9_sets_le_100_judgments"]),
        (f"accuracy at confidence ≥ 0.9, trials above the median ({median:g}; paper 235)",
         accuracy(large & (confidence >= 0.9)), PAPER_TEXT["accuracy_conf_ge_0.9_sets_gt_235_judgments"]),
        ("judgments behind wrong / right predictions, all pairs", ratio(everything), "> 1.5 (around 0.97)"),
        ("judgments behind wrong / right predictions, confidence ≥ 0.95", ratio(confidence >= 0.95),
         "> 1.5 (around 0.97)"),
    ]
    return pd.DataFrame(rows, columns=["statistic", f"kit {algorithm.upper()}", "paper (pooled ad hoc)"]).set_index("statistic")


def overlap_accuracy(results: ExperimentResults, low: float = 0.0, high: float = 0.1) -> pd.DataFrame:
    """Accuracy of MTC, IP and RTC on the pairs whose overlap is in [low, high) (Sec. 5, "Worst case").

    MTC and RTC predict the sign with P(dMAP < 0) >= 0.5; IP with the sign of the judged-only dMAP of IP's
    judgments (a tie, e.g. no relevant document judged for either run, counts as half right). Pairs whose true
    dMAP is 0 are left out. The paper gives MTC and IP about 0.60 and RTC 0.876 for overlap 0-0.1.
    """
    pairs = results.pairs
    chosen = ((pairs["overlap"] >= low) & (pairs["overlap"] < high)).to_numpy()
    truth = pairs["true_delta"].to_numpy(np.float64)
    usable = chosen & (truth != 0)
    paper = {"MTC": PAPER_TEXT["mtc_ip_accuracy_overlap_0_0.1"], "IP": PAPER_TEXT["mtc_ip_accuracy_overlap_0_0.1"],
             "RTC": PAPER_TEXT["rtc_accuracy_overlap_0_0.1"]} if (low, high) == (0.0, 0.1) else {}
    rows = []
    for name in ("MTC", "IP", "RTC"):
        if name == "IP":
            if "ip_delta" not in pairs:
                continue
            ip = pairs["ip_delta"].to_numpy(np.float64)
            score = np.where(ip == 0, 0.5, (np.sign(ip) == np.sign(truth)).astype(np.float64))
        else:
            _, score, _ = _usable_predictions(pairs, name.lower())
        value = float(score[usable].mean()) if usable.any() else np.nan
        rows.append({"algorithm": name, "accuracy": value, "pairs": int(usable.sum()), "paper": paper.get(name, np.nan)})
    return pd.DataFrame(rows).set_index("algorithm")


def grouped_comparison(kit_table: pd.DataFrame, paper: dict) -> pd.DataFrame:
    """:func:`table3` / :func:`table4` beside :data:`PAPER_TABLE3` / :data:`PAPER_TABLE4`: for each group the kit's
    accuracy per bin and W-bar, the paper's, and the number of pairs behind the kit's figure."""
    columns = {}
    for group, numbers in paper.items():
        if group not in kit_table.columns.get_level_values(0):
            continue
        kit = kit_table[(group, "accuracy")]
        columns[(group, "kit")] = [kit[label] for label in BIN_LABELS] + [kit["W_bar"]]
        columns[(group, "paper")] = [numbers["accuracy"][label] for label in BIN_LABELS] + [numbers["W_bar"]]
        columns[(group, "pairs")] = [kit_table[(group, "pairs")][label] for label in BIN_LABELS] + [kit["pairs"]]
    table = pd.DataFrame(columns, index=list(BIN_LABELS) + ["W_bar"], dtype=np.float64)
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "confidence"
    return table


def plot_figure2(results: ExperimentResults, ax=None, edges=None, min_pairs: int = 50, title: str | None = None):
    """Figure 2: accuracy against mean confidence per bin (:func:`figure2_data`), MTC and RTC, with the diagonal
    (perfect calibration, W-bar = 0); bins with fewer than ``min_pairs`` pairs are left out (the paper's points
    hold at least 500). Returns the Axes."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    data = figure2_data(results, edges)
    data = data[data["pairs"] >= min_pairs]
    ax = ax or plt.subplots(figsize=(5.5, 5))[1]
    ax.plot([0.5, 1.0], [0.5, 1.0], color="0.2", lw=1.0, label="confidence = accuracy")
    if len(data):
        sns.lineplot(data=data, x="mean_confidence", y="accuracy", hue="algorithm", style="algorithm",
                     hue_order=["MTC", "RTC"], style_order=["MTC", "RTC"], markers=True, dashes=False, ax=ax)
    ax.set_xlim(0.5, 1.0)
    ax.set_ylim(min(0.4, float(data["accuracy"].min()) - 0.02) if len(data) else 0.4, 1.01)
    ax.set_xlabel("confidence, max(P(ΔMAP < 0), P(ΔMAP > 0))")
    ax.set_ylabel("accuracy")
    ax.set_title(title or f"confidence vs accuracy ({len(results.pairs):,} pairs)", fontsize=10)
    ax.legend(loc="lower right", fontsize=9)
    return ax


def explorer_figure(data: TrialData, n_trials: int = 4, seed: int = 2007, k: int = 10, c: int = 2,
                    alpha: float = 0.95, prior=RTC_SMOOTHED["prior"], max_judgments: int | None = None,
                    scheduler: str | None = "serial", n_jobs: int | None = None):
    """Run ``n_trials`` trials with these settings and draw confidence against accuracy in the paper's bins
    (left, point size = pairs) and the judgments MTC and RTC needed in each trial (right). Returns the Figure
    (not shown). ``c`` is clipped to [2, k - 1]."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    k = int(min(k, data.docs.shape[0]))
    c = int(max(2, min(c, k - 1)))
    prior = (float(prior[0]), float(prior[1]))
    results = run_experiment(data, n_trials, seed, scheduler=scheduler, n_jobs=n_jobs, progress=False, k=k, c=c,
                             alpha=alpha, model=ExpertAggregation(prior=prior), max_judgments=max_judgments)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3))
    rows = []
    for name in ("mtc", "rtc"):
        _, accuracy, counts, mean_confidence, w_bar = _binned(results.pairs[f"p_{name}"], results.pairs["true_delta"])
        for acc, count, conf in zip(accuracy, counts, mean_confidence):
            if count:
                rows.append({"algorithm": f"{name.upper()} (W̄ = {w_bar:.2f})", "confidence": conf, "accuracy": acc,
                             "pairs": count})
    axes[0].plot([0.5, 1.0], [0.5, 1.0], color="0.2", lw=1.0)
    if rows:
        sns.scatterplot(data=pd.DataFrame(rows), x="confidence", y="accuracy", hue="algorithm", size="pairs",
                        sizes=(20, 200), ax=axes[0])
        axes[0].legend(fontsize=8, loc="lower right")
    axes[0].set_xlim(0.48, 1.01)
    axes[0].set_ylim(-0.02, 1.02)
    axes[0].set_title(f"k = {k}, c = {c}, α = {alpha:.2f}, Beta({prior[0]:g}, {prior[1]:g}): {n_trials} trials",
                      fontsize=10)
    judged = results.trials.melt(id_vars="trial", value_vars=["judged_mtc", "judged_rtc"], var_name="algorithm",
                                 value_name="judgments")
    judged["algorithm"] = judged["algorithm"].str.removeprefix("judged_").str.upper()
    sns.barplot(data=judged, x="trial", y="judgments", hue="algorithm", ax=axes[1])
    taus = results.trials[["tau_mtc", "tau_rtc", "tau_ip"]].mean()
    axes[1].set_title(f"judgments to α on the first pair; mean τ MTC {taus['tau_mtc']:.2f}, "
                      f"RTC {taus['tau_rtc']:.2f}, IP {taus['tau_ip']:.2f}", fontsize=10)
    fig.tight_layout()
    return fig


def explorer(data: TrialData | Collection, n_trials: int = 4, seed: int = 2007, k: int = 10, c: int = 2,
             alpha: float = 0.95, prior=RTC_SMOOTHED["prior"], max_judgments: int | None = None,
             scheduler: str | None = "serial", n_jobs: int | None = None):
    """Widget: sliders for k, c, alpha, the aggregation prior Beta(a, b) and the number of trials; each change
    reruns that many trials and redraws :func:`explorer_figure`.

    The figure is placed in an ``ipywidgets.Output`` as a PNG through ``Output.append_display_data`` rather than
    by capturing output (``with out:``, what ``interactive_output`` does): executed in batch by papermill/nbclient,
    captured output makes the client echo every output back to the kernel over the shell channel, which hung
    the widget cell intermittently (cf. jupyter/nbconvert#1921, jupyter/nbclient#312); and, as
    :func:`evalkit.display.widgets.interactive_figure` does, it pauses briefly before returning."""
    import io
    import time

    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import Image

    from evalkit.display.widgets import SETTLE_SECONDS, batch_mode

    if isinstance(data, Collection):
        data = TrialData.from_collection(data)
    if batch_mode():  # papermill: the initial figure, no live widget (see evalkit.display.widgets.interactive_figure)
        return explorer_figure(data, n_trials, seed, k, c, alpha, prior, max_judgments, scheduler, n_jobs)
    n_runs = data.docs.shape[0]
    style = {"continuous_update": False}
    controls = {
        "k": widgets.IntSlider(value=min(k, n_runs), min=3, max=min(20, n_runs), description="k runs", **style),
        "c": widgets.IntSlider(value=c, min=2, max=9, description="c original", **style),
        "alpha": widgets.FloatSlider(value=alpha, min=0.8, max=0.99, step=0.01, description="α", **style),
        "prior_a": widgets.FloatLogSlider(value=prior[0], base=10, min=0, max=3, step=0.25, description="prior a",
                                          **style),
        "prior_b": widgets.FloatLogSlider(value=prior[1], base=10, min=0, max=3, step=0.25, description="prior b",
                                          **style),
        "trials": widgets.IntSlider(value=n_trials, min=1, max=12, description="trials", **style),
    }
    out = widgets.Output()

    def refresh(_change=None):
        v = {name: control.value for name, control in controls.items()}
        fig = explorer_figure(data, v["trials"], seed, v["k"], v["c"], v["alpha"], (v["prior_a"], v["prior_b"]),
                              max_judgments, scheduler, n_jobs)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=80)
        plt.close(fig)
        out.outputs = ()
        out.append_display_data(Image(data=buffer.getvalue(), format="png"))

    for control in controls.values():
        control.observe(refresh, names="value")
    refresh()
    names = list(controls)
    box = widgets.VBox([widgets.HBox([controls[n] for n in names[:3]]), widgets.HBox([controls[n] for n in names[3:]]),
                        out])
    time.sleep(SETTLE_SECONDS)  # let the burst of widget messages settle before the cell's reply (see evalkit.display.widgets)
    return box


# ----------------------------------------------------------------------------------------------------------------
# the paper beside the kit, and the findings in words (every number computed from the results)
# ----------------------------------------------------------------------------------------------------------------

PAPER = "Carterette 2007"
#: the collections the paper's figures come from (:attr:`evalkit.claims.Claim.paper_dataset`): Table 5's ad hoc 99
#: column (TREC-8) and the pooled ad hoc 94 + 96-99 of Tables 2-4
ADHOC99, POOLED = "ad hoc 99", "pooled ad hoc 94+96-99"


def _w_verdict(w_bar: float) -> str:
    """W-bar near the paper's break-even (|W| < 1; the paper's collections give +0.44 to -0.67) or not."""
    if not np.isfinite(w_bar):
        return ""
    return "yes" if abs(w_bar) < 1 else "no"


def _describe(summary: dict) -> str:
    return (f"median {summary['median judged']:g} judgments, W̄ = {summary['W_bar']:.2f}, "
            f"{summary['top-bin share']:.1%} of pairs in the 1.0 bin (accuracy {summary['top-bin accuracy']:.3f}), "
            f"{summary['trials']} trials")


def claims(results: ExperimentResults, dataset: str, *, prior=RTC_SMOOTHED["prior"], prior_source: str = "",
           paper_prior: ExperimentResults | None = None, paper_prior_uncertainty: ExperimentResults | None = None,
           strength: pd.DataFrame | None = None, variance: pd.DataFrame | None = None,
           footnote: pd.DataFrame | None = None, toy: pd.DataFrame | None = None) -> list:
    """The paper's statements beside the kit's numbers (:class:`evalkit.claims.Claim` rows) for what was run.

    ``results``: the main experiment (the kit's prior ``prior``, chosen on ``prior_source``); ``paper_prior`` the
    same trials with the paper's Beta(1, 1); ``paper_prior_uncertainty`` Beta(1, 1) with the kit's
    coefficient-uncertainty option (beyond the paper); ``strength`` :func:`prior_strength_table` on this dataset;
    ``variance`` :func:`variance_monte_carlo`; ``footnote`` :func:`footnote_check`; ``toy``
    :func:`toy_distribution`."""
    from evalkit.claims import THIS_COLLECTION, Claim

    t2, summary, tests = table2(results), table2_summary(results), hypothesis_tests(results)
    acc = t2[("RTC", "accuracy")]
    lower_edges = pd.Series(BIN_EDGES[:-1], index=list(BIN_LABELS))
    robust_bins = int((acc >= lower_edges).sum())
    w_rtc, w_mtc = summary.loc["W_bar", "RTC"], summary.loc["W_bar", "MTC"]
    by_test = tests.set_index(["test", "comparison"])
    wilcoxon_p = by_test.loc[("Wilcoxon signed-rank", "judgments MTC vs RTC"), "p_value"]
    tau_p = by_test.loc[("paired t", "tau MTC vs RTC"), "p_value"]
    ip_p = by_test.loc[("paired t", "tau IP vs MTC"), "p_value"]
    median, tau = summary.loc["median judged"], summary.loc["mean tau"]
    t3 = table3(results)
    t3_w = {group: t3.loc["W_bar", (group, "accuracy")] for group in ("two original", "one original", "no original")}
    low_overlap = table4(results).loc["W_bar", ("0 – 0.1", "accuracy")]
    worst = overlap_accuracy(results, 0.0, 0.1)
    source_name = prior_source.split(" (")[0]
    source = f"kit prior Beta({prior[0]:g}, {prior[1]:g}), chosen on {source_name}" if prior_source else \
        f"kit prior Beta({prior[0]:g}, {prior[1]:g})"
    if prior_source:
        source += " (this dataset: in-sample)" if source_name == dataset else " (held out)"
    out = [
        Claim(PAPER, "RTC's confidence can be trusted on new runs: accuracy in each confidence bin >= its lower edge "
              "(Table 5, ad hoc 99)", " ".join(f"{v:.3f}" for v in PAPER_ADHOC99["accuracy"].values()),
              " ".join(f"{v:.3f}" for v in acc) + f" ({robust_bins}/7 bins robust)", dataset,
              "yes" if robust_bins == 7 else "partly" if robust_bins >= 4 else "no",
              f"{source}; the paper's Beta(1, 1) was trained on TREC-4", paper_dataset=ADHOC99, kind="direction"),
        Claim(PAPER, "RTC's bookmaker winnings are close to 0 (Table 5 ad hoc 99; Table 2 pooled)",
              "W̄ = -0.44 (ad hoc 99), -0.39 (pooled)", f"W̄ = {w_rtc:.2f} ({source})", dataset,
              _w_verdict(w_rtc), f"MTC's W̄ here: {w_mtc:.2f}; few very confident mistakes in the 1.0 bin dominate W̄ "
              "(-W capped at 100)", paper_dataset=ADHOC99),
    ]
    if paper_prior is not None:
        s = rtc_summary(paper_prior)
        best = ""
        if strength is not None and len(strength):
            top = strength.loc[strength["W_bar"].idxmax()]
            best = f"; best of a = {', '.join(f'{a:g}' for a in strength['a = b'])}: a = {top['a = b']:g}, W̄ = {top['W_bar']:.2f}"
        out.append(Claim(PAPER, "RTC at the paper's aggregation prior Beta(1, 1) is calibrated (Table 5 ad hoc 99)",
                         "W̄ = -0.44, median 179 judgments", _describe(s) + best, dataset, _w_verdict(s["W_bar"]),
                         "the fitted model tilts the mean p of one run's documents against the other's, and "
                         "SD[dMAP] over all topics is too small to absorb the tilt: the sign is decided after 10 "
                         "judgments (Section 4)", paper_dataset=ADHOC99))
    if paper_prior_uncertainty is not None:
        s = rtc_summary(paper_prior_uncertainty)
        out.append(Claim(PAPER, "beyond the paper: RTC at Beta(1, 1) with the coefficients' uncertainty added to "
                         "Var[dMAP] (Laplace + delta method)", "W̄ = -0.44, median 179 (ad hoc 99); 4.7% in the 1.0 "
                         "bin (pooled)", _describe(s), dataset, _w_verdict(s["W_bar"]),
                         "an option of the kit, off by default; not the paper's model", paper_dataset=ADHOC99))
    out += [
        Claim(PAPER, "MTC (p = 0.5) overstates confidence on new runs (Table 2)", "W̄ = -5.34; accuracy 0.683 in the 1.0 bin",
              f"W̄ = {w_mtc:.2f}; accuracy {t2.loc['1.0', ('MTC', 'accuracy')]:.3f} in the 1.0 bin", dataset,
              ("yes" if w_mtc < w_rtc else "no") if np.isfinite(w_mtc) else "", "rated on MTC's W̄ below RTC's",
              paper_dataset=POOLED, kind="direction"),
        Claim(PAPER, "RTC needs fewer judgments than MTC to reach 95% on the first pair (paired Wilcoxon)",
              "median 251 vs 235 (pooled; ad hoc 99 RTC 179), p < 0.0001",
              f"median {median['MTC']:g} vs {median['RTC']:g}, p = {wilcoxon_p:.2g}", dataset,
              "yes" if median["RTC"] < median["MTC"] and wilcoxon_p < 0.05 else "partly", paper_dataset=POOLED,
              kind="direction"),
        Claim(PAPER, "RTC ranks the k runs better than MTC (mean Kendall tau, paired t-test)",
              "0.555 vs 0.393 (pooled; ad hoc 99 RTC 0.532), p < 0.0001",
              f"{tau['RTC']:.3f} vs {tau['MTC']:.3f}, p = {tau_p:.2g}", dataset,
              "yes" if tau["RTC"] > tau["MTC"] and tau_p < 0.05 else "partly", paper_dataset=POOLED,
              kind="direction"),
        Claim(PAPER, "IP's tau at MTC's number of judgments is not significantly different from MTC's",
              "0.398 vs 0.393, not significant", f"{tau['IP']:.3f} vs {tau['MTC']:.3f}, p = {ip_p:.2g}", dataset,
              "yes" if ip_p >= 0.05 else "partly", paper_dataset=POOLED, kind="direction"),
        Claim(PAPER, "pairs of two new runs are the best calibrated (Table 3, W̄ by pair type)",
              "two -1.11, one -0.87, no original -0.27", ", ".join(f"{g.split()[0]} {v:.2f}" for g, v in t3_w.items()),
              dataset, "yes" if t3_w["no original"] >= max(t3_w.values()) else "no", paper_dataset=POOLED,
              kind="direction"),
        Claim(PAPER, "RTC stays robust for runs sharing 0-10% of documents (Table 4; text: RTC 0.876 vs MTC, IP 0.60)",
              "W̄ = +0.44; accuracy RTC 0.876, MTC 0.60, IP 0.60",
              f"W̄ = {low_overlap:.2f}; accuracy " + ", ".join(f"{a} {v:.3f}" for a, v in worst["accuracy"].items())
              + f" ({int(worst['pairs'].iloc[0])} pairs)", dataset, _w_verdict(low_overlap) if low_overlap < 0 else
              ("yes" if np.isfinite(low_overlap) else ""), paper_dataset=POOLED),
    ]
    if toy is not None:
        half = toy.loc[toy["AP"] == 0.5, "probability"].sum()
        out.append(Claim(PAPER, "toy example (Sec. 2.1): P(AP = 1/2)", "0.056", f"{half:.3f}", "toy example", "no",
                         "0.056 is P(A, C relevant, B not), whose AP is 7/12; P(AP = 0) = 0.036 agrees",
                         paper_dataset="toy example"))
    if variance is not None or footnote is not None:
        parts = []
        if footnote is not None:
            parts.append("lone ranking of n = " + "/".join(str(n) for n in footnote.index) + ": Var overstated "
                         + "/".join(f"{r:.1f}" for r in footnote["formula / Monte Carlo"]) + "x (does not shrink)")
        if variance is not None:
            parts.append(f"two-run universe {variance['median ratio'].iloc[1]:.1f}x (median over topics); "
                         f"dMAP {variance['median ratio'].iloc[-1]:.2f}x")
        checked_on = dataset if variance is not None else "simulated ranking"
        out.append(Claim(PAPER, "the closed forms for E[AP], Var[AP] have negligible error (footnote 1)",
                         "error O(n 2^-n)", "; ".join(parts), checked_on,
                         "no", "the denominator sum X is treated as the constant |R|; for dMAP, what confidence "
                         "uses, the formula matches Monte Carlo",
                         paper_dataset=THIS_COLLECTION))  # about a formula: its reference (Monte Carlo) is here
    return out


def _fmt_bins(values) -> str:
    return " ".join(f"{v:.3f}" if np.isfinite(v) else "–" for v in values)


def alpha_of(results: ExperimentResults) -> float:
    """The confidence level the trials of ``results`` judged to (0.95 unless set)."""
    return float(results.params.get("alpha", 0.95))


def findings_markdown(results: ExperimentResults, dataset: str, *, prior=RTC_SMOOTHED["prior"], prior_source: str = "",
                      variance: pd.DataFrame | None = None) -> str:
    """"Why the kit's numbers differ from the paper's", in Markdown, every number computed from ``results`` (the
    main experiment on ``dataset``) and naming the collection it describes."""
    t2, summary = table2(results), table2_summary(results)
    tests = hypothesis_tests(results).set_index(["test", "comparison"])
    wilcoxon_p = tests.loc[("Wilcoxon signed-rank", "judgments MTC vs RTC"), "p_value"]
    tau_p = tests.loc[("paired t", "tau MTC vs RTC"), "p_value"]
    ip_p = tests.loc[("paired t", "tau IP vs MTC"), "p_value"]
    budget = budget_summary(results)
    pairs = results.pairs
    usable = pairs["true_delta"] != 0
    low = (pairs["overlap"] < 0.1) & usable
    worst = overlap_accuracy(results, 0.0, 0.1)
    zero = zero_judgment_trials(results)
    trials = len(results.trials)
    n_pairs = len(pairs)
    rtc_acc = t2[("RTC", "accuracy")].to_numpy()
    paper_acc = np.array(list(PAPER_ADHOC99["accuracy"].values()))
    below = rtc_acc[:6] - paper_acc[:6]
    lines = [f"**Why the kit's numbers differ from the paper's** ({dataset}, {trials} trials, {n_pairs:,} pairs; every "
             "number here is computed from this run):", ""]
    lines.append(
        f"* **Direction.** RTC needs a median of {summary.loc['median judged', 'RTC']:g} judgments against MTC's "
        f"{summary.loc['median judged', 'MTC']:g} (Wilcoxon p = {wilcoxon_p:.2g}; the paper: 179 on ad hoc 99, 235 vs "
        f"251 pooled), ranks the {results.params.get('k', 10)} runs with τ = {summary.loc['mean tau', 'RTC']:.3f} "
        f"against MTC's {summary.loc['mean tau', 'MTC']:.3f} (p = {tau_p:.2g}; the paper 0.555 vs 0.393), and has "
        f"W̄ = {summary.loc['W_bar', 'RTC']:.2f} against MTC's {summary.loc['W_bar', 'MTC']:.2f} (the paper: -0.39 vs "
        f"-5.34 pooled, -0.44 for RTC on ad hoc 99). IP's τ is {summary.loc['mean tau', 'IP']:.3f} (p = {ip_p:.2g} "
        "against MTC; the paper: 0.398, not significant).")
    lines.append(
        f"* **The top bin.** {t2.loc['1.0', ('RTC', '% in bin')]:.1%} of RTC's pairs land in the 1.0 bin (the paper: "
        f"4.7% pooled), right {t2.loc['1.0', ('RTC', 'accuracy')]:.1%} of the time (the paper: 98.9–99.6%); each "
        "confident mistake costs up to 100 in W̄. Below 0.99 the accuracies are "
        f"{_fmt_bins(rtc_acc[:6])} against the ad hoc 99 column's {_fmt_bins(paper_acc[:6])} "
        f"({np.nanmin(below):+.3f} to {np.nanmax(below):+.3f}).")
    lines.append(
        f"* **How many judgments.** {budget.iloc[0, 0]:.0%} of the trials reach α on the first pair within 100 "
        f"judgments (the paper: 10%). Wrong predictions come from trials with {budget.iloc[4, 0]:.2f} times the "
        "judgments of right ones (the paper's 'overfitting' paragraph: more than 1.5 times).")
    if len(zero):
        right = zero["sign right"].dropna()
        text = (
            f"* **Zero-judgment trials.** In {len(zero)} of {trials} trials ({len(zero) / trials:.0%}) MTC, and so RTC, "
            "judged nothing: with every document at p = 0.5 the first pair was already at confidence α. A run that "
            "returns few documents for a topic has a small expected AP numerator over the same |R|, so p = 0.5 "
            f"ranks it low whatever it retrieved (shortest list in those trials: median {zero['shortest list'].median():g} "
            f"documents). The first pair's sign was right in {right.mean():.0%} of them, though MTC claimed at least "
            f"{alpha_of(results):.0%}.")
        wrong = zero[zero["sign right"] == 0]
        if len(wrong):
            confident_wrong = wrong.loc[(wrong["P(dMAP < 0)"] - 0.5).abs().idxmax()]  # not `worst`: used below
            prob = confident_wrong["P(dMAP < 0)"]
            said = f"P(ΔMAP < 0) = {prob:.2g}" if prob < 0.5 else f"P(ΔMAP > 0) = {1 - prob:.2g}"
            text += (f" The most confident wrong one, {confident_wrong['runs']}, had {said} on a true ΔMAP of "
                     f"{confident_wrong['true dMAP']:+.3f}.")
        lines.append(text)
    if low.any():
        lines.append(
            f"* **The worst case.** Pairs sharing under 10% of their documents ({int(low.sum())} pairs) have a median "
            f"true |ΔMAP| of {pairs.loc[low, 'true_delta'].abs().median():.3f} against "
            f"{pairs.loc[~low & usable, 'true_delta'].abs().median():.3f} for the others; IP gets "
            f"{worst.loc['IP', 'accuracy']:.0%} of them right and RTC {worst.loc['RTC', 'accuracy']:.0%} (the paper: 60% "
            "and 87.6%).")
    source = f", chosen on {prior_source}" if prior_source else ""
    lines.append(
        f"* **The prior.** Section 4 shows what the paper's Beta(1, 1) aggregation prior does to this RTC; the kit uses "
        f"Beta({prior[0]:g}, {prior[1]:g}){source}. The paper leaves out the MTC document weight (from its 2006 "
        "paper), the calibration prior, the intercept of Eq. 2 and what the experts are while the two original runs "
        "are judged: each is the kit's reading, documented in `evalkit.confidence`.")
    lines.append(
        "* **Different denominators.** Tables 2–4 pool five collections (ad hoc 94, 96–99); only Table 5's ad hoc 99 "
        f"column is TREC-8. The paper ran \"over 1,000 trials\" a bin; here {trials} trials.")
    if variance is not None:
        lines.append(
            f"* **The variance formula** overstates Var[AP] {variance['median ratio'].iloc[0]:.1f} times for a lone "
            f"ranking and {variance['median ratio'].iloc[1]:.1f} times in the two-run universe MTC/RTC compute in, but "
            f"for ΔMAP, what confidence uses, it matches Monte Carlo ({variance['median ratio'].iloc[-1]:.2f}): the "
            "overconfidence does not come from the variance formula.")
    return "\n".join(lines)


def collapse_markdown(summary: pd.DataFrame, dataset: str, n_topics: int = 50) -> str:
    """Why RTC collapses at Beta(1, 1), in words, from :func:`reestimation_summary` (on ``dataset``, with
    ``n_topics`` topics); every number is read from ``summary``."""
    rows = summary.index
    mtc_row = next(r for r in rows if r.startswith("p = 0.5 (MTC)"))
    paper_row = next((r for r in rows if "Beta(1, 1)" in r), None)
    tilt_row = next((r for r in rows if "tilted by ±0.01" in r), None)
    if paper_row is None:
        return ""
    s = summary
    sd_fit, sd_half = s.loc[paper_row, "median SD[dMAP]"], s.loc[mtc_row, "median SD[dMAP]"]
    change = "barely changes" if abs(sd_fit / sd_half - 1) < 0.1 else ("shrinks" if sd_fit < sd_half else "grows")
    text = (
        f"**Why Beta(1, 1) collapses** ({dataset}: the first pair of {int(s.loc[paper_row, 'trials'])} trials after "
        f"their first 10 judgments). The median SD[ΔMAP] is {sd_fit:.4f} with the fitted p against {sd_half:.4f} at "
        f"p = 0.5: the variance {change}; the fitted p average {s.loc[paper_row, 'median mean p']:.2f}, with a mean "
        f"p(1 - p) of {s.loc[paper_row, 'median mean p(1 - p)']:.3f} against 0.25 at p = 0.5. With {n_topics} topics SD[ΔMAP] is only about {sd_half:.3f}, so what decides is the "
        f"*mean*: the model gives one run's unjudged documents a different mean p from the other's (median |tilt| "
        f"{s.loc[paper_row, 'median |tilt|']:.3f}), which moves E[ΔMAP] by {s.loc[paper_row, 'median |E[dMAP]|']:.3f}, "
        f"{s.loc[paper_row, 'median |E| / SD']:.0f} SDs (median). {s.loc[paper_row, 'confidence >= 0.95']:.0%} of "
        "the trials would stop right there.")
    if tilt_row is not None:
        text += (f" A tilt of ±0.01 put on p = 0.5 by hand already gives a median confidence of "
                 f"{s.loc[tilt_row, 'median confidence']:.2f} ({s.loc[tilt_row, 'confidence >= 0.95']:.0%} of the "
                 "trials would stop).")
    return text


def variance_markdown(variance: pd.DataFrame, footnote: pd.DataFrame, dataset: str, pair_names) -> str:
    """What :func:`variance_monte_carlo` (runs ``pair_names`` of ``dataset``) and :func:`footnote_check` show."""
    ratios = "/".join(f"{r:.1f}" for r in footnote["formula / Monte Carlo"])
    sizes = "/".join(str(n) for n in footnote.index)
    return (
        f"**The variance against Monte Carlo** ({dataset}, {pair_names[0]} vs {pair_names[1]}, every document at "
        f"p = 0.5): the formula overstates Var[AP] {variance['median ratio'].iloc[0]:.1f} times for a lone ranking "
        f"(median over topics), {variance['median ratio'].iloc[1]:.1f} times when |R| runs over both runs' documents "
        f"(the universe MTC and RTC work in), and for ΔAP and ΔMAP it is right: {variance['median ratio'].iloc[2]:.2f} "
        f"per topic, {variance['median ratio'].iloc[3]:.2f} for ΔMAP. For a lone ranking of n = {sizes} documents the "
        f"ratio is {ratios}: it does not shrink with n, so footnote 1's O(n 2^-n) bound on the error is wrong. "
        "Confidence rests on ΔMAP, where the approximation is harmless.")


def prior_comparison(runs: dict) -> pd.DataFrame:
    """RTC under several settings (``{label: ExperimentResults}``) beside the paper's figures: one row each with
    :func:`rtc_summary`'s numbers, then the paper's ad hoc 99 column (Table 5: TREC-8) and its pooled Table 2."""
    rows = [{"setting": label, **rtc_summary(res)} for label, res in runs.items()]
    rows.append({"setting": "paper, ad hoc 99 (Table 5, TREC-8)", "trials": np.nan,
                 "median judged": PAPER_ADHOC99["median_judged"], "mean judged": np.nan, "top-bin share": np.nan,
                 "top-bin accuracy": PAPER_ADHOC99["accuracy"]["1.0"], "W_bar": PAPER_ADHOC99["W_bar"],
                 "mean tau": PAPER_ADHOC99["mean_tau"]})
    rows.append({"setting": "paper, Table 2 (pooled ad hoc)", "trials": np.nan,
                 "median judged": PAPER_TABLE2["RTC"]["median_judged"], "mean judged": PAPER_TABLE2["RTC"]["mean_judged"],
                 "top-bin share": PAPER_TABLE2["RTC"]["share"]["1.0"],
                 "top-bin accuracy": PAPER_TABLE2["RTC"]["accuracy"]["1.0"], "W_bar": PAPER_TABLE2["RTC"]["W_bar"],
                 "mean tau": PAPER_TABLE2["RTC"]["mean_tau"]})
    return pd.DataFrame(rows).set_index("setting")


def prior_markdown(selection: pd.DataFrame, source: str, chosen: float, strength: pd.DataFrame | None = None,
                   dataset: str = "") -> str:
    """How the prior was chosen, in words, from the strength table on the held-out ``source`` (``selection``) and,
    optionally, the same table on this ``dataset`` (``strength``)."""
    best = selection.loc[selection["W_bar"].idxmax()]
    row = selection.loc[selection["a = b"] == chosen].iloc[0]
    text = (f"**The prior, chosen on held-out data.** On {source}, the strength with the best W̄ is a = {chosen:g} "
            f"(W̄ = {row['W_bar']:.2f}, median {row['median judged']:g} judgments, {row['top-bin share']:.0%} of pairs "
            f"in the 1.0 bin); W̄ ranges from {selection['W_bar'].min():.2f} to {best['W_bar']:.2f} over "
            f"a = {', '.join(f'{a:g}' for a in selection['a = b'])}, so no strength reaches the paper's -0.44.")
    if strength is not None and len(strength):
        here = strength.loc[strength["W_bar"].idxmax()]
        same = (dataset and source.split()[0] == dataset)
        n = int(strength["trials"].iloc[0])
        text += (f" On {dataset or 'this dataset'} ({n} trial{'s' if n != 1 else ''} a strength"
                 f"{', the same collection: in-sample' if same else ', not used for the choice'}) the best is "
                 f"a = {here['a = b']:g} with W̄ = {here['W_bar']:.2f}.")
    return text


# ------------------------------------------------------------------------------------------ run-size presets

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`). "paper": 300 trials of Sec. 4.3 (the paper ran "over
#: 1,000" a bin over five collections), 300 with the paper's prior (plain and with the coefficients'
#: uncertainty), 30 per prior strength, Monte Carlo moments from 200,000 (toy) and 20,000 (pairs) samples.
#: "class": 30 trials, 10 with the paper's prior, no strength sweep on this collection (the held-out table that
#: chose the default is still shown), 50,000 / 5,000 samples: RTC still needs fewer judgments than MTC and
#: ranks the runs better, the top bins hold fewer pairs (noisier accuracies). "fast": the tests' (a judgment
#: budget of 300 a trial).
PRESETS = {
    "paper": {"trials": 300, "prior_trials": 300, "strength_trials": 30, "widget_trials": 4, "max_judgments": None,
              "moment_samples": 200_000, "variance_samples": 20_000},
    "class": {"trials": 30, "prior_trials": 10, "strength_trials": 0, "widget_trials": 2, "max_judgments": None,
              "moment_samples": 50_000, "variance_samples": 5_000},
    "fast": {"trials": 4, "prior_trials": 2, "strength_trials": 1, "widget_trials": 1, "max_judgments": 300,
             "moment_samples": 20_000, "variance_samples": 2_000},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`)."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)


__all__ += ["PRESETS", "settings"]
