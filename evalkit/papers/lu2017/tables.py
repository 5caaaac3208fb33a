"""Lu, Moffat and Culpepper (2017): pure functions from results to DataFrames.

Table 2 in the paper's layout (:func:`table2_layout`, the kit's or :data:`~evalkit.papers.lu2017.paper.PAPER_TABLE2`),
the estimators ordered and ranked by RMSE (:func:`rmse_ordering`, :func:`rmse_ranks`), their orderings kit beside
paper (:func:`compare_orderings`), and the explorer's rank-by-rank table of one run and topic
(:func:`run_gain_profile`); whether the verdicts survive the reconstructed parameters (:func:`survives`) and
where this replication deviates from the paper (:func:`deviations`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalkit.estimation import DEFAULT_THETA, GATED_ESTIMATORS
from evalkit.papers.lu2017.experiment import prepared
from evalkit.papers.lu2017.paper import PAPER_TABLE2, paper_table2


def summarize_errors(per_topic: pd.DataFrame) -> pd.DataFrame:
    """RMSE and Acc% over runs x topics from per-topic rows (``sse``, ``zeros``, ``n_runs``: :func:`table2` or
    :func:`figure3_rmse_vs_theta` with ``per_topic=True``), one row per everything else but the topic."""
    from evalkit.papers.lu2017.experiment import _summary

    keys = [c for c in per_topic.columns if c not in ("topic", "sse", "zeros", "n_runs")]
    return _summary(per_topic, keys)


def summarize_gamma(per_topic: pd.DataFrame, theta: float = DEFAULT_THETA) -> pd.DataFrame:
    """Figure 3 (left) from per-topic gamma (:func:`figure3_gamma_by_depth` with ``per_topic=True``): per depth the
    mean and median gamma and the topics above ``theta``."""
    g = per_topic.groupby("depth", sort=True)["gamma"]
    return pd.DataFrame({"depth": g.mean().index.astype(int), "mean_gamma": g.mean().to_numpy(),
                         "median_gamma": g.median().to_numpy(),
                         "topics_above_theta": g.apply(lambda x: int((x > theta).sum())).to_numpy(),
                         "n_topics": g.size().to_numpy()})


def rank_grid(kit: pd.DataFrame, depth: int, theta: float, paper_depths: dict | None = None) -> pd.DataFrame:
    """The RMSE ranks (1 = lowest) of the five estimators at one (d', theta): the kit's row and the paper's
    collections' rows for the d' it stands for (``paper_depths``), as floats for a heat map (NaN where the paper
    has no row)."""
    from evalkit.papers.lu2017.paper import TABLE2_ESTIMATORS

    paper = paper_table2([depth], paper_depths) if paper_depths is None or depth in paper_depths else \
        PAPER_TABLE2.iloc[:0]
    ranks = pd.concat([rmse_ranks(kit[kit["depth"] == depth])] + ([rmse_ranks(paper)] if len(paper) else []),
                      ignore_index=True)
    ranks = ranks[np.isclose(ranks["theta"].astype(float), theta)]
    grid = ranks.pivot_table(index="collection", columns="estimator", values="rank", sort=False, aggfunc="first")
    return grid.reindex(columns=list(TABLE2_ESTIMATORS)).astype(float)


def table1_layout(kit: pd.DataFrame, paper: pd.DataFrame | None = None) -> pd.DataFrame:
    """The kit's Table 1 (:func:`~evalkit.papers.lu2017.experiment.table1`) below the paper's, as the paper prints
    it: one row per collection, one column per pool, cells ``"judgments (% relevant)"``; over the two-strata
    samples the range in brackets (of the judgments only where it varies)."""
    from evalkit.papers.lu2017.paper import PAPER_TABLE1

    both = pd.concat([PAPER_TABLE1 if paper is None else paper, kit], ignore_index=True)
    for column in ("judgments_min", "judgments_max", "relevant_pct_min", "relevant_pct_max"):
        if column not in both:
            both[column] = np.nan

    def cell(row) -> str:
        text = f"{row.judgments:.0f}"
        if not np.isnan(row.judgments_min) and round(row.judgments_min) != round(row.judgments_max):
            text += f" [{row.judgments_min:.0f}-{row.judgments_max:.0f}]"
        share = f"{row.relevant_pct:.0f}"
        if not np.isnan(row.relevant_pct_min):
            share += f" [{row.relevant_pct_min:.0f}-{row.relevant_pct_max:.0f}]"
        return f"{text} ({share})"

    both["cell"] = [cell(row) for row in both.itertuples()]
    wide = both.pivot_table(index=["collection", "reference_depth", "n_runs"], columns="pool", values="cell",
                            aggfunc="first", sort=False)
    return wide[list(dict.fromkeys(both["pool"]))].fillna("")


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


# ------------------------------------------------------------------------------------------ deviations


def survives(frame: pd.DataFrame) -> pd.DataFrame:
    """Per parameter and claim: the notebook's verdict, the alternative's, and whether they are the same."""
    out = []
    for (parameter, claim), g in frame.groupby(["parameter", "claim"], sort=False):
        ours = g[g["the notebook's"] == "yes"]["verdict"]
        other = g[g["the notebook's"] != "yes"]
        for _, row in other.iterrows():
            out.append({"parameter": parameter, "claim": claim, "notebook's verdict": ours.iloc[0] if len(ours) else "",
                        "alternative": row["value"], "alternative's verdict": row["verdict"],
                        "survives": "yes" if len(ours) and ours.iloc[0] == row["verdict"] else "no"})
    return pd.DataFrame(out, columns=["parameter", "claim", "notebook's verdict", "alternative",
                                      "alternative's verdict", "survives"])


def deviations(plan, collection, sensitivity_frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Where this replication deviates from the paper: ``what differs from the paper``, ``why``, ``effect``
    (computed from ``sensitivity_frame``, :func:`~evalkit.papers.lu2017.sensitivity.sensitivity`, where it
    can be)."""
    from evalkit.papers.lu2017.plan import PAPER_P
    from evalkit.papers.needs import REFERENCE_DEPTH

    def effect_of(parameter: str) -> str:
        if sensitivity_frame is None or not len(sensitivity_frame):
            return "see the sensitivity table"
        s = survives(sensitivity_frame)
        s = s[s["parameter"] == parameter]
        if not len(s):
            return "not computed here"
        changed = s[s["survives"] == "no"]
        if not len(changed):
            return f"all {len(s)} verdicts the same with {s['alternative'].iloc[0]}"
        return (f"{len(changed)} of {len(s)} verdicts change with {s['alternative'].iloc[0]}: " +
                "; ".join(f"{r.claim[:48]}...: {r._3} -> {r._5}" for r in changed.itertuples()))

    rows = [
        ("The collection: " + collection.name + " instead of the paper's TREC9/10, Rob04, TB04-06",
         "the paper's collections are not available here; TREC-8 was used by the authors only to set theta",
         "the estimators' orderings and directions are compared (direction only), not their values"),
        ("RBP counts every grade >= 1 as gain 1 (binary RBP)", "as the paper does on TREC's binary judgments",
         "on a graded collection the grades above 1 count as 1"),
        ("Intervals: Table 2, Figures 3-4 bootstrapped over topics, Table 3 over groups, Figure 6 over samples",
         "the paper reports single figures; a verdict is graded on its interval (evalkit.claims.rules)",
         "a difference inside the topic-to-topic noise reads 'inconclusive'"),
        ("The losses' squares sit outside the inner sums (Eqs. 7-8)", "the PDF's equations are broken; the "
         "authors' scripts minimize the norm of per-run score errors", "not measured (no other reading is coded)"),
        ("System matrix ranks to the runs' full length K (a document a run did not return gets g0(K))",
         "the paper's k, 'the maximum depth of lists returned'", effect_of("system matrix rank depth K (Table 2)")),
        ("theta = 0.018 in Figures 4 and 6", "the paper does not say which theta it used there",
         effect_of("theta of Figures 4 and 6")),
        ("Discrimination ratio: two-sided paired t-tests at 0.05 over topics",
         "the paper says 'paired t-tests ... significance level p = 0.05' without the sidedness", "not measured"),
        ("Two-strata samples draw round(0.1 x size) documents per topic; the framework is fitted on the first "
         "stratum and trained on every judged document", "the paper gives the rate, not the rounding",
         "not measured"),
    ]
    depth_notes = [n for n in plan.notes if n.split(" ")[0] in ("reference", "pool", "depths", "gamma_depths",
                                                                "figure4_depths", "table3_depth", "two_strata_depth")]
    if plan.reference_depth != REFERENCE_DEPTH or depth_notes:
        rows.append((f"Reference depth d = {plan.reference_depth}, pool depths d' = {plan.depths}",
                     "; ".join(depth_notes) or "the preset's grids",
                     "the paper's d'/d ratios kept where scaled (see the plan line); a value you set is used as set"))
    if plan.p != PAPER_P:
        rows.append((f"RBP persistence p = {plan.p:.3g} instead of 0.95",
                     "scaled to the reference depth (the weight beyond d kept)" if "scaled" in " ".join(plan.notes)
                     else "set by you", effect_of("RBP persistence p (Table 2)")))
    if plan.table3_groups:
        rows.append((f"Table 3 leaves out {plan.table3_groups} groups, not every group", "the preset's size",
                     "its claim is not rated at class size"))
    if plan.repetitions < 10:
        rows.append((f"Figure 6 and Table 1 over {plan.repetitions} two-strata samples (the paper's 10)",
                     "the preset's size", "Figure 6's claims are not rated at class size"))
    for key, shows in plan.degenerate.items():
        rows.append((f"Degenerate here: {key}", shows, "the claims it affects are not rated"))
    return pd.DataFrame(rows, columns=["what differs from the paper", "why", "effect"])
