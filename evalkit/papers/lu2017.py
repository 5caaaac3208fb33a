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
* for the notebook: :func:`table1` (judgments per topic and % relevant beside :data:`PAPER_TABLE1`),
  :func:`rmse_ranks` and :func:`compare_orderings` (the estimators' RMSE orderings, kit beside paper),
  :func:`claims` (paper-versus-kit rows), :func:`explorer` / :func:`draw_explorer` (the widget: a run's gain
  curve and the error table for d', theta, p and the estimator)

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
  is trec_eval's infAP (:func:`evalkit.measures.inferred.trec_infap`) on the whole ranking, as the paper ran trec_eval.
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

from evalkit.data.collection import Collection
from evalkit.estimation import (
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
from evalkit.papers.needs import (
    REFERENCE_DEPTH,
    Plan,
    judged_depth_of,
    require,
    require_judged_depth,
    require_judged_groups,
    require_judged_runs,
    require_topics,
    scale_depth,
    scale_depths,
)
from evalkit.stats import dist, tau_distance

__all__ = [
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "TABLE2_ESTIMATORS",
    "Lu2017Data",
    "DEFAULT_DEPTHS",
    "DEFAULT_GAMMA_DEPTHS",
    "DEFAULT_FIGURE4_DEPTHS",
    "plan",
    "paper_table2",
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
    "PAPER_TABLE1",
    "table1",
    "rmse_ranks",
    "compare_orderings",
    "claims",
    "explorer_fit",
    "run_gain_profile",
    "default_selection",
    "draw_explorer",
    "explorer",
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


# ------------------------------------------------------------------------------------------ needs

#: the paper's pool depths d' (Table 2), Figure 3's depths, Figure 4's depths; all for the reference depth d = 100
DEFAULT_DEPTHS = (10, 20, 30)
DEFAULT_GAMMA_DEPTHS = tuple(range(10, 101, 10))
DEFAULT_FIGURE4_DEPTHS = (10, 20, 30, 40, 50, 60)
DEFAULT_TABLE3_DEPTH = 10
DEFAULT_TWO_STRATA_DEPTH = 10


def plan(collection: Collection, reference_depth: int = REFERENCE_DEPTH, depths=DEFAULT_DEPTHS,
         gamma_depths=DEFAULT_GAMMA_DEPTHS, figure4_depths=DEFAULT_FIGURE4_DEPTHS,
         table3_depth: int = DEFAULT_TABLE3_DEPTH, two_strata_depth: int = DEFAULT_TWO_STRATA_DEPTH,
         repetitions: int = 10, fast: bool = False, figure4_points: int | None = None,
         table3_groups: int | None = None) -> Plan:
    """What the notebook needs from ``collection``, and the depths it will use there.

    Needs: at least 2 contributing (judged) runs (the gain models and the framework learn from them, and Figures 4
    and 6 order them); judged runs from at least 2 groups (Table 3 leaves one group out); at least 2 topics
    (dist's paired t-tests); the reference depth d within the judged depth (the reference scores are RBP@d on
    the complete judgments). The paper's depths are written for d = 100: when d is the default and the collection
    is judged less deep, d becomes the judged depth; default pool depths d' are then scaled by d / 100 (the
    paper's ratios d'/d kept; duplicates dropped, every d' < d) and the note says so. Depths the user set are
    checked (each d' < d, Figure 3's <= d). ``fast``: the smaller grids of quick runs (the first two d', three of
    Figure 3's depths, two of Figure 4's, at most 3 repetitions, Table 3 over 6 groups), taken after scaling.
    ``figure4_points``: keep that many of Figure 4's depths, evenly spaced, first and last kept (None: all);
    ``table3_groups``: leave out only that many groups in Table 3 (None: all); the "class" preset sets both
    (:data:`PRESETS`).
    Parameters:
    ``reference_depth``, ``depths``, ``table1_depths``, ``gamma_depths``, ``figure4_depths``, ``table3_depth``,
    ``two_strata_depth``, ``first_depth`` (the d' of Figure 3's middle and right panels and the explorer),
    ``paper_depths`` (each d' -> the paper's d' it stands for), ``repetitions``, ``table3_groups`` (None: all).
    """
    require_judged_runs(collection, 2, "for the estimators to learn from")
    require_judged_groups(collection, 2, "(Table 3 leaves one group out)")
    require_topics(collection, 2, "(dist's paired t-tests pair topics)")
    judged = judged_depth_of(collection)
    require(judged is not None and judged >= 2, "judgments at least 2 ranks deep (a reference depth d and a "
            "shallower pool d')", f"judged depth {judged or 0}",
            "Give \"judged_depth\" in collection.json if the pools were deeper.")
    top = min(judged, collection.depth)
    notes = []
    if int(reference_depth) == REFERENCE_DEPTH and top < REFERENCE_DEPTH:
        d = top
        notes.append(f"reference depth d = {d} (the judged depth; the paper's 100)")
    else:
        d = int(reference_depth)
        require_judged_depth(collection, d, "reference_depth")

    def depths_for(values, default, parameter, inclusive=False):
        values = [int(v) for v in (values if np.ndim(values) else [values])]
        if tuple(values) == tuple(default) and d < REFERENCE_DEPTH:
            return scale_depths(values, d, below=d + 1 if inclusive else d), True
        bad = [v for v in values if v > d or (v == d and not inclusive) or v < 1]
        require(not bad, f"pool depths d' {'<=' if inclusive else '<'} the reference depth d = {d} "
                f"({parameter} = {values})", f"d = {d} (judged depth {judged})",
                f"Drop {bad} from {parameter}" + (f", or raise reference_depth (at most {top})." if d < top else "."))
        return values, False

    depths_used, scaled = depths_for(depths, DEFAULT_DEPTHS, "depths")
    table1_used, _ = depths_for(DEFAULT_DEPTHS, DEFAULT_DEPTHS, "depths")
    gamma_used, _ = depths_for(gamma_depths, DEFAULT_GAMMA_DEPTHS, "gamma_depths", inclusive=True)
    figure4_used, _ = depths_for(figure4_depths, DEFAULT_FIGURE4_DEPTHS, "figure4_depths")
    table3_used, _ = depths_for([table3_depth], [DEFAULT_TABLE3_DEPTH], "table3_depth")
    two_strata_used, _ = depths_for([two_strata_depth], [DEFAULT_TWO_STRATA_DEPTH], "two_strata_depth")
    require(len(depths_used) > 0, f"a pool depth d' below d = {d}", "none", "Raise reference_depth.")
    paper_depths: dict = {}
    if scaled:
        for paper_d in DEFAULT_DEPTHS:  # each scaled d' stands for the first paper d' that maps to it
            if scale_depth(paper_d, d) < d:
                paper_depths.setdefault(scale_depth(paper_d, d), paper_d)
        notes.append(f"pool depths d' = {depths_used} (the paper's {list(DEFAULT_DEPTHS)} of 100, scaled), "
                     f"Figure 3 {gamma_used}, Figure 4 {figure4_used}, Table 3 {table3_used[0]}, two strata "
                     f"{two_strata_used[0]} + a sample to {d}")
    else:
        paper_depths = {v: v for v in depths_used if v in DEFAULT_DEPTHS}
    if figure4_points is not None and 0 < int(figure4_points) < len(figure4_used):
        keep = np.unique(np.round(np.linspace(0, len(figure4_used) - 1, int(figure4_points))).astype(int))
        figure4_used = [figure4_used[i] for i in keep]
    if fast:
        table3_groups = 6
        depths_used = depths_used[:2]
        gamma_used = [gamma_used[i] for i in sorted({0, min(2, len(gamma_used) - 1), len(gamma_used) - 1})]
        figure4_used = [figure4_used[i] for i in sorted({0, min(2, len(figure4_used) - 1)})]
        repetitions = min(int(repetitions), 3)
    return Plan("04_lu2017", collection.name, {
        "reference_depth": d, "depths": depths_used, "table1_depths": table1_used, "gamma_depths": gamma_used,
        "figure4_depths": figure4_used, "table3_depth": table3_used[0], "two_strata_depth": two_strata_used[0],
        "first_depth": depths_used[0], "paper_depths": paper_depths, "repetitions": int(repetitions),
        "table3_groups": table3_groups}, notes)


def paper_table2(depths, paper_depths: dict | None = None) -> pd.DataFrame:
    """The rows of :data:`PAPER_TABLE2` for the kit's pool depths: each kit d' takes the paper's rows of the d' it
    stands for (``paper_depths``, from :func:`plan`; default: the same d'), relabelled with the kit's d'."""
    paper_depths = {int(d): int(d) for d in depths} if paper_depths is None else paper_depths
    parts = [PAPER_TABLE2[PAPER_TABLE2["depth"] == paper_depths[d]].assign(depth=int(d))
             for d in depths if int(d) in paper_depths]
    return pd.concat(parts, ignore_index=True) if parts else PAPER_TABLE2.iloc[:0].copy()


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
           per_group: bool = False, max_groups: int | None = None) -> pd.DataFrame:
    """Table 3: leave-one-group-out at pool depth ``depth``.

    For every group with contributing runs: the pool (and the system matrix, gain models, framework weights) is
    built from the *other* groups' contributing runs only, and the group's contributing runs are scored against
    their reference (full qrels, depth d). ``groups`` (run name -> group) defaults to ``runs_info['group']``.
    Returns the mean over groups of RMSE and Acc% per estimator (``per_group=True``: one row per group and
    estimator, with ``n_runs``). ``max_groups``: leave out only the first that many groups (in run order; quick
    runs), every group when None.
    """
    data = _data(data)
    c = data.collection
    group_of = (c.runs_info["group"] if groups is None else pd.Series(groups)).reindex(c.run_names).to_numpy()
    rows = []
    for group in pd.unique(group_of[data.pool_runs])[:max_groups]:
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

    InfAP (trec_eval's, :func:`evalkit.measures.inferred.trec_infap`) is compared with Sakai's AP@d on the full qrels;
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
    """trec_eval's infAP from :mod:`evalkit.measures.inferred` (unjudged documents outside the sample are nonrelevant,
    unsampled ones are inferred)."""
    from evalkit.measures.inferred import trec_infap

    return trec_infap(collection, sample)


# ------------------------------------------------------------------------------------------ the notebook's helpers
#
# Added for notebooks/04_lu2017_shallow_pools.ipynb (which may hold no ``def``): Table 1's judgment counts, the
# estimators' RMSE ranks beside the paper's, the paper-versus-kit claims and the widget.

# Table 1 (judgments per topic and % relevant) transcribed: pool is d'=10, 20, 30, d'=d (the full pool) or the
# two-strata sample (depth 10 + 10% of ranks 11-100, mean of ten draws). CW10 (d = 20): the d'=20 column is d.
PAPER_TABLE1 = pd.read_csv(io.StringIO("""collection,reference_depth,n_runs,pool,judgments,relevant_pct
TREC5,100,76,d'=10,272,13
TREC5,100,76,d'=20,512,10
TREC5,100,76,d'=30,747,8
TREC5,100,76,d'=d,2298,4
TREC9,100,59,d'=10,174,11
TREC9,100,59,d'=20,322,8
TREC9,100,59,d'=30,462,7
TREC9,100,59,d'=d,1382,4
TREC9,100,59,two-strata,294,7
TREC10,100,54,d'=10,182,13
TREC10,100,54,d'=20,335,10
TREC10,100,54,d'=30,480,9
TREC10,100,54,d'=d,1402,5
TREC10,100,54,two-strata,303,9
Rob04,100,42,d'=10,75,25
Rob04,100,42,d'=20,139,18
Rob04,100,42,d'=30,206,15
Rob04,100,42,d'=d,710,7
Rob04,100,42,two-strata,134,15
TB04,80,33,d'=10,164,31
TB04,80,33,d'=20,313,27
TB04,80,33,d'=30,453,25
TB04,80,33,d'=d,1121,19
TB04,80,33,two-strata,270,25
TB05,100,34,d'=10,111,41
TB05,100,34,d'=20,202,36
TB05,100,34,d'=30,291,33
TB05,100,34,d'=d,878,25
TB05,100,34,two-strata,187,33
TB06,50,39,d'=10,141,31
TB06,50,39,d'=20,270,26
TB06,50,39,d'=30,394,23
TB06,50,39,d'=d,633,19
CW10,20,21,d'=10,98,30
CW10,20,21,d'=d,187,28
"""))


def table1(data, depths=(10, 20, 30), n_repetitions: int = 0, seed: int = 2017, depth1: int = 10,
           rate: float = 0.1) -> pd.DataFrame:
    """Table 1 for one collection: judgments per topic (mean over topics) and the percentage of them relevant,
    for the depth-d' pools of the contributing runs, the full depth-d pool (``d'=d``) and, with
    ``n_repetitions`` > 0, the two-strata samples of :func:`figure6` (same seeds; averaged)."""
    data = _data(data)
    c = data.collection
    pools = [(f"d'={d}", pool_qrels(c, d, data.pool_runs)) for d in depths]
    pools.append(("d'=d", pool_qrels(c, data.depth, data.pool_runs)))
    for child in np.random.SeedSequence(seed).spawn(n_repetitions):
        pools.append(("two-strata", two_strata_qrels(c, depth1, data.depth, rate, np.random.default_rng(child),
                                                     data.pool_runs)))
    rows = []
    for name, judged in pools:
        known = judged.grade >= 0
        rows.append({"pool": name, "judgments": known.sum() / c.n_topics,
                     "relevant_pct": 100.0 * (judged.grade[known] > 0).sum() / max(int(known.sum()), 1)})
    out = pd.DataFrame(rows).groupby("pool", sort=False).mean().reset_index()
    out.insert(0, "collection", c.name)
    out.insert(1, "reference_depth", data.depth)
    out.insert(2, "n_runs", int(data.pool_runs.sum()))
    return out


def rmse_ranks(frame: pd.DataFrame) -> pd.DataFrame:
    """A long Table-2 frame (the kit's or :data:`PAPER_TABLE2`) with every estimator's RMSE rank (1 = lowest,
    ties share the lower rank) per (collection, depth, theta); LB and RM (ungated) join every theta."""
    columns = ["collection", "depth", "theta", "estimator", "rmse", "acc", "rank"]
    if not len(frame):
        return pd.DataFrame(columns=columns)
    rows = []
    thetas = sorted(frame["theta"].dropna().unique())
    for (collection, depth), group in frame.groupby(["collection", "depth"], sort=False):
        for theta in thetas:
            sel = group[group["theta"].isna() | np.isclose(group["theta"].fillna(-1), theta)]
            sel = sel.assign(theta=theta, rank=sel["rmse"].rank(method="min").astype(int))
            rows.append(sel[["collection", "depth", "theta", "estimator", "rmse", "acc", "rank"]])
    return pd.concat(rows, ignore_index=True)


def compare_orderings(kit: pd.DataFrame, paper: pd.DataFrame = PAPER_TABLE2,
                      paper_depths: dict | None = None) -> pd.DataFrame:
    """The estimators' RMSE orderings of the kit's Table 2 beside each of the paper's collections, per (depth,
    theta) the kit ran: ``depth, theta, collection, ordering, best, worst, tau`` (Kendall's tau-b between that
    collection's RMSE ranks and the kit's over the five estimators; 1 for the kit's own row). ``paper_depths``
    (kit d' -> the paper's d', from :func:`plan`) pairs scaled depths with the paper's rows."""
    from scipy.stats import kendalltau

    depths = [int(d) for d in kit["depth"].unique()]
    if paper_depths is not None or paper is PAPER_TABLE2:
        rows = paper_table2(depths, paper_depths)
    else:
        rows = paper[paper["depth"].isin(depths)]
    both = pd.concat([rmse_ranks(kit)] + ([rmse_ranks(rows)] if len(rows) else []), ignore_index=True)
    both["theta"] = both["theta"].round(6)
    kit_name = kit["collection"].iloc[0]
    rows = []
    for (depth, theta, collection), g in both.groupby(["depth", "theta", "collection"], sort=False):
        ranks = g.set_index("estimator")["rank"]
        ordered = g.sort_values(["rmse"], kind="stable")
        mine = both[(both["depth"] == depth) & (both["theta"] == theta) & (both["collection"] == kit_name)]
        mine = mine.set_index("estimator")["rank"].reindex(ranks.index)
        tau = kendalltau(ranks.to_numpy(), mine.to_numpy()).statistic if len(mine.dropna()) == len(ranks) else np.nan
        rows.append({"depth": int(depth), "theta": float(theta), "collection": collection,
                     "ordering": " < ".join(ordered["estimator"]),
                     "best": ", ".join(ranks.index[ranks == ranks.min()]),
                     "worst": ", ".join(ranks.index[ranks == ranks.max()]), "tau": float(tau)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ paper vs kit


def _pick(frame: pd.DataFrame, depth: int, estimator: str, theta=None, column: str = "rmse") -> float:
    rows = frame[(frame["depth"] == depth) & (frame["estimator"] == estimator)]
    if estimator in ("LB", "RM") or theta is None:
        rows = rows[rows["theta"].isna()] if rows["theta"].isna().any() else rows
    else:
        rows = rows[np.isclose(rows["theta"].fillna(-1), theta)]
    return float(rows[column].iloc[0])


def _verdict(hits: int, total: int) -> str:
    return "yes" if total and hits == total else "partly" if hits else "no"


def claims(dataset: str, *, gamma_by_depth=None, gamma_per_topic=None, rmse_vs_theta=None, table2_frame=None,
           table3_frame=None, figure4_frame=None, figure6_frame=None, theta: float = DEFAULT_THETA,
           theta_depth: int = 10) -> list:
    """The paper's statements beside the kit's figures (:class:`evalkit.claims.Claim` rows for
    :func:`evalkit.claims.grading_claims`), for whichever results are passed. The paper's collections are not the
    kit's: the rows compare directions and orderings, not values."""
    from evalkit.claims import Claim

    paper = "Lu, Moffat & Culpepper 2017"
    other = "the paper's collections (TREC9/10, Rob04, TB04-06) are not this one"
    out = []
    if gamma_by_depth is not None and len(gamma_by_depth) > 1:
        g = gamma_by_depth.sort_values("depth")
        steps = np.diff(g["mean_gamma"].to_numpy())
        falls = int((steps < 0).sum())
        out.append(Claim(
            paper, "Fig. 3 left, Hypothesis 1: mean gamma falls as the pool deepens", "falls (TREC5, Rob04, TREC10, TB06)",
            f"{g['mean_gamma'].iloc[0] * 1e3:.1f}e-3 at d'={g['depth'].iloc[0]} -> {g['mean_gamma'].iloc[-1] * 1e3:.1f}e-3 "
            f"at d'={g['depth'].iloc[-1]}; falls in {falls} of {len(steps)} steps", dataset,
            "yes" if falls == len(steps) else "partly" if g["mean_gamma"].iloc[-1] < g["mean_gamma"].iloc[0] else "no"))
    if gamma_per_topic is not None:
        gm = gamma_per_topic["gamma"]
        above = int((gm > theta).sum())
        out.append(Claim(
            paper, "Fig. 3 middle: at d'=10 gamma varies by topic; not every topic needs adjusting",
            "spread 0-32e-3; some topics low, some high", f"d'={int(gamma_per_topic['depth'].iloc[0])}: "
            f"min {gm.min() * 1e3:.1f}e-3, median {gm.median() * 1e3:.1f}e-3, "
            f"max {gm.max() * 1e3:.1f}e-3; {above} of {len(gm)} topics above theta={theta:g}", dataset,
            "yes" if 0 < above < len(gm) else "no", "theta = 0.018 was set on TREC5/7/8 by the authors"))
    if rmse_vs_theta is not None:
        f = rmse_vs_theta.pivot_table(index="theta", columns="estimator", values="rmse")
        first, at = f.iloc[0], f.iloc[(np.abs(f.index.to_numpy() - theta)).argmin()]
        models = [m for m in ("Lin", "Wei") if m in f.columns]
        cross = {m: f.index[(f[m] < f["LB"]).to_numpy()] for m in models}
        text = "; ".join(f"{m}: RMSE {first[m]:.4f} at theta=0, {at[m]:.4f} at {theta:g} (LB {at['LB']:.4f}), "
                         f"first below LB at theta={cross[m].min():g}" if len(cross[m]) else
                         f"{m}: never below LB (theta=0: {first[m]:.4f} vs {first['LB']:.4f})" for m in models)
        # a cross-over "near" theta: worse than LB at theta = 0, first below it within 0.003 of theta
        hits = sum(first[m] > first["LB"] and len(cross[m]) > 0 and abs(cross[m].min() - theta) <= 0.003
                   for m in models)
        out.append(Claim(
            paper, "Fig. 3 right: Lin and Wei are worse than LB at theta=0 and cross below it near theta=0.018 "
            "(TREC5; 'similar cross-overs for TREC7 and TREC8')", "cross-over near 0.018", text, dataset,
            _verdict(hits, len(models)), f"d'={theta_depth}"))
    if table2_frame is not None:
        t2 = table2_frame
        depths = sorted(t2["depth"].unique())
        beats = [d for d in depths if all(_pick(t2, d, "Lb", 0.0) < _pick(t2, d, b, 0.0) for b in ("LB", "RM", "Lin"))]
        beats_acc = [d for d in depths
                     if all(_pick(t2, d, "Lb", 0.0, "acc") > _pick(t2, d, b, 0.0, "acc") for b in ("LB", "RM", "Lin"))]
        out.append(Claim(
            paper, "Table 2, theta=0: Lb outperforms the baselines LB, RM and Lin", "lowest RMSE in 17 of 18 rows "
            "(tied with LB on TREC9 d'=10)",
            "; ".join(f"d'={d}: Lb {_pick(t2, d, 'Lb', 0.0):.4f} ({_pick(t2, d, 'Lb', 0.0, 'acc'):.0f}%), "
                      f"LB {_pick(t2, d, 'LB'):.4f} ({_pick(t2, d, 'LB', None, 'acc'):.0f}%), "
                      f"Lin {_pick(t2, d, 'Lin', 0.0):.4f}, RM {_pick(t2, d, 'RM'):.4f}" for d in depths), dataset,
            _verdict(len(beats), len(depths)),
            "RMSE (Acc%); Lb also has the highest Acc% " + (f"at d'={', '.join(map(str, beats_acc))}" if beats_acc
                                                            else "at no depth") + " (the paper "
            f"says 'RMSE and Acc%', but its own Acc% favours LB at d'=10 on TREC9/10 and Rob04); {other}"))
        out.append(Claim(
            paper, "Table 2, theta=0: La has a higher RMSE than Lb", "higher (TREC9/10, Rob04; not TB04 d'=10, TB06)",
            "; ".join(f"d'={d}: La {_pick(t2, d, 'La', 0.0):.4f}, Lb {_pick(t2, d, 'Lb', 0.0):.4f}" for d in depths),
            dataset, _verdict(sum(_pick(t2, d, "La", 0.0) > _pick(t2, d, "Lb", 0.0) for d in depths), len(depths))))
        out.append(Claim(
            paper, "Table 2, theta=0: on the earlier collections (TREC9/10) La is slightly worse than LB and Lin",
            "La > LB, La > Lin", "; ".join(f"d'={d}: La {_pick(t2, d, 'La', 0.0):.3f}, LB {_pick(t2, d, 'LB'):.3f}, "
                                        f"Lin {_pick(t2, d, 'Lin', 0.0):.3f}" for d in depths), dataset,
            _verdict(sum(_pick(t2, d, "La", 0.0) > _pick(t2, d, "LB") for d in depths), len(depths)),
            "counted against LB; TREC-8 is, like TREC9/10, an early collection"))
        worst = [d for d in depths if _pick(t2, d, "RM") >= t2[t2["depth"] == d]["rmse"].max()]
        out.append(Claim(
            paper, "Table 2: RM performs poorly on the earlier collections (TREC9/10, Rob04)", "worst RMSE there",
            f"RM worst at {len(worst)} of {len(depths)} depths (RMSE " +
            ", ".join(f"{_pick(t2, d, 'RM'):.3f}" for d in depths) + ")", dataset, _verdict(len(worst), len(depths)),
            "on TB04-06 the paper finds LB worst instead"))
        if np.isclose(t2["theta"].dropna(), theta).any():
            pairs = [(d, m) for d in depths for m in ("La", "Lin")]
            better = [(d, m) for d, m in pairs if _pick(t2, d, m, theta) < _pick(t2, d, m, 0.0)]
            same = all(np.isclose(_pick(t2, d, m, theta), _pick(t2, d, m, 0.0), rtol=0, atol=1e-12) for d, m in pairs)
            out.append(Claim(
                paper, f"Table 2: theta={theta:g} improves La and Lin (TREC9/10, Rob04)", "lower RMSE",
                "; ".join(f"d'={d} {m}: {_pick(t2, d, m, 0.0):.4f} -> {_pick(t2, d, m, theta):.4f}" for d, m in pairs),
                dataset, "" if same else _verdict(len(better), len(pairs)),
                f"no topic has 0 < gamma <= {theta:g} here: the threshold changes nothing" if same else ""))
            ranks = rmse_ranks(t2)
            ranks = ranks[np.isclose(ranks["theta"], theta)].sort_values(["depth", "rmse"], kind="stable")
            lead = [d for d in depths if min(_pick(t2, d, "La", theta), _pick(t2, d, "Lb", theta))
                    < min(_pick(t2, d, b, theta) for b in ("LB", "RM", "Lin"))]
            out.append(Claim(
                paper, f"Table 2, theta={theta:g}: the framework (La or Lb) has the lowest RMSE",
                "La or Lb lowest (or tied) in all 18 rows",
                "; ".join(f"d'={d}: " + " < ".join(g["estimator"]) for d, g in ranks.groupby("depth")), dataset,
                _verdict(len(lead), len(depths)), other))
    if table3_frame is not None:
        t3 = table3_frame.set_index("estimator")
        order = " < ".join(t3["rmse"].sort_values(kind="stable").index)
        best = t3["rmse"].idxmin()
        out.append(Claim(
            paper, "Table 3, leave one group out (d'=10, theta=0): the framework corrects system bias too; "
            "Rob04: Lb < LB = La < Lin < RM", "Lb .050 < LB .060 = La .060 < Lin .068 < RM .126",
            f"d'={int(t3['depth'].iloc[0]) if 'depth' in t3 else '?'}: "
            f"{order} ({', '.join(f'{e} {r:.3f}' for e, r in t3['rmse'].sort_values().items())}; "
            f"{int(t3['n_groups'].iloc[0])} groups)", dataset,
            "yes" if best == "Lb" else "partly" if t3.loc["Lb", "rmse"] < min(t3.loc["Lin", "rmse"], t3.loc["RM", "rmse"])
            else "no", other))
    if figure4_frame is not None:
        f4 = figure4_frame
        depths = sorted(f4["depth"].unique())
        for measure, label in (("dist", "dist"), ("tau_distance", "tau distance")):
            at_depth = [f4[f4["depth"] == d].set_index("estimator")[measure] for d in depths]
            top3 = [d for d, v in zip(depths, at_depth)
                    if v[["Lin", "La", "Lb"]].max() <= v[["LB", "RM"]].min()]
            d0 = f4[f4["depth"] == depths[0]].set_index("estimator")[measure].sort_values()
            out.append(Claim(
                paper, f"Fig. 4: Lin, La and Lb give the orderings closest to the reference ({label})",
                "consistently the highest agreement",
                f"the three lowest at {len(top3)} of {len(depths)} depths; d'={depths[0]}: " +
                ", ".join(f"{e} {v:.3g}" for e, v in d0.items()), dataset, _verdict(len(top3), len(depths)),
                "a depth counts when none of Lin, La, Lb is further than LB or RM (ties count)"))
    if figure6_frame is not None:
        f6 = figure6_frame.groupby("method")[["tau_distance", "dist"]].agg(["mean", "std"])
        stable = [m for m in ("La", "Lb", "InfRBP") if m in f6.index and f6.loc[m, ("tau_distance", "mean")] < 0.05]
        out.append(Claim(
            paper, "Fig. 6 (two strata): La, Lb and InfRBP give tau distances below 0.05", "< 0.05",
            ", ".join(f"{m} {f6.loc[m, ('tau_distance', 'mean')]:.3f}" for m in f6.index), dataset,
            _verdict(len(stable), 3)))
        if {"La", "Lb", "InfRBP"} <= set(f6.index):
            dm = f6[("dist", "mean")]
            out.append(Claim(
                paper, "Fig. 6: by dist La and Lb beat InfRBP (La: all but TREC9; Lb: all but TB05)",
                "La, Lb < InfRBP", ", ".join(f"{m} {v:.1f}" for m, v in dm.sort_values().items()) + " (mean dist)",
                dataset, _verdict(int(dm["La"] < dm["InfRBP"]) + int(dm["Lb"] < dm["InfRBP"]), 2)))
        if "InfAP" in f6.index:
            sd = f6[("dist", "std")]
            out.append(Claim(
                paper, "Fig. 6: InfAP gives the most variable orderings", "most variable",
                ", ".join(f"{m} mean {f6.loc[m, ('dist', 'mean')]:.1f} sd {v:.1f}" for m, v in sd.items()) + " (dist)",
                dataset, "yes" if sd.idxmax() == "InfAP" and f6[("dist", "mean")].idxmax() == "InfAP" else
                "partly" if f6[("dist", "mean")].idxmax() == "InfAP" or sd.idxmax() == "InfAP" else "no",
                "InfAP is compared with AP@d, the others with RBP@d"))
    # the collections each figure comes from (default: Table 2's six); every row but Fig. 6's "< 0.05" is about a
    # direction or an ordering, which can be checked on any collection (evalkit.claims.grading's grading)
    from dataclasses import replace

    return [replace(c, paper_dataset=next((v for k, v in CLAIM_COLLECTIONS.items() if c.claim.startswith(k)), ""),
                    kind="value" if c.claim.startswith("Fig. 6 (two strata)") else "direction") for c in out]


#: the paper's collections behind each claim (by the start of its text); others: Table 2's six
CLAIM_COLLECTIONS = {
    "Fig. 3 left": "TREC-5, Rob04, TREC-10, TB06",
    "Fig. 3 middle": "TREC-5",
    "Fig. 3 right": "TREC-5, TREC-7, TREC-8",
    "Table 3": "Rob04, TB04, TB05, TB06",
}


# ------------------------------------------------------------------------------------------ the widget


def explorer_fit(data, fit_depth: int = 10, p: float | None = None, cache: dict | None = None) -> dict:
    """Everything the widget draws from, for one pool depth d' and RBP persistence p (cached in ``cache``):
    ``judgments`` (the depth-d' pool), ``estimates`` (all seven estimators, ungated), ``reference`` (RBP(p)@d on
    the full qrels), ``weights`` (W(1..d)) and ``observed`` ((T, d') observed gain vector)."""
    from evalkit.estimation import (
        ESTIMATORS,
        gains,
        metric_weights,
        observed_gain_vector,
    )
    from evalkit.estimation.estimators import _grades

    data = _data(data)
    p = data.p if p is None else float(p)
    key = (int(fit_depth), round(p, 6))
    if cache is not None and key in cache:
        return cache[key]
    c = data.collection
    judgments = pool_qrels(c, fit_depth, data.pool_runs)
    est = estimate_scores(c, judgments, fit_depth, pool_runs=data.pool_runs, depth=data.depth, p=p,
                          estimators=ESTIMATORS, matrix=data.matrix)
    reference = data.reference if np.isclose(p, data.p) else reference_scores(c, data.depth, data.pool_runs, "rbp", p)
    pool_grades = _grades(c, judgments, data.pool_runs, fit_depth)
    fit = {"fit_depth": int(fit_depth), "p": p, "judgments": judgments, "estimates": est, "reference": reference,
           "weights": metric_weights("rbp", data.depth, p)[0],
           "observed": observed_gain_vector(gains(pool_grades), pool_grades >= 0)}
    if cache is not None:
        cache[key] = fit
    return fit


def run_gain_profile(data, fit: dict, run, topic, estimator: str = "Lb", theta: float = DEFAULT_THETA) -> pd.DataFrame:
    """Rank by rank (1..d) for one scored run and topic: the document, its gain under the full qrels
    (``reference_gain``), whether the depth-d' pool judged it, and the gain ``estimator`` gives it (the judged
    gain where known; else LB 0, RM the run's rate of Eq. 4, the fitted rank-level curve, or the framework's h2;
    0 for a gated estimator on a topic with gamma <= theta)."""
    from evalkit.data.collection import ABSENT
    from evalkit.estimation import GAIN_MODELS, MODEL_LABELS, gains
    from evalkit.estimation.estimators import _grades

    data = _data(data)
    c = data.collection
    est = fit["estimates"]
    r = c.run_index(run) if isinstance(run, str) else int(run)
    t = list(c.topics).index(topic) if not isinstance(topic, (int, np.integer)) else int(topic)
    row = int(np.flatnonzero(np.flatnonzero(est.runs) == r)[0])
    mask = np.zeros(c.n_runs, bool)
    mask[r] = True
    d = data.depth
    docs = np.full(d, -1, np.int64)
    width = min(d, c.docs.shape[-1])
    docs[:width] = c.docs[r, t, :width]
    shallow = np.full(d, ABSENT, np.int64)
    full = np.full(d, ABSENT, np.int64)
    shallow[:width] = _grades(c, fit["judgments"], mask, width)[0, t]
    full[:width] = _grades(c, c.qrels, mask, width)[0, t]
    unknown = (shallow < 0) & (shallow != ABSENT)
    estimate = np.zeros(d)
    adjusted = bool(est.adjusted(theta)[t]) if estimator in GATED_ESTIMATORS else True
    if estimator == "RM":
        lb, residual = est.lower_bound.score[row, t], est.lower_bound.residual[row, t]
        estimate[:] = (est.scores["RM"][row, t] - lb) / residual if residual > 0 else 0.0
    elif estimator in ("Lin", "Zipf", "Wei"):
        model = GAIN_MODELS.index({v: k for k, v in MODEL_LABELS.items()}[estimator])
        estimate[:] = est.curves[t, model, :d]
    elif estimator in ("La", "Lb"):
        estimate[:] = np.where(docs >= 0, est.fits[estimator].document_gains(t, np.maximum(docs, 0)), 0.0)
    if not adjusted:
        estimate[:] = 0.0
    gain = np.where(unknown, estimate, np.where(shallow >= 0, gains(np.maximum(shallow, 0)), 0.0))
    return pd.DataFrame({
        "rank": np.arange(1, d + 1), "doc": np.where(docs >= 0, c.vocabulary[np.maximum(docs, 0)], ""),
        "reference_gain": np.where(full >= 0, gains(np.maximum(full, 0)), np.nan),
        "judged": shallow >= 0, "absent": shallow == ABSENT, "gain": np.where(shallow == ABSENT, 0.0, gain),
        "weight": fit["weights"],
    })


def default_selection(data, fit_depth: int = 10, run=None, topic=None, cache: dict | None = None,
                      theta: float = DEFAULT_THETA) -> tuple:
    """``(run name, topic)`` the widget starts from: the contributing run of median mean reference score, and the
    topic where the gated estimators (Lin, Zipf, Wei, La, Lb) and LB disagree most for that run at ``theta`` (the
    largest spread of their estimates, so the first picture shows a difference: on a topic with gamma <= theta
    every gated estimator is LB, and RM alone differs); ties, and a
    collection where they never disagree, go to the topic where LB falls furthest below the reference (given
    ones are kept)."""
    from evalkit.estimation.estimators import GATED_ESTIMATORS

    data = _data(data)
    c = data.collection
    scored = np.flatnonzero(data.pool_runs)
    if run is None:
        mean = data.reference.score.mean(axis=1)
        run = c.run_names[scored[int(np.argsort(mean)[len(mean) // 2])]]
    if topic is None:
        row = int(np.flatnonzero(scored == c.run_index(run))[0]) if isinstance(run, str) else int(
            np.flatnonzero(scored == int(run))[0])
        est = explorer_fit(data, fit_depth, data.p, cache)["estimates"]
        shortfall = data.reference.score[row] - est.lower_bound.score[row]
        shown = ["LB"] + [name for name in GATED_ESTIMATORS if name in est.scores]  # RM differs everywhere
        estimates = np.stack([est.score(name, theta)[row] for name in shown])
        spread = np.round(np.nanmax(estimates, axis=0) - np.nanmin(estimates, axis=0), 6)
        order = np.lexsort((-shortfall, -np.nan_to_num(spread)))  # largest spread first, then largest shortfall
        topic = c.topics[int(order[0])]
    return run, topic


def draw_explorer(data, fit_depth: int = 10, theta: float = DEFAULT_THETA, p: float | None = None,
                  estimator: str = "Lb", run=None, topic=None, cache: dict | None = None):
    """The widget's picture: left, the topic's observed gain vector (ranks <= d'), its three fitted rank-level
    curves, and the chosen run's gains (relevant documents under the full qrels; the chosen estimator's gains
    for its unjudged documents); right, the run's cumulative RBP under the full qrels, under LB and under the
    estimator, with the reference range [M, M + eps] of Eq. 3. Below: the error table (RMSE, Acc% over all
    runs and topics at this theta) and this run's and topic's estimate and error per estimator. ``run`` and
    ``topic`` default to :func:`default_selection`; ``cache`` (a dict) keeps the fits across calls."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    from IPython.display import display

    from evalkit.estimation import ESTIMATORS, GAIN_MODELS, MODEL_LABELS, error_table

    data = _data(data)
    c = data.collection
    fit = explorer_fit(data, fit_depth, p, cache)
    est, ref = fit["estimates"], fit["reference"]
    scored = np.flatnonzero(est.runs)
    run, topic = default_selection(data, fit_depth, run, topic, cache, theta)
    r = c.run_index(run) if isinstance(run, str) else int(run)
    row = int(np.flatnonzero(scored == r)[0])
    t = list(c.topics).index(topic) if not isinstance(topic, (int, np.integer)) else int(topic)
    profile = run_gain_profile(data, fit, r, t, estimator, theta)
    d = data.depth
    ranks = profile["rank"].to_numpy()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    ax = axes[0]
    for m, model in enumerate(GAIN_MODELS):
        ax.plot(ranks, est.curves[t, m, :d], lw=1.2, label=f"{MODEL_LABELS[model]} curve")
    observed = fit["observed"][t]
    ax.plot(np.arange(1, len(observed) + 1), observed, "ko", ms=4, label="observed gain vector")
    relevant = profile[profile["reference_gain"] > 0]
    ax.scatter(relevant["rank"], np.full(len(relevant), 1.03), marker="|", s=80,
               c=np.where(relevant["judged"], "C3", "0.5"), label="relevant (red: judged at d')")
    unjudged = profile[~profile["judged"] & ~profile["absent"]]
    sns.scatterplot(x=unjudged["rank"], y=unjudged["gain"], ax=ax, color="C4", s=18, zorder=3,
                    label=f"{estimator}: gain of the run's unjudged documents")
    ax.axvline(fit["fit_depth"] + 0.5, color="0.3", ls=":", lw=1)
    ax.set_xlabel("rank")
    ax.set_ylabel("gain")
    ax.set_ylim(-0.03, 1.08)
    gamma = est.gamma[t]
    ax.set_title(f"topic {c.topics[t]}: gamma = {gamma * 1e3:.1f}e-3 "
                 f"({'adjusted' if gamma > theta else 'not adjusted'} at theta = {theta:.3f})", fontsize=10)
    ax.legend(fontsize=7, loc="center right")
    ax = axes[1]
    w = profile["weight"].to_numpy()
    reference_gain = np.nan_to_num(profile["reference_gain"].to_numpy())
    lb_gain = np.where(profile["judged"], profile["gain"], 0.0)
    ax.step(ranks, np.cumsum(w * reference_gain), where="post", label="full qrels", color="k")
    ax.step(ranks, np.cumsum(w * profile["gain"].to_numpy()), where="post", label=estimator, color="C4", lw=2)
    ax.step(ranks, np.cumsum(w * lb_gain), where="post", label=f"LB (depth-{fit['fit_depth']} pool)", color="0.5",
            ls="--")
    low, high = ref.score[row, t], ref.upper[row, t]
    ax.axhspan(low, high, color="C2", alpha=0.15, label="[M, M + eps] at d (Eq. 3)")
    value = est.score(estimator, theta)[row, t]
    error = score_range_error(value, low, high - low)
    ax.set_xlabel("rank")
    ax.set_ylabel(f"cumulative RBP({fit['p']:g})")
    ax.set_title(f"{c.run_names[r]}: estimate {value:.3f}, reference {low:.3f}-{high:.3f}, error {error:.3f}",
                 fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    plt.show()
    table = error_table(est, ref, thetas=(float(theta),)).drop(columns="theta")
    table["this run and topic: estimate"] = [est.score(e, theta)[row, t] for e in table["estimator"]]
    table["error"] = score_range_error(table["this run and topic: estimate"].to_numpy(), low, high - low)
    table = table.set_index("estimator").loc[[e for e in ESTIMATORS if e in table["estimator"].to_numpy()]]
    print(f"d' = {fit['fit_depth']}, theta = {theta:.3f}: {int(est.adjusted(theta).sum())} of {c.n_topics} topics "
          f"adjusted; RBP({fit['p']:g}) at d = {d}, {len(scored)} runs")
    display(table.style.format({"rmse": "{:.4f}", "acc": "{:.1f}", "this run and topic: estimate": "{:.4f}",
                                "error": "{:.4f}"}).apply(
        lambda col: ["font-weight: bold; background-color: #e8e0f0" if i == estimator else "" for i in col.index]))


def explorer(data, fit_depth: int = 10, theta: float = DEFAULT_THETA, estimator: str = "Lb", run=None, topic=None,
             p_values=(0.8, 0.9, 0.95, 0.98)):
    """Sliders for the pool depth d', the threshold theta, RBP's p and the estimator, plus a run and a topic,
    redrawing :func:`draw_explorer` (a run's gain curve and the error table). A new (d', p) refits every
    estimator (a few seconds on TREC-8; cached); theta, the estimator, the run and the topic redraw at once.
    Default run and topic: :func:`default_selection`."""
    import ipywidgets as widgets

    from evalkit.display.widgets import interactive_figure
    from evalkit.estimation import ESTIMATORS

    data = _data(data)
    c = data.collection
    cache: dict = {}
    scored = np.flatnonzero(data.pool_runs)
    run, topic = default_selection(data, fit_depth, run, topic, cache, theta)
    p_options = sorted({float(x) for x in p_values} | {data.p})
    # d' in steps of 5 up to 50 on TREC-8-deep pools; single ranks below d on shallow ones
    step, low, high = (5, 5, min(50, data.depth - 5)) if data.depth >= 20 else (1, 1, data.depth - 1)
    controls = {
        "fit_depth": widgets.IntSlider(value=min(max(int(fit_depth), low), high), min=low, max=high, step=step,
                                       description="d'", continuous_update=False),
        "theta": widgets.FloatSlider(value=theta, min=0.0, max=0.04, step=0.001, readout_format=".3f",
                                     description="theta", continuous_update=False),
        "p": widgets.SelectionSlider(options=p_options, value=data.p, description="RBP p", continuous_update=False),
        "estimator": widgets.Dropdown(options=list(ESTIMATORS), value=estimator, description="estimator"),
        "run": widgets.Dropdown(options=list(c.run_names[scored]), value=run, description="run"),
        "topic": widgets.Dropdown(options=list(c.topics), value=topic, description="topic"),
    }
    return interactive_figure(
        lambda **v: draw_explorer(data, v["fit_depth"], v["theta"], v["p"], v["estimator"], v["run"], v["topic"],
                                  cache),
        rows=[["fit_depth", "theta", "p"], ["estimator", "run", "topic"]], **controls)


# ------------------------------------------------------------------------------------------ run-size presets

#: the notebook's sizes per preset (:mod:`evalkit.papers.settings`). "paper": 10 two-strata samples (Figure 6), every
#: group left out in Table 3, Figure 4 at six depths, Figure 3's θ grid in steps of 0.001. "class": 3 samples, 6
#: groups, 3 depths, θ in steps of 0.002 (0.018 kept): the estimators' orderings the notebook discusses come
#: from Table 2, which is computed in full; the class preset shortens the slow leave-one-group-out table (most of
#: the paper preset's time) and the curves. "fast": the tests' (with ``plan(fast=True)``'s smaller grids).
PRESETS = {
    "paper": {"repetitions": 10, "table3_groups": None, "figure4_points": None, "theta_step": 1},
    "class": {"repetitions": 3, "table3_groups": 6, "figure4_points": 3, "theta_step": 2},
    "fast": {"repetitions": 3, "table3_groups": 6, "figure4_points": 2, "theta_step": 4},
}


def settings(preset: str = "paper", fast: bool = False, **given):
    """The notebook's sizes: :data:`PRESETS` ``[preset]`` (``"fast"`` when ``fast``), explicit values winning
    (:func:`evalkit.papers.settings.resolve`); pass them on to :func:`plan`, which scales the depths to the collection."""
    from evalkit.papers.settings import resolve

    return resolve(PRESETS, preset, fast, **given)


__all__ += ["PRESETS", "settings"]
