"""Lu, Moffat and Culpepper (2017), "Can deep effectiveness metrics be evaluated using shallow judgment pools?"

Pure functions returning DataFrames, one per figure or table the kit can rebuild; the computations live in
:mod:`evalkit.estimation` (equations and reconstruction choices are documented there).

Setting (Sec. 6): the contributing ("judged") runs build depth-d' pools, d' < d; the judgments of a depth-d' pool
are the full qrels restricted to it. The metric is RBP(0.95) at the reference depth d = 100; the gold standard is
RBP@d with the full qrels (score and residual). Five estimators: LB, RM, Lin (the best rank-level model), La, Lb;
the adjust-or-not threshold theta = 0.018 (set by the authors on TREC-5/7/8).

* :func:`figure3_gamma_by_depth`: mean gamma (Eq. 10, normalized by the number of runs) vs pool depth (Fig. 3 left)
* :func:`figure3_gamma_per_topic`: gamma of every topic at d' = 10 (Fig. 3 middle)
* :func:`figure3_rmse_vs_theta`: RMSE (and Acc%) vs theta for LB, Lin, Wei at d' = 10 (Fig. 3 right)
* :func:`table2`: RMSE and Acc% of LB, RM, Lin, La, Lb at d' = 10, 20, 30, theta = 0 and 0.018;
  :func:`table2_layout` prints any long Table-2 frame (the kit's or :data:`PAPER_TABLE2`) in the paper's layout,
  :func:`rmse_ordering` orders the estimators by RMSE per (collection, d', theta)
* :func:`table3`: leave-one-group-out at d' = 10, theta = 0 (the group's runs scored)
* :func:`figure4`: tau distance and dist (Eq. 11) vs pool depth, reference = LB at d
* :func:`figure6`: two-strata judgments (depth 10 + 10% of ranks 11-100), 10 repetitions: InfAP, InfRBP, La, Lb

:func:`prepare` builds what they share (reference scores, system matrix) once; each function also takes a
Collection.

The paper's collections (TREC-9/10, Robust04, TB04/05/06, CW10) are not available here; TREC-8 is, but the
authors used TREC-8 (with TREC-5/7) only to set theta and did not report it. :data:`PAPER_TABLE2` and
:data:`PAPER_TABLE3` hold the published numbers for comparison of *orderings*, not of values.

Choices the paper leaves open (see also :mod:`evalkit.estimation`):

* Scored runs: the contributing runs (Table 2, Figs. 3, 4, 6); in Table 3 the left-out group's contributing runs,
  their RMSE and Acc% averaged over groups (the paper: "averages across groups").
* Figs. 4 and 6 use theta = 0.018 unless told otherwise (the paper does not say); the reference of InfAP is Sakai's
  AP@d on the full qrels (the paper: "the truncated metric AP@d is computed as described by Sakai"), InfAP itself
  is trec_eval's infAP (:func:`evalkit.inferred.trec_infap`) on the whole ranking, as the paper ran trec_eval.
* The system matrix records each document's rank in every contributing run down to the runs' full length
  (k = 1000 on TREC, "the maximum depth of lists returned"); a run that did not return the document contributes
  the model gain at 1000, and the gain models are extrapolated that far. (Cutting the matrix at d = 100 instead
  gives g0(100) to every document a run ranks below 100 and makes La / Lb worse on TREC-8: RMSE 0.078 / 0.073
  instead of about 0.070 at d' = 10, theta = 0.)
* Two-strata samples draw ``round(0.1 * size)`` documents per topic from ranks 11-100 of the contributing runs
  (:func:`evalkit.estimation.two_strata_qrels`); the framework is fitted on the 10-deep first stratum and trained on
  every judged document (first stratum and sample).
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..collection import Collection
from ..estimation import (
    DEFAULT_THETA,
    GATED_ESTIMATORS,
    SystemMatrix,
    WeightedPrecision,
    ap_at_k,
    contributing_runs,
    estimate_scores,
    inf_rbp,
    pool_gamma,
    pool_qrels,
    reference_scores,
    rmse_accuracy,
    run_mask,
    score_range_error,
    system_matrix,
    two_strata_qrels,
)
from ..stats import dist, tau_distance

__all__ = [
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "TABLE2_ESTIMATORS",
    "Lu2017Data",
    "prepare",
    "figure3_gamma_by_depth",
    "figure3_gamma_per_topic",
    "figure3_rmse_vs_theta",
    "table2",
    "table2_layout",
    "table3",
    "figure4",
    "figure6",
    "rmse_ordering",
]

TABLE2_ESTIMATORS = ("LB", "RM", "Lin", "La", "Lb")

# ------------------------------------------------------------------------------------------ the paper's numbers

# Table 2, transcribed from the text: per collection and d', the columns LB, RM, Lin (theta 0, 0.018),
# La (theta 0, 0.018), Lb (theta 0, 0.018); each cell "RMSE (Acc%)". Reference depth d: 100, except TB04 (80)
# and TB06 (50) (Table 1).
_TABLE2_TEXT = """
TREC9 10  0.031 45 | 0.056 22 | 0.037 31 0.031 44 | 0.038 26 0.030 44 | 0.031 41 0.031 46
TREC9 20  0.012 59 | 0.025 32 | 0.013 51 0.012 60 | 0.013 42 0.012 58 | 0.010 62 0.012 61
TREC9 30  0.006 67 | 0.012 45 | 0.006 66 0.006 68 | 0.005 63 0.006 68 | 0.005 71 0.006 68
TREC10 10 0.038 39 | 0.064 16 | 0.034 25 0.033 31 | 0.036 13 0.031 27 | 0.027 34 0.028 38
TREC10 20 0.016 53 | 0.030 25 | 0.015 45 0.014 51 | 0.016 36 0.014 50 | 0.012 53 0.012 55
TREC10 30 0.007 64 | 0.015 37 | 0.007 61 0.007 63 | 0.007 55 0.007 62 | 0.006 66 0.006 66
Rob04 10  0.046 21 | 0.088 5  | 0.043 21 0.039 20 | 0.045 9  0.039 17 | 0.039 20 0.035 20
Rob04 20  0.020 34 | 0.040 9  | 0.015 33 0.016 34 | 0.016 26 0.015 32 | 0.013 38 0.016 35
Rob04 30  0.008 49 | 0.020 14 | 0.007 49 0.007 52 | 0.007 47 0.006 53 | 0.005 59 0.006 55
TB04 10   0.117 14 | 0.082 14 | 0.082 15 0.087 14 | 0.072 15 0.077 15 | 0.073 16 0.077 16
TB04 20   0.053 21 | 0.039 23 | 0.039 25 0.041 25 | 0.035 28 0.037 28 | 0.033 32 0.036 31
TB04 30   0.026 26 | 0.020 39 | 0.018 39 0.019 38 | 0.015 45 0.016 44 | 0.015 44 0.016 43
TB05 10   0.125 6  | 0.080 5  | 0.085 7  0.085 7  | 0.070 6  0.070 8  | 0.067 7  0.067 9
TB05 20   0.056 10 | 0.041 10 | 0.039 13 0.039 13 | 0.034 14 0.034 14 | 0.033 18 0.033 19
TB05 30   0.028 16 | 0.022 18 | 0.021 24 0.021 24 | 0.018 24 0.018 24 | 0.017 29 0.017 29
TB06 10   0.089 24 | 0.065 43 | 0.059 43 0.059 43 | 0.047 55 0.047 55 | 0.053 51 0.053 50
TB06 20   0.033 40 | 0.023 68 | 0.021 66 0.021 66 | 0.013 81 0.013 81 | 0.017 73 0.017 73
TB06 30   0.013 58 | 0.007 87 | 0.006 85 0.006 85 | 0.003 94 0.003 94 | 0.005 89 0.005 89
"""

_REFERENCE_DEPTH = {"TREC9": 100, "TREC10": 100, "Rob04": 100, "TB04": 80, "TB05": 100, "TB06": 50}


def _parse_table2(text: str) -> pd.DataFrame:
    rows = []
    for line in text.strip().splitlines():
        head, *cells = line.split("|")
        collection, depth, lb_rmse, lb_acc = head.split()
        groups = [("LB", (np.nan,), [lb_rmse, lb_acc])]
        fields = [c.split() for c in cells]
        groups.append(("RM", (np.nan,), fields[0]))
        for name, values in zip(("Lin", "La", "Lb"), fields[1:]):
            groups.append((name, (0.0, 0.018), values))
        for name, thetas, values in groups:
            for i, theta in enumerate(thetas):
                rows.append({
                    "collection": collection, "reference_depth": _REFERENCE_DEPTH[collection], "depth": int(depth),
                    "estimator": name, "theta": theta, "rmse": float(values[2 * i]), "acc": float(values[2 * i + 1]),
                })
    return pd.DataFrame(rows)


#: The paper's Table 2 (RBP0.95), long form: collection, reference_depth (d), depth (d'), estimator, theta (NaN
#: for LB and RM, which the paper gives once), rmse, acc (%).
PAPER_TABLE2 = _parse_table2(_TABLE2_TEXT)

#: The paper's Table 3 (leave-one-group-out, d' = 10, theta = 0, RBP0.95): RMSE and Acc% averaged over groups.
PAPER_TABLE3 = pd.read_csv(io.StringIO("""collection,estimator,rmse,acc
Rob04,LB,0.060,19
Rob04,RM,0.126,4
Rob04,Lin,0.068,11
Rob04,La,0.060,9
Rob04,Lb,0.050,19
TB04,LB,0.181,11
TB04,RM,0.202,11
TB04,Lin,0.131,9
TB04,La,0.117,11
TB04,Lb,0.119,11
TB05,LB,0.170,6
TB05,RM,0.141,5
TB05,Lin,0.125,4
TB05,La,0.110,4
TB05,Lb,0.110,5
TB06,LB,0.125,22
TB06,RM,0.185,32
TB06,Lin,0.112,35
TB06,La,0.090,48
TB06,Lb,0.086,46
"""))


# ------------------------------------------------------------------------------------------ shared set-up


@dataclass(frozen=True)
class Lu2017Data:
    """What every experiment shares: the collection, its contributing runs, the reference (RBP(p)@depth on the
    full qrels, score and residual, of the contributing runs) and the system matrix of the contributing runs."""

    collection: Collection
    pool_runs: np.ndarray
    depth: int
    p: float
    reference: WeightedPrecision
    matrix: SystemMatrix


def prepare(collection: Collection, depth: int = 100, p: float = 0.95, pool_runs=None) -> Lu2017Data:
    """Build the shared pieces once (about a second on TREC-8); every function below also accepts a Collection."""
    pool = run_mask(collection, pool_runs) if pool_runs is not None else contributing_runs(collection, depth)
    return Lu2017Data(
        collection=collection, pool_runs=pool, depth=int(depth), p=float(p),
        reference=reference_scores(collection, depth, pool, "rbp", p),
        matrix=system_matrix(collection, depth, pool),
    )


def _data(data, depth: int = 100, p: float = 0.95) -> Lu2017Data:
    return data if isinstance(data, Lu2017Data) else prepare(data, depth, p)


def _estimates(data: Lu2017Data, fit_depth: int, estimators, judgments=None):
    judgments = pool_qrels(data.collection, fit_depth, data.pool_runs) if judgments is None else judgments
    return estimate_scores(data.collection, judgments, fit_depth, pool_runs=data.pool_runs, depth=data.depth,
                           p=data.p, estimators=tuple(estimators), matrix=data.matrix)


def _errors(estimate: np.ndarray, reference: WeightedPrecision) -> tuple[float, float]:
    return rmse_accuracy(score_range_error(estimate, reference.score, reference.residual))


# ------------------------------------------------------------------------------------------ Figure 3


def figure3_gamma_by_depth(data, depths=tuple(range(10, 101, 10)), theta: float = DEFAULT_THETA) -> pd.DataFrame:
    """Fig. 3 (left): per pool depth d', the mean over topics of gamma (Eq. 10 / number of runs), its median, and
    how many topics exceed ``theta``. Hypothesis 1 of the paper: gamma falls as d' grows."""
    data = _data(data)
    rows = []
    for d in depths:
        gamma = pool_gamma(data.collection, pool_qrels(data.collection, d, data.pool_runs), d, data.pool_runs)
        rows.append({"depth": int(d), "mean_gamma": float(gamma.mean()), "median_gamma": float(np.median(gamma)),
                     "topics_above_theta": int((gamma > theta).sum()), "n_topics": len(gamma)})
    return pd.DataFrame(rows)


def figure3_gamma_per_topic(data, depth: int = 10) -> pd.DataFrame:
    """Fig. 3 (middle): gamma of every topic for the depth-``depth`` pool."""
    data = _data(data)
    c = data.collection
    gamma = pool_gamma(c, pool_qrels(c, depth, data.pool_runs), depth, data.pool_runs)
    return pd.DataFrame({"topic": c.topics, "depth": int(depth), "gamma": gamma})


def figure3_rmse_vs_theta(data, depth: int = 10, thetas=None, estimators=("LB", "Lin", "Wei")) -> pd.DataFrame:
    """Fig. 3 (right): RMSE and Acc% against the threshold theta at pool depth ``depth`` (the paper: TREC-5, LB,
    Lin, Wei, d' = 10; crossing below LB near theta = 0.018)."""
    data = _data(data)
    thetas = np.round(np.arange(0.0, 0.02401, 0.001), 6) if thetas is None else np.asarray(thetas, float)
    est = _estimates(data, depth, set(estimators) | {"LB"})
    rows = []
    for theta in thetas:
        for name in estimators:
            rmse, acc = _errors(est.score(name, float(theta)), data.reference)
            rows.append({"theta": float(theta), "estimator": name, "rmse": rmse, "acc": acc,
                         "topics_adjusted": int(est.adjusted(float(theta)).sum())})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ Table 2


def table2(data, depths=(10, 20, 30), thetas=(0.0, DEFAULT_THETA), estimators=TABLE2_ESTIMATORS) -> pd.DataFrame:
    """Table 2 on one collection: long frame ``collection, reference_depth, depth, estimator, theta, rmse, acc``
    (theta NaN for LB and RM, which the rule does not gate) plus ``seconds`` (fit time of that depth)."""
    data = _data(data)
    rows = []
    for d in depths:
        start = time.perf_counter()
        est = _estimates(data, d, estimators)
        seconds = time.perf_counter() - start
        for name in estimators:
            for theta in (thetas if name in GATED_ESTIMATORS else (np.nan,)):
                rmse, acc = _errors(est.score(name, 0.0 if np.isnan(theta) else float(theta)), data.reference)
                rows.append({"collection": data.collection.name, "reference_depth": data.depth, "depth": int(d),
                             "estimator": name, "theta": theta, "rmse": rmse, "acc": acc, "seconds": seconds})
    return pd.DataFrame(rows)


def table2_layout(frame: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """A long Table-2 frame as the paper prints it: one row per (collection, d'), one column per estimator and
    theta, cells ``"RMSE (Acc%)"``."""
    f = frame.copy()
    f["column"] = [e if np.isnan(t) else f"{e} θ={t:g}" for e, t in zip(f["estimator"], f["theta"])]
    f["cell"] = [f"{r:.{digits}f} ({a:.0f})" for r, a in zip(f["rmse"], f["acc"])]
    order = list(dict.fromkeys(f["column"]))
    wide = f.pivot_table(index=["collection", "depth"], columns="column", values="cell", aggfunc="first", sort=False)
    return wide[order]


def rmse_ordering(frame: pd.DataFrame, theta: float | None = None) -> pd.DataFrame:
    """Per (collection, depth): the estimators ordered by RMSE, best first (``"Lb < La < LB < ..."``).

    LB and RM (ungated) join each theta's ordering; ``theta`` picks one threshold (default: one row per theta)."""
    rows = []
    f = frame.copy()
    thetas = sorted(t for t in f["theta"].dropna().unique()) if theta is None else [theta]
    for (collection, depth), group in f.groupby(["collection", "depth"], sort=False):
        for t in thetas or [np.nan]:
            sel = group[group["theta"].isna() | np.isclose(group["theta"].fillna(-1), t)]
            sel = sel.sort_values("rmse", kind="stable")
            rows.append({"collection": collection, "depth": depth, "theta": t,
                         "ordering": " < ".join(f"{e}" for e in sel["estimator"]),
                         "rmse": " < ".join(f"{r:.3f}" for r in sel["rmse"])})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ Table 3


def table3(data, depth: int = 10, theta: float = 0.0, estimators=TABLE2_ESTIMATORS, groups=None,
           per_group: bool = False) -> pd.DataFrame:
    """Table 3: leave-one-group-out at pool depth ``depth``.

    For every group with contributing runs: the pool (and the system matrix, gain models, framework weights) is
    built from the *other* groups' contributing runs only, and the group's contributing runs are scored against
    their reference (full qrels, depth d). ``groups`` (run name -> group) defaults to ``runs_info['group']``.
    Returns the mean over groups of RMSE and Acc% per estimator (``per_group=True``: one row per group and
    estimator, with ``n_runs``).
    """
    data = _data(data)
    c = data.collection
    group_of = (c.runs_info["group"] if groups is None else pd.Series(groups)).reindex(c.run_names).to_numpy()
    rows = []
    for group in pd.unique(group_of[data.pool_runs]):
        left_out = (group_of == group) & data.pool_runs
        pool = data.pool_runs & ~left_out
        judgments = pool_qrels(c, depth, pool)
        est = estimate_scores(c, judgments, depth, pool_runs=pool, score_runs=left_out, depth=data.depth,
                              p=data.p, estimators=tuple(estimators))
        # the reference rows of the left-out runs, in the order of the collection
        ref_rows = np.flatnonzero(left_out[data.pool_runs])
        ref = WeightedPrecision(data.reference.score[ref_rows], data.reference.unjudged_residual[ref_rows],
                                data.reference.tail_residual[ref_rows])
        for name in estimators:
            rmse, acc = _errors(est.score(name, theta), ref)
            rows.append({"group": group, "n_runs": int(left_out.sum()), "estimator": name, "rmse": rmse, "acc": acc})
    per = pd.DataFrame(rows)
    if per_group:
        return per
    summary = per.groupby("estimator", sort=False).agg(rmse=("rmse", "mean"), acc=("acc", "mean"),
                                                       n_groups=("group", "nunique")).reset_index()
    summary.insert(0, "collection", c.name)
    summary.insert(1, "depth", int(depth))
    summary.insert(2, "theta", float(theta))
    return summary


# ------------------------------------------------------------------------------------------ Figures 4 and 6


def _ordering_distances(reference: np.ndarray, estimate: np.ndarray) -> dict:
    return {"tau_distance": tau_distance(reference.mean(axis=1), estimate.mean(axis=1)),
            "dist": dist(reference, estimate)}


def figure4(data, depths=(10, 20, 30, 40, 50, 60), theta: float = DEFAULT_THETA,
            estimators=TABLE2_ESTIMATORS) -> pd.DataFrame:
    """Fig. 4: normalized Kendall tau distance and dist (Eq. 11, omega = 1) between the system ordering of each
    estimator at pool depth d' and the reference ordering (LB at d, i.e. RBP@d on the full qrels)."""
    data = _data(data)
    rows = []
    for d in depths:
        est = _estimates(data, d, estimators)
        for name in estimators:
            rows.append({"depth": int(d), "estimator": name, "theta": theta,
                         **_ordering_distances(data.reference.score, est.score(name, theta))})
    return pd.DataFrame(rows)


def figure6(data, n_repetitions: int = 10, seed: int = 2017, depth1: int = 10, rate: float = 0.1,
            theta: float = DEFAULT_THETA, methods=("InfAP", "InfRBP", "La", "Lb")) -> pd.DataFrame:
    """Fig. 6: system-ordering distances on two-strata judgments (all of the top ``depth1``, plus a ``rate`` sample
    of ranks depth1+1..d), ``n_repetitions`` samples seeded from ``seed``.

    InfAP (trec_eval's, :func:`evalkit.inferred.trec_infap`) is compared with Sakai's AP@d on the full qrels;
    InfRBP (Eq. 5), La and Lb with RBP@d on the full qrels. Rows: repetition, method, tau_distance, dist,
    judgments (mean judged documents per topic).
    """
    data = _data(data)
    c = data.collection
    rows = []
    ap_reference = None
    if "InfAP" in methods:
        ap_reference = ap_at_k(c.grades(depth=data.depth)[data.pool_runs], data.depth, c.qrels.counts())
    for repetition, child in enumerate(np.random.SeedSequence(seed).spawn(n_repetitions)):
        sample = two_strata_qrels(c, depth1, data.depth, rate, np.random.default_rng(child), data.pool_runs)
        judged = float((sample.grade >= 0).sum()) / c.n_topics
        scores = {}
        if "InfAP" in methods:
            scores["InfAP"] = (_trec_infap(c, sample)[data.pool_runs], ap_reference)
        if "InfRBP" in methods:
            scores["InfRBP"] = (inf_rbp(c, sample, data.depth, data.p, data.pool_runs), data.reference.score)
        framework = [m for m in ("La", "Lb") if m in methods]
        if framework:
            est = _estimates(data, depth1, framework, judgments=sample)
            for m in framework:
                scores[m] = (est.score(m, theta), data.reference.score)
        for method in methods:
            estimate, reference = scores[method]
            rows.append({"repetition": repetition, "method": method, "judgments": judged,
                         **_ordering_distances(reference, estimate)})
    return pd.DataFrame(rows)


def _trec_infap(collection: Collection, sample) -> np.ndarray:
    """trec_eval's infAP from :mod:`evalkit.inferred` (unjudged documents outside the sample are nonrelevant,
    unsampled ones are inferred)."""
    from ..inferred import trec_infap

    return trec_infap(collection, sample)
