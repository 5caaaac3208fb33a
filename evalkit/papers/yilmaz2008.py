"""Yilmaz, Kanoulas and Aslam (2008), "A simple and efficient sampling method for estimating AP and NDCG".

The paper's three contributions, each run on any collection with judged (pool-contributing) runs:

1. **Confidence intervals for infAP** (Sec. 2, Appendix): :func:`figure1` (mean infAP of every run with its 95%
   interval, one uniform sample of p% of the depth-100 pool per p) and :func:`ci_validation` (100 samples per p;
   per run the deviation of mean infAP from MAP in units of its estimated standard deviation, a
   Kolmogorov-Smirnov test of those deviations against N(0, 1); :func:`ks_table` gives the share of runs not
   rejected, the paper's 90%).
2. **xinfAP on stratified samples** (Sec. 3): :func:`figure2` (depth-k pool + as many documents again drawn at
   random from the rest of the depth-100 pool, k = 10, 5, 1) and :func:`figure3` (the sweep over k, 10 trials
   each: xinfAP on depth + random, infAP on a uniform sample of the same size, infAP on the depth + random
   judgments, which violates its assumption).
3. **infNDCG** (Sec. 4-5): :func:`figure4` (depth-k pool + three strata sampled at rates in the ratio 3 : 1.5 : 1;
   xinfAP and infNDCG against infAP and plain nDCG on uniform samples of the same size).

The measures live in :mod:`evalkit.measures.inferred` (infAP = trec_eval's ``infAP``, Yilmaz & Aslam 2006, the estimator
the paper's variance is for; xinfAP and infNDCG with NIST ``sample_eval.pl`` semantics), the sampling designs in
:mod:`evalkit.judging.stratified_sampling` (:func:`~evalkit.judging.stratified_sampling.uniform_sample`, :func:`~evalkit.judging.stratified_sampling.depth_plus_random`,
:func:`~evalkit.judging.stratified_sampling.depth_plus_strata`), trials go through :func:`evalkit.parallel.run_trials`.

Reconstruction choices (the paper leaves them open; the notebook states them):

* **Truth** ("actual AP"): the paper takes the depth-100 pool as the complete judgment set (its footnote 2). Here
  the truth is AP (and trec_eval's nDCG) under the depth-100 pool of the judged runs, graded by the collection's
  qrels (:func:`prepare`). On TREC-8 that pool *is* the official qrels (86,830 judgments, the number the paper
  quotes); on a simulated collection with complete judgments it drops the relevant documents outside the pool,
  which no sample of the pool can see. On a collection judged less than 100 deep, :func:`plan` takes the pool to
  the judged depth instead (deeper, the qrels know nothing) and scales the depths k of Figures 2-4 with it.
* **Pools** are built from the judged runs only; every run is scored (the paper's dots and pluses). Sec. 2 says
  "the entire depth-100 pool over all submitted runs", but the 86,830 judgments it cites are the official pool
  of the contributing runs; a deeper pool over all 129 runs would need judgments TREC never made.
* **p% sampling** (Fig. 1, validation): exactly round(p N_t) documents of each topic's pool, without replacement
  (:func:`~evalkit.judging.stratified_sampling.uniform_sample`'s default).
* **Variance forms**: the paper's formula with p̂ plugged in (``unbiased=False``) and the unbiased plug-in
  (``unbiased=True``, the kit's default), each with independent precisions or the Appendix's covariances
  (:data:`VARIANCE_FORMS`). Mean infAP's interval: ``mean ± 1.96 sqrt(sum_t var_t / T²)``.
* **KS test**: per run, the trials' deviations ``z = (mean infAP - MAP) / sd`` against N(0, 1), two-sided, exact
  p-value (``scipy.stats.kstwo``); runs whose estimated sd is 0 in some trial are left out and counted.
* **"A random sample of the same size"** (Fig. 3, 4): a uniform sample of the depth-100 pool at the rate
  judged / pooled of the stratified sample it is compared with (same total size; per topic round(rate N_t)).
* **The 4-strata design** (Fig. 4): see :func:`evalkit.judging.stratified_sampling.depth_plus_strata` (equal-width bands of the pool
  ranks k+1..100, rates in the ratio 3 : 1.5 : 1 scaled so that the budget equals the depth-k pool size).
* **nDCG** is trec_eval's ``ndcg`` (gain = grade, whole ranking; the paper "adopt[s] the version of nDCG in
  trec_eval"); ``ndcg_cutoff=100`` in :func:`prepare` switches every nDCG to @100. infNDCG is
  ``sample_eval``'s (rankings and ideal list cut at 1000).
* **"Bias removed"** (:func:`ks_table`): a diagnostic the paper does not run, the KS test of each run's deviations
  centred on their own mean over the trials (does the variance alone fit?); conservative, the centre being
  estimated from the same samples.
* **What the validation finds, kept apart** (issue 14): :func:`bias_breakdown` splits E[mean infAP] - MAP into the
  topics with no sampled relevant document (scored 0), trec_eval's smoothing of the precision above a relevant
  document to 1/2 where nothing above was sampled (:func:`evalkit.measures.inferred.trec_infap_oracle_above`), and the ratio
  estimator (the rest); the variance forms' fit is read from ``empirical / estimated sd`` and the KS test with
  the bias removed; :func:`coverage_over_trials` grades Figure 1's coverage on the mean over samples, not one
  sample; :func:`ks_variants` reruns the test under every variant tried (Bernoulli samples, judged runs only,
  empty topics dropped, 10 samples). :func:`findings_markdown` says it all in words computed from the numbers.
* **Smoothing** (:func:`smoothing_study`): xinfAP with ``sample_eval``'s constants, the paper's, and none, on the
  same samples: the paper's Sec. 5 remark that smoothing matters more as strata multiply, measured.
* **Statistics** over all runs: Kendall's tau-b, Pearson's rho and the RMS error of the per-run means against the
  truth; Fig. 3 and 4 average them over the trials, as the paper does.
* Depths at or beyond the pool depth mean "judge the whole pool" (the designs degenerate to it).

Seeds: :func:`figure1` and :func:`figure2` draw each sample from ``SeedSequence([seed, tag, p or k])``; the trials of
:func:`ci_validation`, :func:`figure3` and :func:`figure4` get :func:`evalkit.parallel.run_trials`' seeds and draw
each sample from ``SeedSequence([trial_seed, tag, p or k])``, so one sample does not depend on which other p or k
are run. Same seed, same numbers, on any executor.

The paper's TREC-9 and TREC-10 panels (Fig. 4) and its "identical conclusions" for TREC-9/10 in Sec. 2 need
collections we do not have (:data:`PAPER_UNAVAILABLE`): point :func:`prepare` at a directory holding them.
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np
import pandas as pd

from evalkit.data.collection import GRADE_DTYPE, Collection, JudgedSet
from evalkit.data.pools import pool
from evalkit.judging.stratified_sampling import (
    depth_plus_random,
    depth_plus_strata,
    uniform_sample,
)
from evalkit.measures import kernels
from evalkit.measures.evaluation import score_matrix
from evalkit.measures.inferred import (
    SAMPLE_EVAL_SMOOTHING,
    TREC_EVAL_SMOOTHING,
    infap_variance,
    inferred_measures,
    trec_infap_oracle_above,
)
from evalkit.papers.needs import (
    MIN_JUDGED_RUNS,
    Plan,
    judged_depth_of,
    judged_depth_rule,
    require,
    require_judged_depth,
    require_judged_runs,
    scale_depth,
    scale_depths,
)
from evalkit.parallel import run_trials
from evalkit.stats import kendall_tau_rows

__all__ = [
    "DEFAULT_SEED",
    "P_VALUES",
    "FIGURE2_DEPTHS",
    "FIGURE3_DEPTHS",
    "VARIANCE_FORMS",
    "DEFAULT_FORM",
    "FIGURE3_ESTIMATORS",
    "FIGURE4_ESTIMATORS",
    "PAPER_TREC8_JUDGMENTS",
    "PAPER_FIGURE2_SHARE",
    "PAPER_KS_NOT_REJECTED",
    "PAPER_STATEMENTS",
    "PAPER_UNAVAILABLE",
    "PAPER_POOL_DEPTH",
    "MIN_POOL_DEPTH",
    "plan",
    "Gold",
    "prepare",
    "random_judgments",
    "depth_random_judgments",
    "depth_strata_judgments",
    "plain_ndcg",
    "run_means",
    "agreement",
    "figure1",
    "figure1_summary",
    "CIValidation",
    "ci_validation",
    "ks_per_run",
    "ks_table",
    "ks_test_normal",
    "PAPER_FORM",
    "BIAS_PARTS",
    "bias_per_run",
    "bias_breakdown",
    "coverage_per_trial",
    "coverage_over_trials",
    "ks_variants",
    "findings_markdown",
    "figure2",
    "figure2_summary",
    "SMOOTHINGS",
    "smoothing_study",
    "Sweep",
    "figure3",
    "figure4",
    "dominance",
    "claims",
    "random_sample_explorer",
    "stratified_explorer",
]

DEFAULT_SEED = 2008
P_VALUES = (0.10, 0.20, 0.30)
FIGURE2_DEPTHS = (10, 5, 1)
FIGURE3_DEPTHS = (1, 2, 3, 4, 5, 10, 20, 30, 40, 50)

#: the variance of infAP in four forms: name -> keyword arguments of :func:`evalkit.measures.inferred.infap_variance`
VARIANCE_FORMS: dict[str, dict] = {
    "paper plug-in, independent": {"unbiased": False, "covariance": False},
    "paper plug-in, covariance": {"unbiased": False, "covariance": True},
    "unbiased, independent": {"unbiased": True, "covariance": False},
    "unbiased, covariance": {"unbiased": True, "covariance": True},
}
DEFAULT_FORM = "unbiased, independent"

FIGURE3_ESTIMATORS = ("xinfAP (depth+random)", "infAP (random)", "infAP (depth+random)")
FIGURE4_ESTIMATORS = ("xinfAP (4 strata)", "infAP (random)", "infNDCG (4 strata)", "nDCG (random)")

#: "e.g. 86,830 judgments for TREC 8" (Sec. 1): the depth-100 pool
PAPER_TREC8_JUDGMENTS = 86830
#: Sec. 3.1: depth-10, -5, -1 pools plus as many random documents judge "23.1%, 12.7% and 3.5% of the entire pool"
PAPER_FIGURE2_SHARE = {10: 0.231, 5: 0.127, 1: 0.035}
#: Sec. 2: "for 90% of the systems the hypothesis that the two CDF's match could not be rejected (alpha = 0.05)"
PAPER_KS_NOT_REJECTED = 0.90

#: what the paper's text says about each figure (its plotted numbers, e.g. the tau / rho / RMS in Fig. 2's panel
#: titles, are not in our copy of the text)
PAPER_STATEMENTS = {
    "figure1": "the greatest majority of the 95% confidence intervals intersect the 45-degree line, i.e. cover "
               "the actual MAP (p = 10, 20, 30%)",
    "validation": "KS test of the per-run deviations (in estimated standard deviations) against N(0, 1) over 100 "
                  "samples: not rejected for 90% of the systems (alpha = 0.05)",
    "figure2": "xinfAP is an unbiased estimator of AP; it reliably evaluates runs that did not contribute to the "
               "pool (pluses)",
    "figure3": "for all levels of incompleteness, in terms of all three statistics (tau, rho, RMS), xinfAP is much "
               "more accurate than infAP on random judgments and infAP on the depth + random judgments",
    "figure4": "with the same number of judgments, xinfAP and infNDCG on the 4-strata samples consistently "
               "outperform infAP and nDCG on random judgments (tau and RMS), on TREC 8, 9 and 10",
    "figure4_ndcg_rms": "the high RMS error of nDCG on random judgments is because nDCG is computed on them as it "
                        "is, without aiming at estimating the measure",
}

PAPER_UNAVAILABLE = (
    "The paper's TREC-9 and TREC-10 panels (Fig. 4, and the TREC-9/10 runs behind Sec. 2's 'identical "
    "conclusions') need the TREC-9 and TREC-10 ad hoc / web runs and qrels, which are not available here. "
    "Everything is run on TREC-8 (the paper's main collection) and on the synthetic default; a reviewer with "
    "those collections can set `dataset` to their directory (runs/ + qrels)."
)

_TAGS = {name: zlib.crc32(name.encode()) for name in ("figure1", "figure2", "validation", "figure3", "figure4",
                                                      "random", "explorer")}


def _seed(base, tag: str, value: float, extra: int = 0) -> np.random.SeedSequence:
    """Seed of one sample: depends on the base seed, the experiment, the p or k, and nothing else."""
    return np.random.SeedSequence([int(base), _TAGS[tag], round(float(value) * 10000), int(extra)])


# ------------------------------------------------------------------------------------------------ gold


@dataclass(frozen=True)
class Gold:
    """The truth every experiment compares with, computed once by :func:`prepare`.

    ``qrels``: the depth-``depth`` pool of the judged runs graded by the collection's qrels (one stratum, every
    line judged): the complete judgment set of the paper. ``ap`` / ``ndcg`` (S, T): AP and nDCG under it;
    ``scored`` (S, T): the topics that enter each run's mean (trec_eval's rule: the run retrieved something and
    the topic has pooled documents); ``map`` / ``mean_ndcg`` (S,) the means; ``judged`` (S,) runs that built the
    pool; ``pool_size`` (T,) pooled documents per topic.
    """

    collection: Collection = field(repr=False)
    qrels: JudgedSet = field(repr=False)
    depth: int
    ndcg_cutoff: int | None
    ap: np.ndarray = field(repr=False)
    ndcg: np.ndarray = field(repr=False)
    scored: np.ndarray = field(repr=False)
    map: np.ndarray = field(repr=False)
    mean_ndcg: np.ndarray = field(repr=False)
    judged: np.ndarray = field(repr=False)
    pool_size: np.ndarray = field(repr=False)
    pool_line: np.ndarray = field(repr=False)  # (S, T, D') line of ``qrels`` of each ranked document, or len(qrels)

    @property
    def n_pooled(self) -> int:
        return int(self.pool_size.sum())

    @property
    def ndcg_name(self) -> str:
        return "nDCG" if self.ndcg_cutoff is None else f"nDCG@{self.ndcg_cutoff}"

    @property
    def infndcg_name(self) -> str:
        return "infNDCG" if self.ndcg_cutoff is None else f"infNDCG@{self.ndcg_cutoff}"

    def runs_frame(self) -> pd.DataFrame:
        """One row per run: judged flag, MAP and mean nDCG under the complete judgments."""
        c = self.collection
        return pd.DataFrame({"run": c.run_names, "judged": self.judged, "MAP": self.map,
                             f"mean {self.ndcg_name}": self.mean_ndcg}).set_index("run")


def _pool_lines(collection: Collection, qrels: JudgedSet, depth: int | None) -> np.ndarray:
    """(S, T, D') int32: the line of ``qrels`` holding each ranked document, ``len(qrels)`` where none."""
    docs = collection.docs if depth is None else collection.docs[:, :, :depth]
    space = collection.n_topics * qrels.n_docs
    keys = np.arange(collection.n_topics, dtype=np.int64)[None, :, None] * qrels.n_docs + docs
    if space < 1 << 27:  # a dense topic x document table (4 bytes a cell) beats a binary search of every rank
        table = np.full(space + 1, len(qrels), np.int32)
        table[qrels.keys] = np.arange(len(qrels), dtype=np.int32)
        return table[np.where(docs >= 0, keys, space)]
    pos = np.searchsorted(qrels.keys, keys)
    clipped = np.minimum(pos, max(len(qrels) - 1, 0))
    found = (docs >= 0) & (pos < len(qrels)) & (qrels.keys[clipped] == keys) if len(qrels) else np.zeros(docs.shape, bool)
    return np.where(found, clipped, len(qrels)).astype(np.int32)


def prepare(collection: Collection, depth: int = 100, ndcg_cutoff: int | None = None, runs=None) -> Gold:
    """The truth of the paper's experiments: the depth-``depth`` pool of ``runs`` (default: the judged runs) as
    complete judgments, and AP / nDCG of every run under it (see :class:`Gold`)."""
    p = pool(collection, depth, runs)
    qrels = p.judged_set(collection.qrels, stratum=np.ones(len(p), np.int32))
    qrels = JudgedSet(qrels.topic, qrels.doc, np.maximum(qrels.grade, 0).astype(GRADE_DTYPE), qrels.stratum,
                      qrels.n_topics, qrels.n_docs)  # a pooled document the base qrels miss counts as nonrelevant
    judged = np.zeros(collection.n_runs, bool)
    if runs is None:
        judged[:] = collection.judged_runs
    else:
        judged[collection._indices(runs, collection.run_names, "runs")] = True
    lines = _pool_lines(collection, qrels, ndcg_cutoff)
    ap = score_matrix(collection, "AP", qrels)
    has_pool = np.bincount(qrels.topic, minlength=collection.n_topics) > 0
    scored = collection.retrieved & has_pool[None, :]
    gold = Gold(collection, qrels, int(depth), ndcg_cutoff, ap, np.zeros_like(ap), scored, run_means(ap, scored),
                np.zeros(collection.n_runs), judged, p.sizes(), lines)
    ndcg = plain_ndcg(gold, qrels)
    object.__setattr__(gold, "ndcg", ndcg)
    object.__setattr__(gold, "mean_ndcg", run_means(ndcg, scored))
    return gold


def _as_gold(data) -> Gold:
    if isinstance(data, Gold):
        return data
    if isinstance(data, Collection):
        return prepare(data)
    raise TypeError(f"expected a Collection or a Gold from prepare(), got {type(data).__name__}")


def run_means(values: np.ndarray, scored: np.ndarray) -> np.ndarray:
    """(S,) mean over each run's scored topics of (S, T) ``values`` (NaN where not scored is ignored)."""
    values = np.where(scored, np.nan_to_num(values, nan=0.0), 0.0)
    n = scored.sum(axis=1)
    return np.divide(values.sum(axis=1), n, out=np.zeros(len(n)), where=n > 0)


def agreement(truth: np.ndarray, estimates: np.ndarray) -> dict[str, np.ndarray]:
    """Kendall's tau-b, Pearson's rho and RMS error of each row of ``estimates`` (K, S) or (S,) against ``truth``
    (S,): ``{"tau": (K,), "rho": (K,), "rms": (K,)}``."""
    truth = np.asarray(truth, np.float64)
    est = np.atleast_2d(np.asarray(estimates, np.float64))
    tau = kendall_tau_rows(truth, est)
    dt = truth - truth.mean()
    de = est - est.mean(axis=1, keepdims=True)
    denom = np.sqrt((dt * dt).sum() * (de * de).sum(axis=1))
    rho = np.divide(de @ dt, denom, out=np.full(len(est), np.nan), where=denom > 0)
    rms = np.sqrt(((est - truth[None, :]) ** 2).mean(axis=1))
    return {"tau": tau, "rho": rho, "rms": rms}


# ------------------------------------------------------------------------------------------------ plan


#: the paper's complete judgment set: TREC-8's depth-100 pool (footnote 2)
PAPER_POOL_DEPTH = 100
#: Figure 4's design needs a depth-k pool (k >= 1) and three strata below it, so a pool at least this deep
MIN_POOL_DEPTH = 4


def plan(collection: Collection, pool_depth: int = PAPER_POOL_DEPTH, p_values: Sequence[float] = P_VALUES,
         sweep_depths: Sequence[int] = FIGURE3_DEPTHS, figure2_depths: Sequence[int] = FIGURE2_DEPTHS,
         validation_trials: int = 100, sweep_trials: int = 10, fast: bool = False,
         sweep_points: int | None = None) -> Plan:
    """What the notebook needs from ``collection``, and the depths it will use there (:mod:`evalkit.papers.needs`).

    Needs: at least 2 judged runs (they build the pool every sample is drawn from); a known judged depth of at
    least :data:`MIN_POOL_DEPTH` (Figure 4 judges a depth-k pool and samples three strata below it); sampling
    rates ``p_values`` in (0, 1]. The paper's truth is TREC-8's depth-100 pool (footnote 2), i.e. the pool as deep
    as TREC judged it: on a collection judged less deep the truth is the pool to the judged depth D (deeper, the
    qrels know nothing: a pooled document past D would count as nonrelevant without having been judged), and the
    paper's depths k of Figures 2-4 (written for 100) are scaled by D / 100 (:func:`evalkit.papers.needs.scale_depths`:
    the share of the pool a depth-k stratum covers is kept, duplicates dropped, every k < D); the note says so.
    A ``pool_depth`` the user set is checked against the judged depth, and depths k the user set must lie in
    [1, pool depth) (the rest of the pool is sampled). ``fast``: at most 10 validation samples and 2 sweep trials;
    the sweep keeps k = 1, 5, 20 (unscaled) or the first, middle and last scaled depth. ``sweep_points`` (the
    "class" preset, :data:`PRESETS`): keep that many of the sweep's depths, spread over its range in log space
    (:func:`evalkit.papers.settings.spread`), after scaling; None keeps them all.

    Parameters: ``pool_depth`` (the truth's depth), ``p_values``, ``sweep_depths`` (Figures 3 and 4),
    ``figure2_depths``, ``strata_example_depth`` (the k of the 4-strata example: 10, scaled, at most pool depth
    - 3), ``validation_trials``, ``sweep_trials``.
    """
    require_judged_runs(collection, MIN_JUDGED_RUNS, "to build the pool every sample is drawn from")
    judged = judged_depth_of(collection)
    require(judged is not None and judged >= MIN_POOL_DEPTH,
            f"judgments at least {MIN_POOL_DEPTH} ranks deep (Figure 4 judges a depth-1 pool and samples three "
            "strata below it)", f"judged depth {judged or 0} ({judged_depth_rule(collection)})",
            "Give \"judged_depth\" in collection.json if the pools were deeper.")
    rates = [float(p) for p in p_values]
    bad = [p for p in rates if not 0 < p <= 1]
    require(rates and not bad, f"sampling rates in (0, 1] (p_values = {rates})", f"{bad or 'none'} outside it",
            "Set p_values to shares of the pool, e.g. [0.1, 0.2, 0.3].")
    top = min(judged, collection.depth)
    notes = []
    if int(pool_depth) == PAPER_POOL_DEPTH:
        depth = min(PAPER_POOL_DEPTH, top)
        if depth < PAPER_POOL_DEPTH:
            notes.append(f"the truth is the depth-{depth} pool of the judged runs (the judged depth; the paper's "
                         "depth-100 pool is as deep as TREC-8 was judged)")
    else:
        depth = int(pool_depth)
        require(depth >= MIN_POOL_DEPTH, f"a pool at least {MIN_POOL_DEPTH} deep (pool_depth = {depth}: Figure 4 "
                "samples three strata below a depth-1 pool)", f"judged depth {judged}",
                f"Set pool_depth between {MIN_POOL_DEPTH} and {top}.")
        require_judged_depth(collection, depth, "pool_depth")

    def depths_for(values, default, parameter):
        values = [int(v) for v in values]
        if tuple(values) == tuple(default) and depth < PAPER_POOL_DEPTH:
            return scale_depths(values, depth, below=depth), True
        bad = [v for v in values if not 1 <= v < depth]
        require(values and not bad, f"pool depths k from 1 to {depth - 1}, below the pool depth {depth} "
                f"({parameter} = {values}: the rest of the pool is sampled)",
                f"pool depth {depth} (judged depth {judged})",
                f"Drop {bad} from {parameter}." if bad else f"Give {parameter} at least one depth.")
        return values, False

    sweep, sweep_scaled = depths_for(sweep_depths, FIGURE3_DEPTHS, "sweep_depths")
    figure2, figure2_scaled = depths_for(figure2_depths, FIGURE2_DEPTHS, "figure2_depths")
    if sweep_scaled or figure2_scaled:
        notes.append(f"the depths k scaled by {depth}/100: "
                     + (f"Figures 3-4 k = {sweep} (the paper's 1-50)" if sweep_scaled else "")
                     + (", " if sweep_scaled and figure2_scaled else "")
                     + (f"Figure 2 k = {figure2} (the paper's 10, 5, 1)" if figure2_scaled else ""))
    if fast:
        validation_trials, sweep_trials = min(int(validation_trials), 10), min(int(sweep_trials), 2)
        if sweep_scaled:
            sweep = [sweep[i] for i in sorted({0, len(sweep) // 2, len(sweep) - 1})]
        else:
            sweep = [k for k in sweep if k in (1, 5, 20)] or sweep[:2]
    elif sweep_points is not None:
        from evalkit.papers.settings import spread

        sweep = spread(sweep, sweep_points)
    example = max(1, min(scale_depth(10, depth), depth - 3))
    return Plan("01_yilmaz2008", collection.name, {
        "pool_depth": depth, "p_values": rates, "sweep_depths": sweep, "figure2_depths": figure2,
        "strata_example_depth": example,
        "validation_trials": int(validation_trials), "sweep_trials": int(sweep_trials)}, notes)


# ------------------------------------------------------------------------------------------- samples


def _full_pool(gold: Gold) -> JudgedSet:
    return gold.qrels


def random_judgments(gold: Gold, rate: float, seed=None, method: str = "fixed") -> JudgedSet:
    """Uniform sample of ``rate`` of each topic's depth-100 pool (Sec. 2): ``method="fixed"`` exactly
    round(rate N_t) documents without replacement (the default), ``"bernoulli"`` each pooled document
    independently with probability ``rate`` (a variant of the validation, :func:`ks_variants`)."""
    if rate >= 1.0:
        return _full_pool(gold)
    return uniform_sample(gold.collection, float(rate), runs=gold.judged, seed=seed, base_qrels=gold.qrels,
                          depth=gold.depth, method=method).qrels


def depth_random_judgments(gold: Gold, k: int, seed=None) -> JudgedSet:
    """The depth-k pool judged plus as many documents again drawn at random from the rest of the pool (Sec. 3.1;
    two strata). ``k >= depth``: the whole pool."""
    if k >= gold.depth:
        return _full_pool(gold)
    return depth_plus_random(gold.collection, int(k), runs=gold.judged, seed=seed, base_qrels=gold.qrels,
                             depth=gold.depth).qrels


def depth_strata_judgments(gold: Gold, k: int, seed=None, ratio: Sequence[float] = (3.0, 1.5, 1.0),
                           boundaries=None) -> JudgedSet:
    """The depth-k pool judged plus three strata of the rest sampled at rates in ``ratio`` with the same budget
    (Sec. 5; four strata, see :func:`evalkit.judging.stratified_sampling.depth_plus_strata`). ``k >= depth - 2``: the whole pool."""
    if k >= gold.depth - 2:
        return _full_pool(gold)
    return depth_plus_strata(gold.collection, int(k), runs=gold.judged, seed=seed, base_qrels=gold.qrels,
                             depth=gold.depth, ratio=tuple(ratio), boundaries=boundaries).qrels


def _n_judged(qrels: JudgedSet) -> int:
    return int((qrels.grade >= 0).sum())


def plain_ndcg(gold: Gold, qrels: JudgedSet) -> np.ndarray:
    """(S, T) trec_eval's nDCG (or nDCG@cutoff) of every run taking ``qrels`` as they are: documents not judged
    (not in the qrels, or grade -1) are nonrelevant and the ideal list holds the judged relevant documents only.
    Equals ``score_matrix(collection, gold.ndcg_name, qrels)``; when every relevant line of ``qrels`` is in the
    pool (any sample of it), one gather through the ranked documents' pool lines."""
    rel = qrels.grade > 0
    keys = qrels.keys[rel]
    pool_keys = gold.qrels.keys
    pos = np.searchsorted(pool_keys, keys)
    clipped = np.minimum(pos, max(len(pool_keys) - 1, 0))
    if len(keys) and not (len(pool_keys) and ((pos < len(pool_keys)) & (pool_keys[clipped] == keys)).all()):
        return score_matrix(gold.collection, gold.ndcg_name, qrels)  # relevant documents outside the pool
    table = np.zeros(len(pool_keys) + 1, np.float64)
    table[clipped] = qrels.grade[rel]
    dcg = table[gold.pool_line] @ kernels.discounts(gold.pool_line.shape[-1])
    ideal = qrels.ideal_gains(gold.ndcg_cutoff)
    ideal_dcg = ideal @ kernels.discounts(ideal.shape[-1])
    return np.divide(dcg, ideal_dcg[None, :], out=np.zeros(dcg.shape), where=ideal_dcg[None, :] > 0)


# ------------------------------------------------------------------------------------------- figure 1


def _variance_frames(gold: Gold, qrels: JudgedSet, forms: Sequence[str], confidence: float) -> dict:
    out = {}
    for form in forms:
        v = infap_variance(gold.collection, qrels, confidence=confidence, topics=gold.scored, **VARIANCE_FORMS[form])
        out[form] = v
    return out


def _check_forms(forms) -> tuple[str, ...]:
    forms = tuple([forms] if isinstance(forms, str) else forms)
    unknown = [f for f in forms if f not in VARIANCE_FORMS]
    if unknown or not forms:
        raise KeyError(f"unknown variance form(s) {unknown}; choose from {list(VARIANCE_FORMS)}")
    return forms


def figure1(data, p_values: Sequence[float] = P_VALUES, seed: int = DEFAULT_SEED,
            forms: Sequence[str] = tuple(VARIANCE_FORMS), confidence: float = 0.95) -> pd.DataFrame:
    """Figure 1: one uniform sample of p% of the pool per p; per run and variance form, mean infAP, its estimated
    sd and ``confidence`` interval, the actual MAP and whether the interval covers it.

    Columns: p, form, run, judged, MAP, mean_infAP, sd, ci_low, ci_high, covers, judgments, share.
    """
    gold = _as_gold(data)
    forms = _check_forms(forms)
    names = gold.collection.run_names
    frames = []
    for p in p_values:
        qrels = random_judgments(gold, p, _seed(seed, "figure1", p))
        n = _n_judged(qrels)
        for form, v in _variance_frames(gold, qrels, forms, confidence).items():
            sd = np.sqrt(v.mean_var)
            frames.append(pd.DataFrame({
                "p": float(p), "form": form, "run": names, "judged": gold.judged, "MAP": gold.map,
                "mean_infAP": v.mean, "sd": sd, "ci_low": v.mean_ci_low, "ci_high": v.mean_ci_high,
                "covers": (v.mean_ci_low <= gold.map) & (gold.map <= v.mean_ci_high),
                "judgments": n, "share": n / gold.n_pooled,
            }))
    return pd.concat(frames, ignore_index=True)


def figure1_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per p and variance form: judgments, share of the pool, Kendall's tau / rho / RMS of mean infAP against MAP,
    the share of runs whose interval covers MAP (all, judged, unjudged) and the mean interval half-width."""
    rows = []
    for (p, form), g in frame.groupby(["p", "form"], sort=False):
        stats = agreement(g["MAP"].to_numpy(), g["mean_infAP"].to_numpy())
        rows.append({
            "p": p, "form": form, "judgments": int(g["judgments"].iloc[0]), "share": g["share"].iloc[0],
            "tau": stats["tau"][0], "rho": stats["rho"][0], "RMS": stats["rms"][0],
            "covered": g["covers"].mean(), "covered (judged)": g.loc[g.judged, "covers"].mean(),
            "covered (unjudged)": g.loc[~g.judged, "covers"].mean() if (~g.judged).any() else np.nan,
            "mean half-width": ((g["ci_high"] - g["ci_low"]) / 2).mean(),
        })
    return pd.DataFrame(rows)


# -------------------------------------------------------------------------------------- CI validation


def _validation_trial(trial_index: int, trial_seed: int, gold: Gold, p_values, forms, confidence,
                      method: str = "fixed") -> dict:
    """One sampling trial: for each p a uniform sample; mean infAP (P, S) and its sd under each form (P, F, S);
    the parts of its error (P, 2, S: topics without a sampled relevant document, the smoothing where nothing
    above is sampled; see :func:`bias_breakdown`); and the same mean, truth and sd over the topics that have a
    sampled relevant document (the "empty topics dropped" variant of :func:`ks_variants`)."""
    c = gold.collection
    S = c.n_runs
    P, F = len(p_values), len(forms)
    mean = np.zeros((P, S))
    sd = np.zeros((P, F, S))
    parts = np.zeros((P, 2, S))
    mean_nonempty = np.zeros((P, S))
    truth_nonempty = np.zeros((P, S))
    sd_nonempty = np.zeros((P, F, S))
    empty_topics = np.zeros(P, np.int64)
    judgments = np.zeros(P, np.int64)
    n_scored = gold.scored.sum(axis=1).astype(np.float64)
    for i, p in enumerate(p_values):
        qrels = random_judgments(gold, p, _seed(trial_seed, "validation", p), method)
        judgments[i] = _n_judged(qrels)
        empty = (qrels.counts(1) == 0)[None, :]
        kept = gold.scored & ~empty
        n_kept = kept.sum(axis=1).astype(np.float64)
        for j, v in enumerate(_variance_frames(gold, qrels, forms, confidence).values()):
            mean[i] = v.mean
            sd[i, j] = np.sqrt(v.mean_var)
            sd_nonempty[i, j] = np.sqrt(np.divide((v.var * kept).sum(axis=1), n_kept ** 2, out=np.zeros(S),
                                                  where=n_kept > 0))
            infap = v.infap
        fixed = trec_infap_oracle_above(c, qrels, gold.qrels)
        parts[i, 0] = np.divide((-gold.ap * (gold.scored & empty)).sum(axis=1), n_scored, out=np.zeros(S),
                                where=n_scored > 0)
        parts[i, 1] = np.divide(((infap - fixed) * kept).sum(axis=1), n_scored, out=np.zeros(S), where=n_scored > 0)
        mean_nonempty[i] = np.divide((infap * kept).sum(axis=1), n_kept, out=np.zeros(S), where=n_kept > 0)
        truth_nonempty[i] = np.divide((gold.ap * kept).sum(axis=1), n_kept, out=np.zeros(S), where=n_kept > 0)
        empty_topics[i] = int((empty[0] & gold.scored.any(axis=0)).sum())
    return {"mean": mean, "sd": sd, "judgments": judgments, "parts": parts, "mean_nonempty": mean_nonempty,
            "truth_nonempty": truth_nonempty, "sd_nonempty": sd_nonempty, "empty_topics": empty_topics}


@dataclass(frozen=True)
class CIValidation:
    """The sampling trials of :func:`ci_validation`.

    ``mean`` (trials, P, S): mean infAP of each run; ``sd`` (trials, P, F, S): its estimated standard deviation
    under each variance form; ``map`` (S,) the actual MAP; ``judgments`` (trials, P). For the bias breakdown
    (:func:`bias_breakdown`): ``parts`` (trials, P, 2, S), the error of mean infAP due to topics without a
    sampled relevant document and to the smoothing where nothing above a relevant document was sampled; for the
    "empty topics dropped" variant (:meth:`without_empty_topics`): ``mean_nonempty``, ``truth_nonempty``
    (trials, P, S) and ``sd_nonempty`` (trials, P, F, S) over the topics with a sampled relevant document;
    ``empty_topics`` (trials, P) how many topics had none. ``method``: how the samples were drawn.
    """

    p_values: tuple[float, ...]
    forms: tuple[str, ...]
    runs: np.ndarray
    judged: np.ndarray
    map: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    judgments: np.ndarray
    n_pooled: int
    trials: int
    seed: int
    confidence: float
    seconds: float = float("nan")
    parts: np.ndarray | None = None
    mean_nonempty: np.ndarray | None = None
    truth_nonempty: np.ndarray | None = None
    sd_nonempty: np.ndarray | None = None
    empty_topics: np.ndarray | None = None
    method: str = "fixed"
    label: str = ""

    @property
    def z(self) -> np.ndarray:
        """(trials, P, F, S) deviations (mean infAP - MAP) / sd; NaN where sd = 0."""
        dev = (self.mean - self.map[None, None, :])[:, :, None, :]
        return np.divide(dev, self.sd, out=np.full(self.sd.shape, np.nan), where=self.sd > 0)

    @property
    def z_centred(self) -> np.ndarray:
        """(trials, P, F, S) deviations from each run's mean over the trials instead of MAP: the bias removed
        (a diagnostic of the variance alone; the KS test is then only approximate, the centre being estimated)."""
        dev = (self.mean - self.mean.mean(axis=0, keepdims=True))[:, :, None, :]
        return np.divide(dev, self.sd, out=np.full(self.sd.shape, np.nan), where=self.sd > 0)

    def deviations(self) -> pd.DataFrame:
        """Long table: trial, p, form, run, judged, mean_infAP, sd, z."""
        n, P, F, S = self.sd.shape
        idx = np.indices((n, P, F, S)).reshape(4, -1)
        return pd.DataFrame({
            "trial": idx[0], "p": np.asarray(self.p_values)[idx[1]],
            "form": np.asarray(self.forms, object)[idx[2]], "run": self.runs[idx[3]], "judged": self.judged[idx[3]],
            "mean_infAP": self.mean[idx[0], idx[1], idx[3]], "sd": self.sd.ravel(), "z": self.z.ravel(),
        })

    def head(self, trials: int) -> "CIValidation":
        """The first ``trials`` trials only (e.g. the "10 trials" variant of :func:`ks_variants`)."""
        n = int(min(trials, self.trials))
        cut = {name: (getattr(self, name)[:n] if getattr(self, name) is not None else None)
               for name in ("mean", "sd", "judgments", "parts", "mean_nonempty", "truth_nonempty", "sd_nonempty",
                            "empty_topics")}
        return replace(self, trials=n, label=f"{self.label or 'validation'}, first {n} trials", **cut)

    def without_empty_topics(self) -> "CIValidation":
        """Every trial's mean infAP, its truth and its sd taken over the topics that have at least one sampled
        relevant document (those without score 0 and are dropped; the truth is MAP over the same topics).
        Stored as ``mean = mean_nonempty - truth_nonempty + map`` so that :attr:`z` is the deviation from that
        truth in sds; ``parts`` are dropped (they describe the whole mean)."""
        if self.mean_nonempty is None:
            raise ValueError("this validation did not record the per-topic parts (run ci_validation again)")
        mean = self.mean_nonempty - self.truth_nonempty + self.map[None, None, :]
        return replace(self, mean=mean, sd=self.sd_nonempty, parts=None,
                       label=f"{self.label or 'validation'}, empty topics dropped")


def ci_validation(data, p_values: Sequence[float] = P_VALUES, trials: int = 100, seed: int = DEFAULT_SEED,
                  forms: Sequence[str] = tuple(VARIANCE_FORMS), confidence: float = 0.95, *, method: str = "fixed",
                  scheduler: str | None = None, n_jobs: int | None = None, progress: bool = True) -> CIValidation:
    """Sec. 2's validation: ``trials`` uniform samples at each p; in each, every run's mean infAP and its sd under
    every variance form (and the parts of its error, :func:`bias_breakdown`). ``method``: "fixed" (exactly
    round(p N_t) documents a topic, the default) or "bernoulli". Summarize with :func:`ks_table` /
    :func:`ks_per_run` / :func:`coverage_over_trials`."""
    started = time.perf_counter()
    gold = _as_gold(data)
    forms = _check_forms(forms)
    p_values = tuple(float(p) for p in p_values)
    records = run_trials(_validation_trial, int(trials), seed, args=(gold, p_values, forms, confidence, method),
                         scheduler=scheduler, n_jobs=n_jobs, progress=progress, desc="Yilmaz 2008: CI validation")
    S, P, F = gold.collection.n_runs, len(p_values), len(forms)
    stack = (lambda key, shape: np.stack([r[key] for r in records]) if records else np.zeros(shape))
    return CIValidation(
        p_values=p_values, forms=forms, runs=gold.collection.run_names, judged=gold.judged, map=gold.map,
        mean=stack("mean", (0, P, S)), sd=stack("sd", (0, P, F, S)),
        judgments=stack("judgments", (0, P)), n_pooled=gold.n_pooled, trials=int(trials), seed=seed,
        confidence=confidence, seconds=time.perf_counter() - started, parts=stack("parts", (0, P, 2, S)),
        mean_nonempty=stack("mean_nonempty", (0, P, S)), truth_nonempty=stack("truth_nonempty", (0, P, S)),
        sd_nonempty=stack("sd_nonempty", (0, P, F, S)), empty_topics=stack("empty_topics", (0, P)),
        method=method, label=f"{method} samples, {int(trials)} trials",
    )


def ks_test_normal(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided one-sample Kolmogorov-Smirnov test of each row of ``z`` (K, n) against N(0, 1): (D, p-value),
    as ``scipy.stats.kstest(row, "norm")`` (exact p-value from ``scipy.stats.kstwo``)."""
    from scipy.stats import kstwo, norm

    z = np.sort(np.atleast_2d(np.asarray(z, np.float64)), axis=1)
    n = z.shape[1]
    cdf = norm.cdf(z)
    i = np.arange(1, n + 1)
    d = np.maximum((i / n - cdf).max(axis=1), (cdf - (i - 1) / n).max(axis=1))
    return d, kstwo.sf(d, n)


def ks_per_run(validation: CIValidation, alpha: float = 0.05) -> pd.DataFrame:
    """Per p, variance form and run: the KS statistic and p-value of the trials' z against N(0, 1), whether
    it is rejected at ``alpha``, the empirical sd of mean infAP over trials and the root mean estimated
    variance. Runs with sd = 0 in some trial get NaN (not tested)."""
    z = validation.z  # (n, P, F, S)
    n, P, F, S = z.shape
    rows = np.moveaxis(z, 0, -1).reshape(P * F * S, n)
    ok = np.isfinite(rows).all(axis=1)
    d = np.full(len(rows), np.nan)
    pv = np.full(len(rows), np.nan)
    pc = np.full(len(rows), np.nan)
    if ok.any() and n > 0:
        d[ok], pv[ok] = ks_test_normal(rows[ok])
        _, pc[ok] = ks_test_normal(np.moveaxis(validation.z_centred, 0, -1).reshape(P * F * S, n)[ok])
    idx = np.indices((P, F, S)).reshape(3, -1)
    empirical = validation.mean.std(axis=0, ddof=1) if n > 1 else np.full((P, S), np.nan)  # (P, S)
    estimated = np.sqrt((validation.sd ** 2).mean(axis=0))  # (P, F, S)
    bias = (validation.mean - validation.map[None, None, :]).mean(axis=0)  # (P, S)
    return pd.DataFrame({
        "p": np.asarray(validation.p_values)[idx[0]], "form": np.asarray(validation.forms, object)[idx[1]],
        "run": validation.runs[idx[2]], "judged": validation.judged[idx[2]], "MAP": validation.map[idx[2]],
        "bias": bias[idx[0], idx[2]], "empirical sd": empirical[idx[0], idx[2]],
        "estimated sd": estimated.ravel(), "D": d, "p_value": pv, "p_value (bias removed)": pc,
        "rejected": pd.array([bool(x < alpha) if good else pd.NA for x, good in zip(pv, ok)], dtype="boolean"),
        "coverage": _coverage(rows, validation.confidence),
    })


def _coverage(rows: np.ndarray, confidence: float) -> np.ndarray:
    """Per row, the share of finite z with |z| <= the normal quantile (NaN for a row without finite z)."""
    finite = np.isfinite(rows)
    inside = (np.abs(np.where(finite, rows, np.inf)) <= _z(confidence)).sum(axis=1)
    n = finite.sum(axis=1)
    return np.divide(inside, n, out=np.full(len(rows), np.nan), where=n > 0)


def _z(confidence: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def ks_table(validation: CIValidation, alpha: float = 0.05) -> pd.DataFrame:
    """Per p and variance form: runs tested, the share of runs whose deviations the KS test does **not** reject
    (the paper's 90%; also split by judged / unjudged runs), the same with each run's bias removed (a diagnostic:
    does the variance alone fit?), the coverage of the intervals over all trials and runs, the mean and sd of z
    (0 and 1 if the intervals are right), and the median ratio of empirical to estimated sd (1 if the variance
    is right)."""
    per_run = ks_per_run(validation, alpha)
    z = validation.z
    rows = []
    for i, p in enumerate(validation.p_values):
        for j, form in enumerate(validation.forms):
            g = per_run[(per_run.p == p) & (per_run.form == form)]
            tested = g["p_value"].notna()
            zz = z[:, i, j, :]
            zf = zz[np.isfinite(zz)]
            ratio = (g["empirical sd"] / g["estimated sd"].where(g["estimated sd"] > 0)).replace(np.inf, np.nan)
            rows.append({
                "p": p, "form": form, "trials": validation.trials,
                "judgments": float(validation.judgments[:, i].mean()) if validation.trials else np.nan,
                "runs tested": int(tested.sum()), "runs not tested": int((~tested).sum()),
                "not rejected": float((g.loc[tested, "p_value"] >= alpha).mean()) if tested.any() else np.nan,
                "not rejected (judged)": float((g.loc[tested & g.judged, "p_value"] >= alpha).mean())
                if (tested & g.judged).any() else np.nan,
                "not rejected (unjudged)": float((g.loc[tested & ~g.judged, "p_value"] >= alpha).mean())
                if (tested & ~g.judged).any() else np.nan,
                "not rejected (bias removed)": float((g.loc[tested, "p_value (bias removed)"] >= alpha).mean())
                if tested.any() else np.nan,
                "coverage": float((np.abs(zf) <= _z(validation.confidence)).mean()) if zf.size else np.nan,
                "mean z": float(zf.mean()) if zf.size else np.nan,
                "sd z": float(zf.std(ddof=1)) if zf.size > 1 else np.nan,
                "empirical / estimated sd": float(ratio.median()) if ratio.notna().any() else np.nan,
            })
    return pd.DataFrame(rows)


# ------------------------------------------------------------------- what the validation finds: bias, spread

#: the paper's formula (Sec. 2 / Appendix, the estimate plugged in) and the kit's default, the two forms the
#: findings are stated for
PAPER_FORM = "paper plug-in, independent"

BIAS_PARTS = ("topics without a sampled relevant document (scored 0)",
              "smoothing to 1/2 where nothing above is sampled",
              "ratio estimator (the rest)")


def bias_per_run(validation: CIValidation) -> pd.DataFrame:
    """Per p and run: E[mean infAP] - MAP over the trials (``bias``), the empirical sd of mean infAP over the
    trials, the bias in sds (``bias / sd``) and in standard errors of the mean over trials (``bias / SE``,
    SE = sd / sqrt(trials)), and the bias split into :data:`BIAS_PARTS` (they add up to ``bias``):

    * a topic with no sampled relevant document scores 0: its part is -AP_t over the trials where that happens;
    * at a sampled relevant document with nothing sampled above it, trec_eval's precision above is smoothed to
      (0 + e)/(0 + 2e) = 1/2 (Yilmaz et al. 2008 Sec. 3, Lidstone): its part is infAP minus infAP with the true
      precision there (:func:`evalkit.measures.inferred.trec_infap_oracle_above`), on the other topics;
    * the rest is the ratio estimator's own bias (an average of estimated precisions over a random number of
      sampled relevant documents, each precision itself a ratio of sampled counts).

    All per run and mean over its scored topics, averaged over the trials."""
    if validation.parts is None:
        raise ValueError("this validation did not record the parts of the error (run ci_validation again)")
    n = validation.trials
    bias = (validation.mean - validation.map[None, None, :]).mean(axis=0)  # (P, S)
    sd = validation.mean.std(axis=0, ddof=1) if n > 1 else np.full(bias.shape, np.nan)
    parts = validation.parts.mean(axis=0)  # (P, 2, S)
    frames = []
    for i, p in enumerate(validation.p_values):
        ratio_sd = np.divide(bias[i], sd[i], out=np.full(len(bias[i]), np.nan), where=sd[i] > 0)
        frames.append(pd.DataFrame({
            "p": p, "run": validation.runs, "judged": validation.judged, "MAP": validation.map, "bias": bias[i],
            "sd": sd[i], "bias / sd": ratio_sd, "bias / SE": ratio_sd * np.sqrt(n),
            BIAS_PARTS[0]: parts[i, 0], BIAS_PARTS[1]: parts[i, 1], BIAS_PARTS[2]: bias[i] - parts[i].sum(axis=0),
        }))
    return pd.concat(frames, ignore_index=True)


def bias_breakdown(validation: CIValidation) -> pd.DataFrame:
    """Per p: the mean over runs of E[mean infAP] - MAP and its three parts (:func:`bias_per_run`), topics
    without a sampled relevant document per trial, the share of runs whose bias is below (above) zero by more than
    2 standard errors, and the correlation of the bias with MAP."""
    per_run = bias_per_run(validation)
    rows = []
    for i, (p, g) in enumerate(per_run.groupby("p", sort=False)):
        row = {"p": p, "trials": validation.trials,
               "empty topics a trial": float(validation.empty_topics[:, i].mean()) if validation.trials else np.nan,
               "bias": g["bias"].mean()}
        row.update({part: g[part].mean() for part in BIAS_PARTS})
        row["runs low by > 2 SE"] = float((g["bias / SE"] < -2).mean())
        row["runs high by > 2 SE"] = float((g["bias / SE"] > 2).mean())
        row["corr(bias, MAP)"] = float(np.corrcoef(g["bias"], g["MAP"])[0, 1]) \
            if g["bias"].std() > 0 and g["MAP"].std() > 0 else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def coverage_per_trial(validation: CIValidation) -> pd.DataFrame:
    """Long table trial, p, form, covered: in every trial, the share of runs whose interval covers MAP (runs with
    an estimated sd of 0 left out)."""
    z = validation.z  # (n, P, F, S)
    finite = np.isfinite(z)
    inside = (np.abs(np.where(finite, z, np.inf)) <= _z(validation.confidence)).sum(axis=3)
    tested = finite.sum(axis=3)
    covered = np.divide(inside, tested, out=np.full(inside.shape, np.nan), where=tested > 0)  # (n, P, F)
    n, P, F = covered.shape
    idx = np.indices((n, P, F)).reshape(3, -1)
    return pd.DataFrame({"trial": idx[0], "p": np.asarray(validation.p_values)[idx[1]],
                         "form": np.asarray(validation.forms, object)[idx[2]], "covered": covered.ravel()})


def coverage_over_trials(validation: CIValidation, forms: Sequence[str] | None = None) -> pd.DataFrame:
    """Per p and variance form: the share of runs whose interval covers MAP, computed in every trial
    (:func:`coverage_per_trial`), summarized over the trials (mean, sd, min, 5% and 95% quantiles, max). Figure 1
    shows one trial; since every run shares that trial's sample, one trial's coverage swings widely, and a claim
    about coverage is graded on the mean."""
    per_trial = coverage_per_trial(validation)
    rows = []
    for (p, form), g in per_trial.groupby(["p", "form"], sort=False):
        if forms is not None and form not in forms:
            continue
        v = g["covered"].to_numpy()
        v = v[np.isfinite(v)]
        rows.append({"p": p, "form": form, "trials": len(v),
                     "mean": float(v.mean()) if len(v) else np.nan,
                     "sd": float(v.std(ddof=1)) if len(v) > 1 else np.nan,
                     "min": float(v.min()) if len(v) else np.nan,
                     "5%": float(np.quantile(v, 0.05)) if len(v) else np.nan,
                     "95%": float(np.quantile(v, 0.95)) if len(v) else np.nan,
                     "max": float(v.max()) if len(v) else np.nan})
    return pd.DataFrame(rows)


def ks_variants(validation: CIValidation, bernoulli: CIValidation | None = None,
                forms: Sequence[str] = (PAPER_FORM, DEFAULT_FORM), few_trials: int = 10,
                alpha: float = 0.05) -> pd.DataFrame:
    """The KS validation under every variant tried to reproduce the paper's 90%: the design as read (uniform
    samples of exactly p N_t documents, all runs), the judged runs only, topics without a sampled relevant
    document dropped (:meth:`CIValidation.without_empty_topics`), only the first ``few_trials`` trials (the
    infAP paper's 10), and Bernoulli sampling (``bernoulli``, a validation run with ``method="bernoulli"``).
    Per variant, p and form: runs tested, the share not rejected, and the share not rejected with each run's
    bias removed (the variance alone)."""
    variants = [("as read: fixed-size uniform samples, all runs", validation, None),
                ("judged runs only", validation, "judged"),
                ("topics without a sampled relevant document dropped", validation.without_empty_topics(), None),
                (f"first {min(few_trials, validation.trials)} trials", validation.head(few_trials), None)]
    if bernoulli is not None:
        variants.append(("Bernoulli samples (each document with probability p)", bernoulli, None))
    rows = []
    for name, v, subset in variants:
        per_run = ks_per_run(v, alpha)
        if subset == "judged":
            per_run = per_run[per_run.judged]
        for (p, form), g in per_run.groupby(["p", "form"], sort=False):
            if form not in forms:
                continue
            tested = g["p_value"].notna()
            rows.append({"variant": name, "p": p, "form": form, "trials": v.trials, "runs tested": int(tested.sum()),
                         "not rejected": float((g.loc[tested, "p_value"] >= alpha).mean()) if tested.any() else np.nan,
                         "not rejected (bias removed)": float((g.loc[tested, "p_value (bias removed)"] >= alpha).mean())
                         if tested.any() else np.nan})
    return pd.DataFrame(rows)


def findings_markdown(validation: CIValidation, alpha: float = 0.05, form: str = DEFAULT_FORM) -> str:
    """The validation's two findings in words, every number (and every conclusion) computed from ``validation``:
    (a) the bias of infAP and its parts, (b) the variance forms' fit, with and without the bias (Markdown)."""
    t = ks_table(validation, alpha)
    b = bias_breakdown(validation) if validation.parts is not None else None
    cov = coverage_over_trials(validation, [form])
    ps = "/".join(f"{p:.0%}" for p in validation.p_values)
    joined = (lambda values, fmt="{:.0%}": "/".join(fmt.format(v) for v in values))

    def col(f, column, fmt="{:.0%}"):
        g = t[t.form == f]
        return joined(g[column], fmt) if len(g) else "n/a"

    lines = [f"**What {validation.trials} samples at p = {ps} show** (every number below is computed from this run):", ""]
    if validation.trials < 50:
        lines += [f"*Only {validation.trials} samples: the KS test has little power to reject, and the coverage and "
                  "bias estimates are rough. The paper used 100.*", ""]
    if b is not None:
        low = b["runs low by > 2 SE"]
        direction = "falls short of" if (b["bias"] < 0).all() else "differs from"
        verdict = ("a clear bias" if (low >= 0.5).any() else "a bias in some runs" if (low >= 0.1).any()
                   else "no clear bias")
        lines.append(
            f"* **(a) The bias: {verdict}.** Mean infAP {direction} MAP by {joined(b['bias'], '{:+.3f}')} on average "
            f"over runs; {joined(low)} of the runs are low by more than 2 standard errors (high: "
            f"{joined(b['runs high by > 2 SE'])}); correlation of the bias with MAP "
            f"{joined(b['corr(bias, MAP)'], '{:+.2f}')}. It splits into {joined(b[BIAS_PARTS[0]], '{:+.3f}')} from "
            f"topics with no sampled relevant document (they score 0; {joined(b['empty topics a trial'], '{:.1f}')} "
            f"topics a sample), {joined(b[BIAS_PARTS[1]], '{:+.3f}')} from the smoothing to 1/2 where nothing above a "
            f"relevant document was sampled, and {joined(b[BIAS_PARTS[2]], '{:+.3f}')} from the ratio estimator "
            "itself. The variance formula cannot see a bias.")
    forms = [f for f in (PAPER_FORM, form) if f in validation.forms]
    ratios = {f: t.loc[t.form == f, "empirical / estimated sd"] for f in forms}
    if PAPER_FORM in ratios:
        r = ratios[PAPER_FORM]
        verdict = "too small" if (r > 1.2).any() else "about right"
        text = (f"* **(b) The paper's variance is {verdict}.** With the paper's formula ({PAPER_FORM}) the empirical "
                f"sd of mean infAP is {joined(r, '{:.2f}')} times the estimated one (median over runs)")
        if form != PAPER_FORM and form in ratios:
            text += f"; with {form} {joined(ratios[form], '{:.2f}')}"
        lines.append(text + ".")
    if forms:
        kit, paper = t[t.form == form], t[t.form == PAPER_FORM]
        pass_kit = kit["not rejected (bias removed)"].to_numpy()
        pass_paper = paper["not rejected (bias removed)"].to_numpy() if len(paper) else pass_kit
        if (pass_kit >= 0.8).all() and (pass_paper >= 0.8).all():
            reading = "once the bias is removed both forms pass: the failure is the bias"
        elif (pass_kit >= 0.8).all():
            reading = "the shift explains the failure only once the variance is also corrected"
        else:
            reading = "even without the bias the test rejects many runs: the variance does not fit either"
        text = f"* **Kept apart.** The KS test does not reject {col(form, 'not rejected')} of the runs ({form})"
        if form != PAPER_FORM and len(paper):
            text += f" and {col(PAPER_FORM, 'not rejected')} with the paper's formula"
        text += f" (the paper: {PAPER_KS_NOT_REJECTED:.0%}). Removing each run's bias, {joined(pass_kit)} pass"
        if form != PAPER_FORM and len(paper):
            text += f" ({form}) against {joined(pass_paper)} with the paper's formula"
        lines.append(text + f": {reading}.")
    if len(cov):
        lines.append(
            f"* **Coverage.** Over the {validation.trials} samples the 95% intervals ({form}) cover MAP for "
            f"{joined(cov['mean'])} of the runs on average, ranging from {joined(cov['min'])} to {joined(cov['max'])} "
            "between samples: one sample (Figure 1) says little.")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------- figure 2


def figure2(data, depths: Sequence[int] = FIGURE2_DEPTHS, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """Figure 2: one depth-k + random sample per k; per run, actual MAP and mean xinfAP.

    Columns: k, run, judged, MAP, mean_xinfAP, judgments, share (of the depth-100 pool)."""
    gold = _as_gold(data)
    frames = []
    for k in depths:
        qrels = depth_random_judgments(gold, int(k), _seed(seed, "figure2", k))
        xinf = inferred_measures(gold.collection, qrels, ["infAP"])["infAP"]
        n = _n_judged(qrels)
        frames.append(pd.DataFrame({"k": int(k), "run": gold.collection.run_names, "judged": gold.judged,
                                    "MAP": gold.map, "mean_xinfAP": run_means(xinf, gold.scored),
                                    "judgments": n, "share": n / gold.n_pooled}))
    return pd.concat(frames, ignore_index=True)


def figure2_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per k: judgments, share of the pool (and the paper's), RMS / tau / rho over all runs, and RMS and tau over
    the unjudged runs only (the paper's robustness claim)."""
    rows = []
    for k, g in frame.groupby("k", sort=False):
        s = agreement(g["MAP"].to_numpy(), g["mean_xinfAP"].to_numpy())
        u = g[~g.judged]
        su = agreement(u["MAP"].to_numpy(), u["mean_xinfAP"].to_numpy()) if len(u) > 2 else None
        rows.append({"k": k, "judgments": int(g["judgments"].iloc[0]), "share": g["share"].iloc[0],
                     "paper share": PAPER_FIGURE2_SHARE.get(int(k), np.nan),
                     "RMS": s["rms"][0], "tau": s["tau"][0], "rho": s["rho"][0],
                     "RMS (unjudged)": su["rms"][0] if su else np.nan,
                     "tau (unjudged)": su["tau"][0] if su else np.nan,
                     "mean error": float((g["mean_xinfAP"] - g["MAP"]).mean())})
    return pd.DataFrame(rows)


#: xinfAP's estimate of the precision in a stratum, (r + a) / (n + b): the variants :func:`smoothing_study` compares
SMOOTHINGS: dict[str, tuple[float, float]] = {
    "sample_eval (r+1e-5)/(n+3e-5)": SAMPLE_EVAL_SMOOTHING,
    "paper / trec_eval (r+e)/(n+2e)": TREC_EVAL_SMOOTHING,
    "none r/n (0 if n = 0)": (0.0, 0.0),
}


def smoothing_study(data, depths: Sequence[int] = FIGURE2_DEPTHS, trials: int = 5, seed: int = DEFAULT_SEED,
                    smoothings: dict | None = None) -> pd.DataFrame:
    """xinfAP on depth-k + random samples under different smoothing constants (the same samples for each).

    When a stratum has no sampled document above a relevant one, the smoothed precision (r + a)/(n + b) is a/b:
    1/3 with ``sample_eval``'s constants, 1/2 with the paper's. With few samples in a large stratum (small k)
    that lifts xinfAP; the paper notes that smoothing matters more as strata multiply. Per k and smoothing, the
    mean over ``trials`` samples of the mean error, the RMS error and Kendall's tau against MAP."""
    gold = _as_gold(data)
    smoothings = SMOOTHINGS if smoothings is None else smoothings
    rows = []
    for k in depths:
        for t in range(int(trials)):
            qrels = depth_random_judgments(gold, int(k), _seed(seed, "figure2", k, 100 + t))
            for name, sm in smoothings.items():
                est = run_means(inferred_measures(gold.collection, qrels, ["infAP"], smoothing=sm)["infAP"],
                                gold.scored)
                a = agreement(gold.map, est)
                rows.append({"k": int(k), "smoothing": name, "trial": t, "mean error": float((est - gold.map).mean()),
                             "RMS": a["rms"][0], "tau": a["tau"][0]})
    frame = pd.DataFrame(rows)
    return frame.groupby(["k", "smoothing"], sort=False)[["mean error", "RMS", "tau"]].mean().reset_index()


# ------------------------------------------------------------------------------------- figures 3 and 4


@dataclass(frozen=True)
class Sweep:
    """A sweep over pool depths k with repeated trials (Figures 3 and 4).

    ``means`` (trials, K, E, S): each estimator's per-run mean; ``judgments`` (trials, K, E); ``stats``: long
    table trial, k, estimator, measure (AP or nDCG), judgments, share, tau, rho, RMS; :meth:`summary` averages
    over trials as the paper does.
    """

    depths: tuple[int, ...]
    estimators: tuple[str, ...]
    measure_of: tuple[str, ...]  # "AP" or "nDCG" per estimator
    means: np.ndarray
    judgments: np.ndarray
    stats: pd.DataFrame
    trials: int
    seed: int
    seconds: float = float("nan")

    def summary(self) -> pd.DataFrame:
        """Mean over trials of judgments, share, tau, rho and RMS per (k, estimator); plus min/max of tau."""
        g = self.stats.groupby(["k", "estimator"], sort=False, observed=True)
        out = g[["judgments", "share", "tau", "rho", "RMS"]].mean()
        out["tau min"] = g["tau"].min()
        out["tau max"] = g["tau"].max()
        out.insert(0, "measure", g["measure"].first())
        return out.reset_index()


def _figure3_trial(trial_index: int, trial_seed: int, gold: Gold, depths) -> dict:
    c = gold.collection
    S = c.n_runs
    means = np.zeros((len(depths), 3, S))
    judgments = np.zeros((len(depths), 3), np.int64)
    for i, k in enumerate(depths):
        mixed = depth_random_judgments(gold, k, _seed(trial_seed, "figure3", k))
        m = inferred_measures(c, mixed, ["infAP", "trec_infAP"])
        n = _n_judged(mixed)
        rnd = random_judgments(gold, n / gold.n_pooled, _seed(trial_seed, "random", k, 3))
        r = inferred_measures(c, rnd, ["trec_infAP"])["trec_infAP"]
        means[i, 0] = run_means(m["infAP"], gold.scored)
        means[i, 1] = run_means(r, gold.scored)
        means[i, 2] = run_means(m["trec_infAP"], gold.scored)
        judgments[i] = (n, _n_judged(rnd), n)
    return {"means": means, "judgments": judgments}


def _figure4_trial(trial_index: int, trial_seed: int, gold: Gold, depths, ratio, boundaries) -> dict:
    c = gold.collection
    S = c.n_runs
    means = np.zeros((len(depths), 4, S))
    judgments = np.zeros((len(depths), 4), np.int64)
    for i, k in enumerate(depths):
        strat = depth_strata_judgments(gold, k, _seed(trial_seed, "figure4", k), ratio, boundaries)
        m = inferred_measures(c, strat, ["infAP", gold.infndcg_name])
        n = _n_judged(strat)
        rnd = random_judgments(gold, n / gold.n_pooled, _seed(trial_seed, "random", k, 4))
        r = inferred_measures(c, rnd, ["trec_infAP"])["trec_infAP"]
        means[i, 0] = run_means(m["infAP"], gold.scored)
        means[i, 1] = run_means(r, gold.scored)
        means[i, 2] = run_means(m[gold.infndcg_name], gold.scored)
        means[i, 3] = run_means(plain_ndcg(gold, rnd), gold.scored)
        nr = _n_judged(rnd)
        judgments[i] = (n, nr, n, nr)
    return {"means": means, "judgments": judgments}


def _sweep(gold, trial_fn, args, estimators, measure_of, depths, trials, seed, scheduler, n_jobs, progress, desc):
    started = time.perf_counter()
    records = run_trials(trial_fn, int(trials), seed, args=(gold, depths) + tuple(args), scheduler=scheduler,
                         n_jobs=n_jobs, progress=progress, desc=desc)
    K, E, S = len(depths), len(estimators), gold.collection.n_runs
    means = np.stack([r["means"] for r in records]) if records else np.zeros((0, K, E, S))
    judgments = np.stack([r["judgments"] for r in records]) if records else np.zeros((0, K, E), np.int64)
    truth = {"AP": gold.map, "nDCG": gold.mean_ndcg}
    frames = []
    for e, (name, measure) in enumerate(zip(estimators, measure_of)):
        flat = means[:, :, e, :].reshape(-1, S)
        st = agreement(truth[measure], flat) if len(flat) else {"tau": [], "rho": [], "rms": []}
        idx = np.indices((len(records), K)).reshape(2, -1)
        frames.append(pd.DataFrame({
            "trial": idx[0], "k": np.asarray(depths)[idx[1]], "estimator": name, "measure": measure,
            "judgments": judgments[:, :, e].ravel(), "share": judgments[:, :, e].ravel() / gold.n_pooled,
            "tau": st["tau"], "rho": st["rho"], "RMS": st["rms"],
        }))
    stats = pd.concat(frames, ignore_index=True)
    stats["estimator"] = pd.Categorical(stats["estimator"], categories=list(estimators), ordered=True)
    stats = stats.sort_values(["k", "estimator", "trial"], kind="stable").reset_index(drop=True)
    return Sweep(tuple(depths), tuple(estimators), tuple(measure_of), means, judgments, stats, int(trials), seed,
                 time.perf_counter() - started)


def figure3(data, depths: Sequence[int] = FIGURE3_DEPTHS, trials: int = 10, seed: int = DEFAULT_SEED, *,
            scheduler: str | None = None, n_jobs: int | None = None, progress: bool = True) -> Sweep:
    """Figure 3: for each k and trial, a depth-k + random sample (xinfAP, and trec_eval's infAP on the same
    judgments) and a uniform sample of the same size (infAP); tau, rho and RMS of the run means against MAP."""
    gold = _as_gold(data)
    depths = tuple(int(k) for k in depths)
    return _sweep(gold, _figure3_trial, (), FIGURE3_ESTIMATORS, ("AP", "AP", "AP"), depths, trials, seed,
                  scheduler, n_jobs, progress, "Yilmaz 2008: Figure 3")


def figure4(data, depths: Sequence[int] = FIGURE3_DEPTHS, trials: int = 10, seed: int = DEFAULT_SEED,
            ratio: Sequence[float] = (3.0, 1.5, 1.0), boundaries=None, *, scheduler: str | None = None,
            n_jobs: int | None = None, progress: bool = True) -> Sweep:
    """Figure 4: for each k and trial, a 4-strata sample (depth-k pool + three strata at rates in ``ratio``;
    xinfAP and infNDCG) and a uniform sample of the same size (infAP and plain nDCG, unjudged = nonrelevant)."""
    gold = _as_gold(data)
    depths = tuple(int(k) for k in depths)
    return _sweep(gold, _figure4_trial, (tuple(ratio), boundaries), FIGURE4_ESTIMATORS,
                  ("AP", "AP", "nDCG", "nDCG"), depths, trials, seed, scheduler, n_jobs, progress,
                  "Yilmaz 2008: Figure 4")


def dominance(sweep: Sweep, winner: str, losers: Sequence[str], statistics: Sequence[str] = ("tau", "rho", "RMS"),
              ) -> pd.DataFrame:
    """Per k: does ``winner`` beat every one of ``losers`` on each statistic (trial means; higher tau / rho, lower
    RMS)? Columns: k, share, one bool column per statistic, and ``all``."""
    s = sweep.summary()
    rows = []
    for k, g in s.groupby("k", sort=False):
        g = g.set_index("estimator")
        row = {"k": k, "share": g.loc[winner, "share"]}
        for stat in statistics:
            other = g.loc[list(losers), stat]
            row[stat] = bool(g.loc[winner, stat] <= other.min()) if stat == "RMS" else \
                bool(g.loc[winner, stat] >= other.max())
        row["all"] = all(row[stat] for stat in statistics)
        rows.append(row)
    return pd.DataFrame(rows)


def _pct(values) -> str:
    return ", ".join(f"{v:.0%}" for v in values)


def claims(gold: Gold, fig1: pd.DataFrame | None = None, validation: CIValidation | None = None,
           fig2: pd.DataFrame | None = None, fig3: Sweep | None = None, fig4: Sweep | None = None,
           form: str = DEFAULT_FORM, alpha: float = 0.05) -> list:
    """The paper's statements beside the kit's numbers (:class:`evalkit.claims.Claim` rows) for whatever parts
    were run."""
    from evalkit.claims import Claim

    paper = "Yilmaz, Kanoulas & Aslam 2008"
    data = gold.collection.name
    out = [Claim(paper, f"size of the depth-{gold.depth} pool of the contributing runs (TREC-8: depth 100)",
                 f"{PAPER_TREC8_JUDGMENTS:,}", f"{gold.n_pooled:,}", data,
                 ("yes" if gold.n_pooled == PAPER_TREC8_JUDGMENTS else "no") if data == "trec8" else "",
                 "the truth of every experiment here")]
    ps = (lambda values: "/".join(f"{p:.0%}" for p in values))
    if fig1 is not None or (validation is not None and validation.trials > 1):
        if validation is not None and validation.trials > 1:
            cov = coverage_over_trials(validation, [form])
            one = ""
            if fig1 is not None:
                f = figure1_summary(fig1)
                one = f"; Figure 1's one sample: {_pct(f[f.form == form]['covered'])}"
            agrees = "yes" if (cov["mean"] >= 0.9).all() else "partly" if (cov["mean"] >= 0.75).all() else "no"
            out.append(Claim(paper, f"Fig. 1: 95% CIs of mean infAP cover the actual MAP (p = {ps(cov.p)})",
                             "the greatest majority",
                             f"mean over {validation.trials} samples {_pct(cov['mean'])} of runs (5-95% of samples: "
                             + ", ".join(f"{a:.0%}-{b:.0%}" for a, b in zip(cov["5%"], cov["95%"])) + f"; {form})"
                             + one, data, agrees,
                             "graded on the mean over samples: one sample, shared by every run, swings coverage "
                             f"from {_pct(cov['min'])} to {_pct(cov['max'])}" + (
                                 "; misses fall mostly below the diagonal (bias)" if validation.parts is not None
                                 and (bias_breakdown(validation)["runs low by > 2 SE"] >= 0.5).any() else "")))
        else:
            f = figure1_summary(fig1)
            mine = f[f.form == form]
            agrees = "yes" if (mine["covered"] >= 0.9).all() else "partly" if (mine["covered"] >= 0.75).all() else "no"
            out.append(Claim(paper, f"Fig. 1: 95% CIs of mean infAP cover the actual MAP (p = {ps(mine.p)}, one "
                             "sample)", "the greatest majority", f"{_pct(mine['covered'])} of runs ({form})", data,
                             agrees, "one sample only: coverage swings widely between samples"))
    if validation is not None and validation.trials > 1:
        t = ks_table(validation, alpha)
        kit = t[t.form == form]
        paper_form = t[t.form == PAPER_FORM]
        agrees = "yes" if (kit["not rejected"] >= 0.8).all() else "partly" if (kit["not rejected"] >= 0.5).any() else "no"
        causes = []
        if validation.parts is not None and (bias_breakdown(validation)["runs low by > 2 SE"] >= 0.1).any():
            causes.append("a bias (next row)")
        if len(paper_form) and (paper_form["empirical / estimated sd"] > 1.2).any():
            causes.append("with the paper's formula, a variance too small (the row after)")
        out.append(Claim(paper, f"KS test of the deviations (in sds) against N(0,1), {validation.trials} samples, "
                         f"alpha = {alpha}: share of runs not rejected", f"{PAPER_KS_NOT_REJECTED:.0%}",
                         f"{_pct(kit['not rejected'])} at p = {ps(kit.p)} ({form})"
                         + (f"; {_pct(paper_form['not rejected'])} with the paper's formula" if len(paper_form) else ""),
                         data, agrees, ("causes kept apart: " + "; ".join(causes)) if causes else ""))
        if validation.parts is not None:
            b = bias_breakdown(validation)
            low = b["runs low by > 2 SE"]
            out.append(Claim(paper, "infAP is an unbiased estimator of AP (Sec. 2), so mean infAP - MAP is centred "
                             "on 0", "unbiased, by construction",
                             f"E[mean infAP] - MAP = {', '.join(f'{v:+.3f}' for v in b['bias'])} at p = {ps(b.p)}; "
                             f"{_pct(low)} of runs low by > 2 SE; parts: empty topics "
                             f"{', '.join(f'{v:+.3f}' for v in b[BIAS_PARTS[0]])}, smoothing to 1/2 "
                             f"{', '.join(f'{v:+.3f}' for v in b[BIAS_PARTS[1]])}, ratio estimator "
                             f"{', '.join(f'{v:+.3f}' for v in b[BIAS_PARTS[2]])}", data,
                             "no" if (low >= 0.5).any() else "partly" if (low >= 0.1).any() else "yes",
                             "topics with no sampled relevant document score 0; with nothing sampled above a relevant "
                             "document the precision above is smoothed to 1/2; the rest is the ratio estimator's bias"))
        if len(paper_form):
            ratio = paper_form["empirical / estimated sd"]
            out.append(Claim(paper, "the variance of infAP (Sec. 2, Appendix: the estimate plugged into the "
                             "hypergeometric formula) fits: with the bias removed the KS test passes",
                             "90% not rejected", f"paper's formula: empirical / estimated sd {', '.join(f'{r:.2f}' for r in ratio)}; "
                             f"bias removed {_pct(paper_form['not rejected (bias removed)'])} pass (kit's "
                             f"{form}: {_pct(kit['not rejected (bias removed)'])})", data,
                             "yes" if (paper_form["not rejected (bias removed)"] >= 0.8).all() else
                             "partly" if (paper_form["not rejected (bias removed)"] >= 0.8).any() else "no",
                             "'bias removed' centres each run on its own mean over the samples (the KS test is then "
                             "conservative)" + ("; the kit's unbiased variance passes where the paper's does not"
                                                if (kit["not rejected (bias removed)"] >= 0.8).all()
                                                and (paper_form["not rejected (bias removed)"] < 0.8).any() else "")))
    if fig2 is not None:
        f = figure2_summary(fig2)
        shares = "/".join(f"{s:.1%}" for s in f["share"])
        paper_shares = "/".join(f"{s:.1%}" for s in f["paper share"])
        close = np.nanmax(np.abs(f["share"] - f["paper share"])) <= 0.005
        out.append(Claim(paper, f"Fig. 2: share of the depth-{gold.depth} pool judged by depth-"
                         + "/".join(map(str, f.k))
                         + " + equal random", paper_shares, shares, data,
                         ("yes" if close else "no") if data == "trec8" else "",
                         "the paper's shares are TREC-8's"))
        out.append(Claim(paper, "Fig. 2: xinfAP vs actual MAP (RMS, tau, rho) at depth-" + "/".join(map(str, f.k)),
                         "unbiased; unseen runs (pluses) evaluated reliably (values only in the figure)",
                         "; ".join(f"k={k}: RMS {r:.3f}, tau {t:.3f}, rho {c:.3f} (unjudged runs tau {u:.3f})"
                                   for k, r, t, c, u in zip(f.k, f.RMS, f.tau, f.rho, f["tau (unjudged)"])),
                         data, "yes" if (f.tau > 0.9).iloc[0] and (f["mean error"].abs() <= 0.02).all() else
                         "partly", "mean error " + ", ".join(f"{e:+.3f}" for e in f["mean error"])
                         + ": sample_eval's smoothing lifts xinfAP where the random stratum is thinly sampled "
                         "(smoothing_study)"))
    if fig3 is not None:
        d = dominance(fig3, FIGURE3_ESTIMATORS[0], FIGURE3_ESTIMATORS[1:])
        s = fig3.summary()
        k10 = s[s.k == 10] if (s.k == 10).any() else s[s.k == s.k.max()]
        out.append(Claim(paper, "Fig. 3: xinfAP (depth + random) beats infAP (random) and infAP (depth + random) "
                         "in tau, rho and RMS at every k",
                         "at all levels of incompleteness, all three statistics",
                         f"all three at {int(d['all'].sum())} of {len(d)} depths (tau {int(d['tau'].sum())}, rho "
                         f"{int(d['rho'].sum())}, RMS {int(d['RMS'].sum())}); at k={int(k10.k.iloc[0])}: tau "
                         + ", ".join(f"{t:.3f}" for t in k10.tau) + " (xinfAP, infAP random, infAP depth+random)",
                         data, "yes" if d["all"].all() else "partly" if d["all"].mean() >= 0.5 else "no",
                         kind="direction"))
    if fig4 is not None:
        ap = dominance(fig4, FIGURE4_ESTIMATORS[0], [FIGURE4_ESTIMATORS[1]], ("tau", "RMS"))
        nd = dominance(fig4, FIGURE4_ESTIMATORS[2], [FIGURE4_ESTIMATORS[3]], ("tau", "RMS"))
        ok = ap["all"].all() and nd["all"].all()
        out.append(Claim(paper, "Fig. 4 (4 strata): xinfAP beats infAP and infNDCG beats nDCG on random judgments "
                         "of the same size (tau and RMS)", "consistently, TREC 8, 9 and 10",
                         f"xinfAP: {int(ap['all'].sum())} of {len(ap)} depths; infNDCG: {int(nd['all'].sum())} "
                         f"of {len(nd)} depths (TREC-9/10 not run)", data,
                         "yes" if ok else "partly" if (ap["all"].mean() + nd["all"].mean()) / 2 >= 0.5 else "no",
                         kind="direction"))
        s = fig4.summary()
        rms = s.pivot(index="k", columns="estimator", values="RMS")
        out.append(Claim(paper, "Fig. 4: nDCG on random judgments has a high RMS error (it does not estimate)",
                         "high RMS", f"RMS nDCG (random) {rms[FIGURE4_ESTIMATORS[3]].min():.3f}-"
                         f"{rms[FIGURE4_ESTIMATORS[3]].max():.3f} vs infNDCG {rms[FIGURE4_ESTIMATORS[2]].min():.3f}-"
                         f"{rms[FIGURE4_ESTIMATORS[2]].max():.3f}", data,
                         "yes" if (rms[FIGURE4_ESTIMATORS[3]] > rms[FIGURE4_ESTIMATORS[2]]).all() else "partly",
                         kind="direction"))
    out.append(Claim(paper, "TREC-9 and TREC-10 panels", "same conclusions as TREC-8",
                     "not run: the data are not available here", data, "",
                     "point the notebook's dataset at a TREC-9/10 directory to run them"))
    return out


# -------------------------------------------------------------------------------------------- widgets


def random_sample_explorer(data, p: float = 0.2, seed: int = DEFAULT_SEED, form: str = DEFAULT_FORM):
    """Slider over p: draws a uniform sample of p% of the pool, redraws mean infAP with its intervals against MAP
    (dots: judged runs, pluses: the others) with tau / rho / RMS and the share of intervals covering MAP."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from evalkit.display.plots import estimate_vs_truth
    from evalkit.display.widgets import interactive_figure

    gold = _as_gold(data)

    def draw(p, form, seed):
        frame = figure1(gold, [p], seed=seed, forms=[form])
        covered = frame["covers"].mean()
        _, ax = plt.subplots(figsize=(5.5, 5))
        estimate_vs_truth(frame["MAP"], frame["mean_infAP"], frame["judged"], errors=(frame["ci_high"] -
                          frame["ci_low"]) / 2, xlabel="actual MAP", ylabel="mean infAP", ax=ax,
                          title=f"p = {p:.0%}: {frame['judgments'].iloc[0]:,} judgments, "
                                f"{covered:.0%} of intervals cover MAP")
        plt.show()

    return interactive_figure(
        draw,
        p=widgets.FloatSlider(value=p, min=0.05, max=1.0, step=0.05, description="p", readout_format=".0%",
                              continuous_update=False),
        form=widgets.Dropdown(options=list(VARIANCE_FORMS), value=form, description="variance"),
        seed=widgets.IntText(value=seed, description="seed"),
    )


def stratified_explorer(data, k: int = 10, ratio: Sequence[float] = (3.0, 1.5, 1.0), seed: int = DEFAULT_SEED):
    """Sliders over k and the three stratum weights: draws the 4-strata sample and a uniform sample of the same
    size, and redraws xinfAP / infNDCG (left) and infAP / nDCG on the random judgments (right) against the truth.
    Setting the weights (1, 1, 1) gives the two-strata depth + random design of Figures 2 and 3."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from evalkit.display.plots import estimate_vs_truth
    from evalkit.display.widgets import interactive_figure

    gold = _as_gold(data)
    c = gold.collection

    def draw(k, top, middle, bottom, measure):
        weights = (top, middle, bottom)
        if min(weights) <= 0:
            weights = tuple(max(w, 1e-6) for w in weights)
        strat = depth_strata_judgments(gold, k, _seed(seed, "explorer", k), weights)
        n = _n_judged(strat)
        rnd = random_judgments(gold, n / gold.n_pooled, _seed(seed, "explorer", k, 1))
        if measure == "AP":
            est = run_means(inferred_measures(c, strat, ["infAP"])["infAP"], gold.scored)
            base = run_means(inferred_measures(c, rnd, ["trec_infAP"])["trec_infAP"], gold.scored)
            truth, names = gold.map, ("xinfAP (4 strata)", "infAP (random)")
        else:
            est = run_means(inferred_measures(c, strat, [gold.infndcg_name])[gold.infndcg_name], gold.scored)
            base = run_means(plain_ndcg(gold, rnd), gold.scored)
            truth, names = gold.mean_ndcg, ("infNDCG (4 strata)", f"{gold.ndcg_name} (random)")
        _, axes = plt.subplots(1, 2, figsize=(10, 4.8), sharex=True, sharey=True)
        for ax, values, name in zip(axes, (est, base), names):
            estimate_vs_truth(truth, values, gold.judged, ax=ax, xlabel=f"actual {measure}", ylabel=name,
                              title=f"{name}, k = {k}: {n / gold.n_pooled:.1%} of the pool judged")
        plt.show()

    max_k = max(1, min(50, gold.depth - 3))
    slider = (lambda v, d: widgets.FloatSlider(value=v, min=0.1, max=5.0, step=0.1, description=d,
                                               continuous_update=False))
    return interactive_figure(
        draw,
        k=widgets.IntSlider(value=min(k, max_k), min=1, max=max_k, description="depth k", continuous_update=False),
        top=slider(ratio[0], "top"), middle=slider(ratio[1], "middle"), bottom=slider(ratio[2], "bottom"),
        measure=widgets.Dropdown(options=["AP", "nDCG"], value="AP", description="measure"),
    )


# ------------------------------------------------------------------------------------------ run-size presets

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`). "paper": 100 samples per p to validate the
#: intervals, Figures 3-4 at every depth of the sweep with 10 trials each, 5 trials of the smoothing study.
#: "class": 10 samples per p (the KS test is weaker, so more runs pass it; the bias columns still show the
#: shift), 6 of the sweep's depths spread over the same range (:func:`evalkit.papers.settings.spread`; 1, 2, 5, 10, 20,
#: 50 on TREC-8) with 2 trials each (xinfAP's lead over infAP holds at every depth on TREC-8; the min-max bands
#: are narrower), 2 smoothing trials. "fast": the tests' (``plan(fast=True)`` picks its depths).
PRESETS = {
    "paper": {"validation_trials": 100, "sweep_trials": 10, "sweep_points": None, "smoothing_trials": 5},
    "class": {"validation_trials": 10, "sweep_trials": 2, "sweep_points": 6, "smoothing_trials": 2},
    "fast": {"validation_trials": 10, "sweep_trials": 2, "sweep_points": None, "smoothing_trials": 2},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`)."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)


__all__ += ["PRESETS", "settings"]
