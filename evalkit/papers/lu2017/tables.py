"""Lu, Moffat and Culpepper (2017): pure functions from results to DataFrames.

Table 2 in the paper's layout (:func:`table2_layout`, the kit's or :data:`~evalkit.papers.lu2017.paper.PAPER_TABLE2`),
the estimators ordered and ranked by RMSE (:func:`rmse_ordering`, :func:`rmse_ranks`), their orderings kit beside
paper (:func:`compare_orderings`), and the explorer's rank-by-rank table of one run and topic
(:func:`run_gain_profile`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.estimation import DEFAULT_THETA, GATED_ESTIMATORS
from evalkit.papers.lu2017.experiment import prepared
from evalkit.papers.lu2017.paper import PAPER_TABLE2, paper_table2


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


def rmse_ranks(frame: pd.DataFrame) -> pd.DataFrame:
    """A long Table-2 frame (the kit's or :data:`~evalkit.papers.lu2017.paper.PAPER_TABLE2`) with every
    estimator's RMSE rank (1 = lowest, ties share the lower rank) per (collection, depth, theta); LB and RM
    (ungated) join every theta."""
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
    (kit d' -> the paper's d', from
    :func:`~evalkit.papers.lu2017.plan.plan`) pairs scaled depths with the paper's rows."""
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


def run_gain_profile(data, fit: dict, run, topic, estimator: str = "Lb", theta: float = DEFAULT_THETA) -> pd.DataFrame:
    """Rank by rank (1..d) for one scored run and topic: the document, its gain under the full qrels
    (``reference_gain``), whether the depth-d' pool judged it, and the gain ``estimator`` gives it (the judged
    gain where known; else LB 0, RM the run's rate of Eq. 4, the fitted rank-level curve, or the framework's h2;
    0 for a gated estimator on a topic with gamma <= theta)."""
    from evalkit.data.collection import ABSENT
    from evalkit.estimation import GAIN_MODELS, MODEL_LABELS, gains
    from evalkit.estimation.estimators import _grades

    data = prepared(data)
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
